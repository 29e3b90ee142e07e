package dev.horizon.service.eta;

import dev.horizon.allocator.eta.Calibrator;
import dev.horizon.allocator.eta.StartBands;
import dev.horizon.allocator.model.Cluster;
import dev.horizon.allocator.model.GpuNode;
import dev.horizon.allocator.moment.ActiveJob;
import dev.horizon.allocator.moment.ClusterMoment;
import dev.horizon.allocator.moment.NodeState;
import dev.horizon.allocator.placement.Feasibility;
import dev.horizon.service.planning.NodesOut;
import java.time.Instant;
import java.util.List;
import java.util.Locale;

/**
 * The band shown for a waiting job when its bands are computed: the calibrated one within the plan's horizon; past it,
 * the futures played on with the same policy (not calibrated: no band that far out has been held to account); and
 * when not even those started it, a sentence that says why no band can be given.
 */
final class BandNotes {
    private BandNotes() {
    }

    /**
     * calibrated: the calibrator's levels; raw: the job's sampled starts; alone: its starts in the queue played with no
     * more work arriving ({@link StartBands.Computed#alone}; null: not played), told only where the band has no P90 and
     * some node could hold the job; beyondHours: how far past the horizon they reach; nodesOut: the registered nodes out
     * of the moment (lost, or awaiting approval)
     * until their agent reports.
     */
    static StartTimes.Shown shown(Long[] calibrated, StartBands.Band raw, StartBands.Band alone, ActiveJob job, ClusterMoment m, int beyondHours,
                                  NodesOut nodesOut) {
        Long p50 = calibrated[Calibrator.P50], p90 = calibrated[Calibrator.P90];
        boolean past = false;
        if (p50 == null && (p50 = raw.projected(0.5)) != null) past = true;
        if (p90 == null && (p90 = raw.projected(0.9)) != null) past = true;
        if (p50 == null) {
            String noNode = noNodeHolds(job, m, nodesOut);
            if (noNode != null) return new StartTimes.Shown(null, null, noNode);
            return new StartTimes.Shown(null, null, notStartedInFutures(raw, m, beyondHours), p90 == null ? queueAlone(alone) : null);
        }
        if (p90 == null) {
            return new StartTimes.Shown(p50, null, "with odds 9 in 10 it starts later than " + Instant.ofEpochSecond(reach(m, beyondHours)) + ", "
                    + beyondHours + " h past the plan's horizon, where the futures end: in " + raw.notStarted() + " of " + raw.starts().length
                    + " it had not started by then" + policySaid(raw), queueAlone(alone));
        }
        return new StartTimes.Shown(p50, p90, past ? "past the plan's horizon (" + Instant.ofEpochSecond(horizonEnd(m)) + "): the queue played on with the"
                + " same policy in steps of an hour, further apart further out (6 h two days past it); a band that far out is not calibrated" : null);
    }

    /**
     * What the queue alone says of a job the futures leave without a P90: when it would start were no more work to arrive
     * ahead of it (null: not played). Said as a condition, never as the band: the work expected to arrive is why there is none.
     */
    static StartTimes.QueueAlone queueAlone(StartBands.Band alone) {
        if (alone == null) return null;
        int futures = alone.starts().length;
        String played = " (the queue as it stands, played on with the same policy in " + futures + " futures with no work arriving; not calibrated)";
        Long p50 = alone.projected(0.5), p90 = alone.projected(0.9);
        if (p50 == null) {
            return new StartTimes.QueueAlone(null, null, "even were no more work to arrive, it would not start within the futures played in "
                    + alone.notStarted() + " of " + futures + played);
        }
        return new StartTimes.QueueAlone(p50, p90, "were no more work to arrive ahead of it, it would start by " + Instant.ofEpochSecond(p50)
                + " with odds 1 in 2 and " + (p90 == null ? "with odds 9 in 10 later than where those end (in " + alone.notStarted() + " of " + futures
                + " it had not started by then)" : "by " + Instant.ofEpochSecond(p90) + " with odds 9 in 10") + played);
    }

    /**
     * The band of a job submitted after the bands of the plan at bandsAt, read off the work like it that their futures
     * brought ({@code LikeArrivals}): calibrated within the horizon, as played past it; null when those futures give it no
     * P50, so it waits for a band of its own.
     */
    static StartTimes.Shown likeArrivals(Long[] calibrated, StartBands.Band raw, long bandsAt, int futures) {
        Long p50 = calibratedOrPlayed(calibrated, raw, Calibrator.P50, 0.5), p90 = calibratedOrPlayed(calibrated, raw, Calibrator.P90, 0.9);
        if (p50 == null) return null;
        return new StartTimes.Shown(p50, p90, "it came after the plan of " + Instant.ofEpochSecond(bandsAt) + ", whose bands are the latest: this"
                + " band is how long work like it (its team, class, priority and shape) waited in " + raw.starts().length + " of those " + futures
                + " sampled futures, where it arrived within the hour of its submission, behind as much new work like it"
                + (p90 == null ? ", and with odds 9 in 10 it starts later than they reach (in " + raw.notStarted() + " of them that work had not started)" : "")
                + "; the bands of a later plan give it its own");
    }

