package dev.horizon.allocator.actions.reclaim;

import dev.horizon.allocator.UnmetDemandCost;
import dev.horizon.allocator.model.RunningJob;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Which running jobs give their GPUs back when real-time inference needs them: the ones whose loss is smallest. Fill
 * (work on lent GPUs) and resumable work past its minimum runtime lose their last checkpoint's worth of work (weight x
 * GPUs x checkpoint cost), so a small job goes before a wide one that would lose far more for the same few GPUs, and fill
 * before protected work at equal loss; work that cannot resume comes last, and only where the output it would lose is
 * worth less than the penalty for leaving that much inference demand unmet for a step (Dharma: unmet real-time demand
 * costs 5-10x the allocation reward). Work inside its contract's minimum runtime is never taken. Victims a later, larger
 * one made unnecessary are let go again.
 */
public final class Reclaim {
    /** A checkpoint is never free: restarting costs at least a minute of the job's GPUs. */
    private static final long MIN_RESTART_SECONDS = 60;
    private static final Comparator<RunningJob> CHEAPEST_FIRST = Comparator
            .comparingDouble(Reclaim::checkpointLoss)
            .thenComparing((RunningJob j) -> !j.fill())
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
        return unneededLetGo(victims, gpusNeeded);
    }

    /** Drops victims, costliest first, that the others already cover. */
    private static List<RunningJob> unneededLetGo(List<RunningJob> victims, int gpusNeeded) {
        List<RunningJob> kept = new ArrayList<>(victims);
        int freed = kept.stream().mapToInt(RunningJob::gpus).sum();
        for (int i = victims.size() - 1; i >= 0; i--) {
            RunningJob v = victims.get(i);
            if (freed - v.gpus() >= gpusNeeded) {
                kept.remove(v);
                freed -= v.gpus();
            }
        }
        return kept;
    }

    /** Priority-weighted GPU-seconds a resumable job (or fill) loses if stopped now: its last checkpoint's worth. */
    static double checkpointLoss(RunningJob j) {
        return j.weight() * j.gpus() * Math.max(MIN_RESTART_SECONDS, j.contract().checkpointCostSeconds());
    }

    /** Priority-weighted GPU-hours a job that cannot resume would lose if stopped now. */
    static double lostOutput(RunningJob j, long now) {
        return j.weight() * j.gpus() * (now - j.startSeconds()) / 3600.0;
    }

}
