package dev.horizon.service.eta;

import dev.horizon.allocator.eta.Calibrator;
import dev.horizon.allocator.eta.StartBands;
import dev.horizon.service.jobs.StartOutlook;
import java.time.Instant;

/**
 * A waiting job's band as it is shown at the moment it is read, the one rule every view of a band goes through (job view
 * and list, explanation, the plan's waiting entries, and so the adapters' conditions and {@code ./horizon why}): never
 * earlier than now, P90 never before P50, a band whose P50 has passed without a start read again from the futures in
 * which the job had not started by now (stale: the caller asks for fresh bands), and a note where the plan's own start
 * falls outside the band; the queue alone's start beside a band with no P90 never before now either, and said no more
 * once it has passed (stale too).
 */
final class BandReading {
    /** The band shown, and whether its time had passed, so fresh bands are due. */
    record Read(StartOutlook.Band band, boolean stale) {
    }

    /** How far past a band's P50 a start may come before the band counts as passed: a plan's own lag. */
    static final long GRACE_SECONDS = 60;
    /** A calibration factor further from 1 than this is worth saying: the waits shown are stretched or shrunk by it. */
    static final double NOTABLE_FACTOR = 1.25;

    private BandReading() {
    }

    /** The band of jobId in s as shown at now; plannedStart: the latest plan's start for it (null: none within the horizon). */
    static Read read(StartTimes.Snapshot s, String jobId, long now, Long plannedStart) {
        if (s.bandsAt() == null) return new Read(null, false);
        StartTimes.Shown shown = s.byJob().get(jobId);
        if (shown == null) {
            return new Read(new StartOutlook.Band(null, null, s.bandsAt(), "no band yet: it came after the plan of " + Instant.ofEpochSecond(s.bandsAt())
                    + ", whose bands are the latest; the bands of a later plan give it one"), false);
        }
        boolean stale = passed(shown.p50At(), now);
        if (stale) shown = again(s, jobId, shown, now);
        StartTimes.QueueAlone alone = shown.queueAlone();
        if (alone != null && passed(alone.p50At(), now)) {
            // told of a start that has passed: said no more, and fresh bands asked for, as for a band
            alone = null;
            stale = true;
        }
        Long p50 = notBefore(now, shown.p50At()), p90 = notBefore(p50 == null ? now : p50, shown.p90At());
        Long aloneP50 = alone == null ? null : notBefore(now, alone.p50At());
        Long aloneP90 = alone == null || aloneP50 == null ? null : notBefore(aloneP50, alone.p90At());
        // where the futures are at hand (the leader's): whether most of them never started the job, and the queue alone's neither
        StartBands.Band raw = s.raw().get(jobId);
        boolean mostNever = p50 == null && raw != null && raw.projected(0.5) == null;
        boolean aloneNever = alone != null && alone.p50At() == null;
        String note = join(join(shown.note(), alone == null ? null : alone.said()),
                plannedOutside(s, plannedStart, p50, p90, aloneP50, aloneP90, mostNever, aloneNever));
        return new Read(new StartOutlook.Band(p50, p90, s.bandsAt(), note, aloneP50, aloneP90), stale);
    }

    /** Whether a start to come by at has passed without one (at null: none was given). */
    private static boolean passed(Long at, long now) {
        return at != null && at + GRACE_SECONDS < now;
    }

    private static Long notBefore(long earliest, Long at) {
        return at == null ? null : Math.max(earliest, at);
    }

    /** The band read again at now from the futures in which the job had not started by then, calibrated as before. */
    private static StartTimes.Shown again(StartTimes.Snapshot s, String jobId, StartTimes.Shown passed, long now) {
        StartBands.Band raw = s.raw().get(jobId);
        StartBands.Band left = raw == null || s.learnt() == null ? null : raw.after(now);
        String was = "its band of the plan of " + Instant.ofEpochSecond(s.bandsAt()) + " (P50 " + Instant.ofEpochSecond(passed.p50At()) + ") passed without a start";
        if (left == null) return new StartTimes.Shown(null, null, was + "; fresh bands come with the next plan", passed.queueAlone());
        Long[] levels = Calibrator.scaled(s.learnt(), now, left);
        Long p50 = BandNotes.calibratedOrPlayed(levels, left, Calibrator.P50, 0.5), p90 = BandNotes.calibratedOrPlayed(levels, left, Calibrator.P90, 0.9);
        return new StartTimes.Shown(p50, p90, was + "; read again at " + Instant.ofEpochSecond(now) + " from the " + left.starts().length + " of "
                + raw.starts().length + " sampled futures in which it had not started by then", p90 == null ? passed.queueAlone() : null);
    }

    /**
     * Why the plan's start lies outside the band, when it does; for a job with no band, outside the queue alone's start
     * instead, which a user reads beside the plan's ("if no more work arrives") and so must not contradict it unexplained;
     * and for a job that most futures did not start at all (mostNever), why the plan does (null: inside, or nothing to
     * compare). aloneNever: the queue alone was played and did not start it either.
     */
    private static String plannedOutside(StartTimes.Snapshot s, Long planned, Long p50, Long p90, Long aloneP50, Long aloneP90, boolean mostNever,
                                         boolean aloneNever) {
        if (planned == null) return null;
        if (mostNever && aloneP50 == null) {
            return "the plan starts it at " + Instant.ofEpochSecond(planned) + ", yet most sampled futures" + (aloneNever ? ", even with no work arriving," : "")
                    + " did not start it by where they end: the plan is this moment's, each run ahead of it ending at its estimate and the GPUs"
                    + " it needs kept for it, while the futures make the plan again as runs end, and there the policy gave those GPUs to other"
                    + " work first";
        }
        String late = "the plan takes each run ahead of it to last its estimate, while the sampled futures draw those runs from how their"
                + " team's runs of the class really ran, and most ended sooner";
        if (p50 != null) {
            return outside(planned, p50, p90, "its", "the plan counts only the work submitted so far, each run ending at its estimate, while the"
                    + " sampled futures also bring the work expected to arrive ranked above it (at the last day's rate) and runs ahead of it that"
                    + " overrun their estimates" + factor(s, Calibrator.P50), late + factor(s, Calibrator.P90));
        }
        return outside(planned, aloneP50, aloneP90, "the queue alone's", "the plan takes each run ahead of it to end at its estimate and the"
                + " job to keep its place, while the futures played with no work arriving draw those runs from how their team's runs of the class"
                + " really ran, and decide again as GPUs free, where work ranked above it then may take them first", late);
    }

    private static String outside(long planned, Long p50, Long p90, String whose, String early, String late) {
        if (p50 == null) return null;
        if (planned < p50) return "the plan starts it at " + Instant.ofEpochSecond(planned) + ", before " + whose + " P50: " + early;
        if (p90 != null && planned > p90) return "the plan starts it at " + Instant.ofEpochSecond(planned) + ", after " + whose + " P90: " + late;
        return null;
    }

    /** What the calibration adds at a level, when it moves the band notably. */
    private static String factor(StartTimes.Snapshot s, int level) {
        if (s.learnt() == null) return "";
        double f = Math.exp(s.learnt().logFactors()[level]);
        if (f < NOTABLE_FACTOR && f > 1 / NOTABLE_FACTOR) return "";
        return String.format(java.util.Locale.ROOT, "; and bands here have come true %s than sampled, so their waits are scaled by %.2f",
                f > 1 ? "later" : "earlier", f);
    }

    private static String join(String a, String b) {
        return a == null ? b : b == null ? a : a + "; " + b;
    }
}