    /**
     * The band of a job that had none, from the first futures of a computation for the plan at planAt whose other futures
     * are still being played: calibrated within the horizon, as played past it; null when those futures give it no P50.
     */
    static StartTimes.Shown firstFutures(Long[] calibrated, StartBands.Band raw, long planAt, int samples) {
        Long p50 = calibratedOrPlayed(calibrated, raw, Calibrator.P50, 0.5), p90 = calibratedOrPlayed(calibrated, raw, Calibrator.P90, 0.9);
        if (p50 == null) return null;
        return new StartTimes.Shown(p50, p90, "a first band, from " + raw.starts().length + " of the " + samples + " sampled futures of the plan of "
                + Instant.ofEpochSecond(planAt) + "; the band of all " + samples + " replaces it when they are played"
                + (p90 == null ? ", and with odds 9 in 10 it starts later than they reach (in " + raw.notStarted() + " of them it had not started)" : ""));
    }

    /** A level as calibrated within the horizon, else as the futures played it past the horizon (null: not even there). */
    static Long calibratedOrPlayed(Long[] calibrated, StartBands.Band raw, int level, double q) {
        return calibrated[level] != null ? calibrated[level] : raw.projected(q);
    }

    /**
     * Why no node can hold the job: only nodes out of the plan could (named: lost since when, or awaiting approval), none
     * takes work now, or none that does could hold it (the drained and unhealthy ones named); null when one could.
     */
    static String noNodeHolds(ActiveJob job, ClusterMoment m, NodesOut nodesOut) {
        List<GpuNode> up = NodesOut.takingWork(m);
        String onlyOut = job == null ? null : nodesOut.onlyTheyHold(c -> Feasibility.problems(job.gpus(), job.minGpus(), job.slice(), job.rules(), c), up);
        if (onlyOut != null) return onlyOut;
        List<String> down = m.nodes().stream().filter(n -> n.health() != NodeState.Health.READY).map(n -> n.node().name() + " (" + n.health().name().toLowerCase(Locale.ROOT) + ")").toList();
        if (up.isEmpty()) return "no node takes work now" + (down.isEmpty() ? "" : ": " + String.join(", ", down)) + "; no start can be given until one does";
        List<String> problems = job == null ? List.of() : Feasibility.problems(job.gpus(), job.minGpus(), job.slice(), job.rules(), new Cluster(up));
        if (problems.isEmpty()) return null;
        return (down.isEmpty() ? "no node can hold it now: " : "no node that takes work now can hold it while " + String.join(", ", down)
                + (down.size() == 1 ? " is" : " are") + " out: ") + String.join("; ", problems);
    }

    /**
     * Why a job some node could hold has no band: it had not started by the end of more than half the futures, and the
     * policy's own last reason in most of them (without one: the work ranked above it kept the GPUs it can use busy that long).
     */
    static String notStartedInFutures(StartBands.Band raw, ClusterMoment m, int beyondHours) {
        String notBy = "in " + raw.notStarted() + " of " + raw.starts().length + " sampled futures it had not started by "
                + Instant.ofEpochSecond(reach(m, beyondHours)) + ", " + beyondHours + " h past the plan's horizon" + unfollowed(raw);
        return raw.stillWaiting() == null ? notBy + ": the work ranked above it, and the work expected to arrive ahead of it, keep the GPUs it can use busy that long"
                : notBy + policySaid(raw);
    }

    /**
     * What the policy itself said of the job at the end of most futures it had not started in: the reason a band cannot
     * be given, in the words the plan uses (e.g. a fractional job that may only pack beside work its GPUs already hold),
     * rather than a guess at one.
     */
    private static String policySaid(StartBands.Band raw) {
        return raw.stillWaiting() == null ? "" : "; at the end of most of them the policy's reason was: " + raw.stillWaiting();
    }

    /** Which of those futures stopped early: its start there is not known, only that it came after more than half had none. */
    private static String unfollowed(StartBands.Band raw) {
        return raw.unfollowed() == 0 ? "" : " (" + raw.unfollowed() + " of them were not played on for it once more than half of the futures before"
                + " had not started it: no band could follow whatever they said)";
    }

    private static long horizonEnd(ClusterMoment m) {
        return m.now() + m.horizonSteps() * m.stepSeconds();
    }

    private static long reach(ClusterMoment m, int beyondHours) {
        return horizonEnd(m) + beyondHours * 3600L / m.stepSeconds() * m.stepSeconds();
    }
}
