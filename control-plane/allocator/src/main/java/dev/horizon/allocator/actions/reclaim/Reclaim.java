package dev.horizon.allocator.actions.reclaim;

import dev.horizon.allocator.RunningJob;
import dev.horizon.allocator.UnmetDemandCost;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Which running jobs give their GPUs back when real-time inference needs them. Fill (work on lent
 * GPUs) goes first, lowest weight and newest first; then resumable work past its minimum runtime;
 * then work that cannot resume, but only where the output it would lose is worth less than the
 * penalty for leaving that much inference demand unmet for a step (Dharma: unmet real-time demand
 * costs 5-10x the allocation reward). Work inside its contract's minimum runtime is never taken.
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
    public static List<RunningJob> victims(List<RunningJob> running, int gpusNeeded, long now, UnmetDemandCost cost) {
        List<RunningJob> eligible = new ArrayList<>();
        List<RunningJob> lossy = new ArrayList<>();
        for (RunningJob j : running) {
            if (j.fill() || (j.contract().resumable() && !j.protectedAt(now))) eligible.add(j);
            else if (!j.protectedAt(now) && lostOutput(j, now) < cost.ofGpus(j.gpus())) lossy.add(j);
        }
        lossy.sort(Comparator.comparingDouble((RunningJob j) -> lostOutput(j, now)).thenComparing(RunningJob::id));
        eligible.sort(CHEAPEST_FIRST);
        List<RunningJob> victims = new ArrayList<>();
        int freed = 0;
        for (RunningJob j : eligible) {
            if (freed >= gpusNeeded) break;
            victims.add(j);
            freed += j.gpus();
        }
        for (RunningJob j : lossy) {
            if (freed >= gpusNeeded) break;
            victims.add(j);
            freed += j.gpus();
        }
        return victims;
    }

    /** Priority-weighted GPU-hours a job that cannot resume would lose if stopped now. */
    static double lostOutput(RunningJob j, long now) {
        return j.weight() * j.gpus() * (now - j.startSeconds()) / 3600.0;
    }

}
