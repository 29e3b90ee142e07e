package dev.horizon.allocator.actions.preempt;

import dev.horizon.allocator.actions.Ranking;
import dev.horizon.allocator.model.PendingJob;
import dev.horizon.allocator.model.RunningJob;
import java.util.ArrayList;
import java.util.List;

/**
 * What one preemption buys against what it costs, in priority-weighted GPU-seconds of work done within the horizon
 * (issue 34: a 90-second 1-GPU job evicted an 8-GPU job that had run 684 s). Starting now rather than at its planned
 * start, the preemptor does {@code advance = min(its expected run, planned start - now)} seconds of work sooner on its
 * GPUs: the mean of runs like it up to the horizon, not the median the plan schedules by, since with heavy-tailed runs
 * the median prices a wide job of weight 8 at minutes of work where it is expected to run for hours (wide-gangs:
 * medians of 10-23 min, about 1.6 h expected within a day).
 * Each victim loses the work since its last checkpoint (all of it if it cannot resume), a restart, and its work while it
 * waits for GPUs again: the preemptor holds its GPUs for {@code advance} and the victim takes the place the plan had
 * kept for the preemptor, so it waits about as long, no longer than it had left to run. A preemption happens only
 * where the gain exceeds the victims' loss. One search's price also keeps the victim sets it turned down: the job's wait
 * reason names the cheapest, and a job asking the same of an unchanged cluster weighs the same sets at its own price.
 */
public final class Price {
    /** A restart is never free: loading a checkpoint and starting up costs at least a minute of the victim's GPUs. */
    static final long MIN_RESTART_SECONDS = 60;
    /** Work the plan itself starts now takes GPUs from fill on the plan's own room: that was priced when it was lent. */
    public static final Price PLANNED = new Price(Double.POSITIVE_INFINITY, 0, 0, "which the plan starts now on GPUs it lent out as fill");
    /**
     * Under fair share, work inside its team's owed share takes back what the team is owed, as Kueue's and KAI's reclaim
     * do: a guarantee is not weighed against the work holding it (a debug job of a team owed half the cluster would
     * otherwise wait for another team's 8-GPU job to end).
     */
    public static final Price OWED = new Price(Double.POSITIVE_INFINITY, 0, 0, "which runs within its team's owed share");

    private final double gain;
    private final long advanceSeconds;
    private final long now;
    /** Why no price is weighed (null: it is). */
    private final String unpriced;
    /** The victim sets this search turned down; none for an unpriced one, which is shared and so must not change. */
    private final List<List<RunningJob>> refused;

    private Price(double gain, long advanceSeconds, long now, String unpriced) {
        this.gain = gain;
        this.advanceSeconds = advanceSeconds;
        this.now = now;
        this.unpriced = unpriced;
        this.refused = unpriced == null ? new ArrayList<>() : List.of();
    }

    /**
     * The price of starting j now on {@code gpus} GPUs; plannedStart null where the plan has no start for it within
     * {@code horizonSeconds}. The plan knows starts only to a step, so a job it placed now but could not start is taken
     * to gain at least a step.
     */
    public static Price of(PendingJob j, int gpus, Long plannedStart, long now, long stepSeconds, long horizonSeconds) {
        long planned = plannedStart == null ? now + horizonSeconds : plannedStart;
        long advance = Math.min(Math.max(1, j.expectedRemainingSeconds()), Math.max(stepSeconds, planned - now));
        return new Price(j.weight() * gpus * advance, advance, now, null);
    }

    /** What victims lose, by cause, in priority-weighted GPU-seconds. */
    public record Loss(double sinceCheckpoint, double restart, double waiting) {
        public double total() {
            return sinceCheckpoint + restart + waiting;
        }
    }

    public double gain() {
        return gain;
    }

    /** Seconds of work the preemptor does sooner. */
    public long advanceSeconds() {
        return advanceSeconds;
    }

    /** Whether taking these victims gains more than they lose; a set turned down is kept. */
    boolean pays(List<RunningJob> victims) {
        if (unpriced != null) return true;
        if (gain > lossOf(victims).total()) return true;
        refused.add(victims);
        return false;
    }

    /** The victim sets this search turned down for their price. */
    public List<List<RunningJob>> refused() {
        return refused;
    }

