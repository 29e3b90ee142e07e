package dev.horizon.allocator.actions.preempt;

import dev.horizon.allocator.actions.Ranking;
import dev.horizon.allocator.model.RunningJob;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.DoublePredicate;

/** Running jobs that may be preempted, by node, cheapest first; jobs spanning nodes only make room for wide jobs. */
public final class VictimPool {
    /**
     * Lowest weight, then latest start, then id. Written out: a decision on a large cluster sorts thousands of running
     * jobs with it, and the chain of key extractors it replaces cost a twentieth of a decision.
     */
    private static final Comparator<RunningJob> CHEAPEST = (a, b) -> {
        int byWeight = Double.compare(a.weight(), b.weight());
        if (byWeight != 0) return byWeight;
        int byStart = Long.compare(b.startSeconds(), a.startSeconds());
        return byStart != 0 ? byStart : a.id().compareTo(b.id());
    };
    /** Indexed by node (up to the last node a victim is on): each node of a large cluster is asked in turn. */
    private final List<List<RunningJob>> byNode = new ArrayList<>();
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
            while (byNode.size() <= node) byNode.add(new ArrayList<>());
            byNode.get(node).add(r);
            lowestWeight = Math.min(lowestWeight, r.weight());
        }
        byNode.forEach(l -> l.sort(CHEAPEST));
    }

    long now() {
        return now;
    }

    boolean hasOutrankedBy(double weight) {
        return Ranking.outranks(weight, lowestWeight);
    }

    List<RunningJob> onNode(int node) {
        return node < byNode.size() ? byNode.get(node) : List.of();
    }

    void remove(RunningJob r) {
        if (!spanning.remove(r)) byNode.get(r.placement().slices().get(0).node()).remove(r);
    }

    /** Every victim whose weight passes {@code eligible}, cheapest first across nodes. */
    List<RunningJob> cheapest(DoublePredicate eligible) {
        List<RunningJob> all = new ArrayList<>();
        byNode.forEach(l -> l.stream().filter(r -> eligible.test(r.weight())).forEach(all::add));
        spanning.stream().filter(r -> eligible.test(r.weight())).forEach(all::add);
        all.sort(CHEAPEST);
        return all;
    }
}
