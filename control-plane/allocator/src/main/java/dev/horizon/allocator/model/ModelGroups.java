package dev.horizon.allocator.model;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;

/**
 * One GPU model per job: a job's GPUs are all of one model unless it may mix them (the job JSON's mixModels, with
 * gpuTypes naming the models). A placement search runs on the allowed nodes as usual; where what it found spans models,
 * it runs again on the nodes of one model at a time, the fastest model first, and the first that holds the job wins (or
 * none, and the job waits): a gang never runs at its slowest member's pace, and never on a slower model than one that
 * could take it whole now (on the planning grid: at that step). The one place this rule lives: every start
 * (BlockSearch, under Occupancy.findBlock) and the planning grid (NodeChoice) place through it, in both engines; nodes
 * held for a wide job are of one model too, ranked by {@link #FASTEST_FIRST_ORDER} (NodeHolding.toHold).
 */
public final class ModelGroups {
    /** Training speed, fastest first, of the models clusters carry; a model not listed ranks after these, by name. */
    private static final List<String> FASTEST_FIRST = List.of("B200", "H200", "H100", "H800", "A100", "A800", "L40S", "L40", "A40", "A10", "V100", "T4");

    /** Models by training speed, fastest first. */
    public static final Comparator<String> FASTEST_FIRST_ORDER = Comparator.comparingInt(ModelGroups::rank).thenComparing(m -> m);

    private ModelGroups() {
    }

    /**
     * What search finds on the allowed nodes (null: all), kept to one model: nodeModels[n] is node n's GPU model (null:
     * one model everywhere), nodesOf the nodes a placement uses.
     */
    public static <P> P place(String[] nodeModels, boolean[] allowed, int nodes, boolean mixModels, Function<boolean[], P> search,
                              Function<P, int[]> nodesOf) {
        P any = search.apply(allowed);
        if (any == null || mixModels || nodeModels == null || oneModel(nodeModels, nodesOf.apply(any))) return any;
        Map<String, boolean[]> byModel = new LinkedHashMap<>();
        for (int n = 0; n < nodes; n++) {
            if (allowed == null || allowed[n]) byModel.computeIfAbsent(nodeModels[n], m -> new boolean[nodes])[n] = true;
        }
        List<String> models = new ArrayList<>(byModel.keySet());
        models.sort(FASTEST_FIRST_ORDER);
        for (String m : models) {
            P one = search.apply(byModel.get(m));
            if (one != null) return one;
        }
        return null;
    }

    /** The nodes a placement's slices are on, in slice order. */
    public static int[] nodesOf(Placement p) {
        int[] out = new int[p.slices().size()];
        for (int i = 0; i < out.length; i++) out[i] = p.slices().get(i).node();
        return out;
    }

    private static boolean oneModel(String[] nodeModels, int[] used) {
        for (int n : used) if (!Objects.equals(nodeModels[n], nodeModels[used[0]])) return false;
        return true;
    }

    /** Each node's GPU model, by node index. */
    public static String[] models(Cluster cluster) {
        return cluster.nodes().stream().map(GpuNode::gpuModel).toArray(String[]::new);
    }

    private static int rank(String model) {
        String upper = model.toUpperCase(Locale.ROOT);
        for (int i = 0; i < FASTEST_FIRST.size(); i++) if (upper.startsWith(FASTEST_FIRST.get(i))) return i;
        return FASTEST_FIRST.size();
    }
}
