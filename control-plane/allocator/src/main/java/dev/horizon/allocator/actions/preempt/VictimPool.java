package dev.horizon.allocator.actions.preempt;

import dev.horizon.allocator.actions.Ranking;
import dev.horizon.allocator.model.RunningJob;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.DoublePredicate;

/** Running jobs that may be preempted, by node, cheapest first; jobs spanning nodes only make room for wide jobs. */
public final class VictimPool {
    private static final Comparator<RunningJob> CHEAPEST = Comparator.comparingDouble(RunningJob::weight)
            .thenComparing(Comparator.comparingLong(RunningJob::startSeconds).reversed()).thenComparing(RunningJob::id);
    private final Map<Integer, List<RunningJob>> byNode = new HashMap<>();
    private final List<RunningJob> spanning = new ArrayList<>();
    private double lowestWeight = Double.MAX_VALUE;
    private final long now;

    public VictimPool(List<RunningJob> victims, long now) {
        this.now = now;
        for (RunningJob r : victims) {
            int node = r.placement().slices().get(0).node();
            if (r.placement().slices().stream().anyMatch(s -> s.node() != node)) {
                spanning.add(r);
                lowestWeight = Math.min(lowestWeight, r.weight());
                continue;
            }
            byNode.computeIfAbsent(node, k -> new ArrayList<>()).add(r);
            lowestWeight = Math.min(lowestWeight, r.weight());
        }
        byNode.values().forEach(l -> l.sort(CHEAPEST));
    }

    long now() {
        return now;
    }

    boolean hasOutrankedBy(double weight) {
        return Ranking.outranks(weight, lowestWeight);
    }

    List<RunningJob> onNode(int node) {
        return byNode.getOrDefault(node, List.of());
    }

    void remove(RunningJob r) {
        if (!spanning.remove(r)) byNode.get(r.placement().slices().get(0).node()).remove(r);
    }

    /** Every victim whose weight passes {@code eligible}, cheapest first across nodes. */
    List<RunningJob> cheapest(DoublePredicate eligible) {
        List<RunningJob> all = new ArrayList<>();
        byNode.values().forEach(l -> l.stream().filter(r -> eligible.test(r.weight())).forEach(all::add));
        spanning.stream().filter(r -> eligible.test(r.weight())).forEach(all::add);
        all.sort(CHEAPEST);
        return all;
    }
}