    /** The least these victim sets would lose at this price (null for none). */
    public Loss cheapest(List<List<RunningJob>> sets) {
        Loss cheapest = null;
        for (List<RunningJob> set : sets) {
            Loss loss = lossOf(set);
            if (cheapest == null || loss.total() < cheapest.total()) cheapest = loss;
        }
        return cheapest;
    }

    Loss lossOf(List<RunningJob> victims) {
        return lossOf(victims, advanceSeconds);
    }

    /**
     * What moving these jobs loses, in priority-weighted GPU-seconds: each fits elsewhere at once, so it waits for its
     * GPUs no longer than a step (the next decision places it), and loses its work since its checkpoint and a restart. A
     * move pays where {@link #gain()} exceeds it.
     */
    public double movingLoss(List<RunningJob> moved, long stepSeconds) {
        return lossOf(moved, Math.min(advanceSeconds, stepSeconds)).total();
    }

    /** What the jobs moved off a block are told: for whom, and what it gained against what the move costs them. */
    public String moved(PendingJob preemptor, List<RunningJob> moved, long stepSeconds) {
        Loss loss = lossOf(moved, Math.min(advanceSeconds, stepSeconds));
        return "moved to free whole GPUs for " + preemptor.id() + " (" + Ranking.gpus(preemptor.gpus()) + ", weight " + preemptor.weight()
                + "): starting it now does " + Math.round(advanceSeconds / 60.0) + " min of its work sooner, worth " + gpuHours(gain)
                + " weighted GPU-h, more than the move costs the " + moved.size() + " job(s) moved, " + gpuHours(loss.total()) + " (since their checkpoint "
                + gpuHours(loss.sinceCheckpoint()) + ", restart " + gpuHours(loss.restart()) + ", waiting for the next decision " + gpuHours(loss.waiting()) + ")";
    }

    private Loss lossOf(List<RunningJob> victims, long waitSeconds) {
        double sinceCheckpoint = 0, restart = 0, waiting = 0;
        for (RunningJob v : victims) {
            double weighted = v.weight() * v.gpuFraction();
            long ran = Math.max(0, now - v.startSeconds());
            sinceCheckpoint += weighted * (ran - v.contract().keptWork(ran));
            restart += weighted * Math.max(MIN_RESTART_SECONDS, v.contract().checkpointCostSeconds());
            waiting += weighted * Math.min(waitSeconds, Math.max(0, v.estimatedEndSeconds() - now));
        }
        return new Loss(sinceCheckpoint, restart, waiting);
    }

    /**
     * What the victims of a preemption are told: who took their GPUs and, where a price was paid, what it gained against
     * what they lose.
     */
    String taken(PendingJob preemptor, List<RunningJob> victims) {
        String by = "for " + preemptor.id() + " (" + Ranking.gpus(preemptor.gpus()) + ", weight " + preemptor.weight() + ")";
        if (unpriced != null) return by + ", " + unpriced;
        Loss loss = lossOf(victims);
        return by + ": starting it now does " + Math.round(advanceSeconds / 60.0) + " min of its work sooner, worth " + gpuHours(gain)
                + " weighted GPU-h, more than the " + victims.size() + " job(s) taken off lose, " + gpuHours(loss.total()) + " (since their checkpoint "
                + gpuHours(loss.sinceCheckpoint()) + ", restart " + gpuHours(loss.restart()) + ", waiting for GPUs again " + gpuHours(loss.waiting()) + ")";
    }

    /** The wait reason's clause for a job whose every way in costs more than it gains. */
    public static String refusal(double gain, long advanceSeconds, Loss loss) {
        return "preempting costs more than it gains: starting now does " + Math.round(advanceSeconds / 60.0) + " min of its work sooner, worth "
                + gpuHours(gain) + " weighted GPU-h; the cheapest victims would lose " + gpuHours(loss.total()) + " (since their checkpoint "
                + gpuHours(loss.sinceCheckpoint()) + ", restart " + gpuHours(loss.restart()) + ", waiting for GPUs again " + gpuHours(loss.waiting()) + ")";
    }

    private static String gpuHours(double weightedGpuSeconds) {
        return Math.round(weightedGpuSeconds / 36.0) / 100.0 + "";
    }
}
