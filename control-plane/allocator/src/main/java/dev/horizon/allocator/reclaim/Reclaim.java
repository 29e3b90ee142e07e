package dev.horizon.allocator.reclaim;

import dev.horizon.allocator.RunningJob;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Which running jobs give their GPUs back when real-time inference needs them. Fill (work on lent
 * GPUs) goes first, lowest weight and newest first; then resumable work past its minimum runtime.
 * Work inside its contract's minimum runtime and work that cannot resume is never taken.
 */
public final class Reclaim {
    private static final Comparator<RunningJob> CHEAPEST_FIRST = Comparator
            .comparing((RunningJob j) -> !j.fill())
            .thenComparingDouble(RunningJob::weight)
            .thenComparing(Comparator.comparingLong(RunningJob::startSeconds).reversed())
            .thenComparing(RunningJob::id);

    private Reclaim() {
    }

    /** Victims freeing at least {@code gpusNeeded} GPUs, or all eligible ones if they cannot. */
    public static List<RunningJob> victims(List<RunningJob> running, int gpusNeeded, long now) {
        List<RunningJob> eligible = new ArrayList<>();
        for (RunningJob j : running) {
            if (j.fill() || (j.contract().resumable() && !j.protectedAt(now))) eligible.add(j);
        }
        eligible.sort(CHEAPEST_FIRST);
        List<RunningJob> victims = new ArrayList<>();
        int freed = 0;
        for (RunningJob j : eligible) {
            if (freed >= gpusNeeded) break;
            victims.add(j);
            freed += j.gpus();
        }
        return victims;
    }
}
