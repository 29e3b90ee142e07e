package dev.horizon.allocator.eta;

import dev.horizon.allocator.moment.ActiveJob;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;

/**
 * Work expected to arrive, from what arrived lately. Work comes in bursts (a sweep of jobs submitted at once), so what
 * is expected is bursts: they come at the rate bursts came over the recent past (a Poisson process), each a copy of one
 * of the recent bursts (its jobs' teams, classes, priorities, shapes and contracts, a burst's spacing kept). Higher-ranked
 * work that keeps coming is expected to keep coming; a sweep that just arrived is expected again only as often as sweeps
 * came, not as if each of its jobs were an arrival rate of its own (that would leave no quiet hour in any future).
 *
 * <p>When the record covers a whole day, bursts are expected at the times of day they came: each recorded burst stands
 * for one burst a day around its time of day ({@link #TIME_OF_DAY_SPREAD_SECONDS}), so as many come a day as at a flat
 * rate, but a cluster whose users submit by day expects its nights quiet. At a flat rate an evening queue faced the
 * busy hours' arrivals all night long, in every future (docs/control-plane.md, "Arrivals by time of day").
 *
 * @param recent      jobs that arrived over the last spanSeconds, as they were when they arrived
 * @param spanSeconds how far back recent reaches
 */
public record ExpectedArrivals(List<ActiveJob> recent, long spanSeconds) {
    /** How far back a rate is read: a day covers the daily rhythm of submissions. */
    public static final long WINDOW_SECONDS = 86_400;
    /** Arrivals closer than this to the one before belong to one burst. */
    static final long BURST_GAP_SECONDS = 300;
    /**
     * How far a burst's time of day spreads when it is expected again (a normal's deviation): a day's record of bursts is
     * a few dozen points, and the hour a sweep came repeats only roughly (on Philly windows a 4-hour block's share of one
     * day's bursts said nothing of the next day's, docs/bench.md), so a day's shape is read in blocks of hours, not minutes.
     */
    static final long TIME_OF_DAY_SPREAD_SECONDS = 2 * 3600;
    private static final long DAY_SECONDS = 86_400;
    private static final double E_TO_MINUS_ONE = Math.exp(-1);
    public static final ExpectedArrivals NONE = new ExpectedArrivals(List.of(), WINDOW_SECONDS);

    public ExpectedArrivals {
        recent = List.copyOf(recent);
        if (spanSeconds < 1) throw new IllegalArgumentException("spanSeconds must be >= 1 (got " + spanSeconds + ")");
    }

    /**
     * The work that arrived over the day before now, as a store of submissions returns it (oldest first or not), read
     * at the day's rate: work from before anything was known counts as none arriving, so a cluster an hour old does not
     * take its first hour's sweep for a day's worth of sweeps. Only when the store hit its cap (capped: older arrivals
     * of the day were left out) is the rate read over the span the arrivals returned cover. The one rule the bench and
     * the control plane read arrivals by.
     */
    public static ExpectedArrivals overTheLastDay(List<ActiveJob> arrived, long now, boolean capped) {
        long oldest = arrived.stream().mapToLong(ActiveJob::arrivalSeconds).min().orElse(now);
        long span = capped && !arrived.isEmpty() ? Math.min(WINDOW_SECONDS, now - oldest) : WINDOW_SECONDS;
        return new ExpectedArrivals(arrived, Math.max(1, span));
    }

    /** One draw of the work arriving in (from, to], in arrival order, waiting and new, with ids that start with prefix. */
    List<ActiveJob> draw(long from, long to, Random rng, String prefix) {
        List<ActiveJob> out = new ArrayList<>();
        List<List<ActiveJob>> bursts = bursts();
        if (bursts.isEmpty()) return out;
        if (spanSeconds >= WINDOW_SECONDS) {
            for (long t : byTimeOfDay(bursts, from, to, rng)) copy(bursts.get(rng.nextInt(bursts.size())), t, to, prefix, out);
        } else {
            // a record cut short by the store's cap says nothing of the hours it lost: a flat rate over the span it covers
            double rate = bursts.size() / (double) spanSeconds;
            for (double t = from + -Math.log(1 - rng.nextDouble()) / rate; t <= to; t += -Math.log(1 - rng.nextDouble()) / rate) {
                copy(bursts.get(rng.nextInt(bursts.size())), (long) Math.ceil(t), to, prefix, out);
            }
        }
        out.sort(Comparator.comparingLong(ActiveJob::arrivalSeconds));
        return out;
    }

    /**
     * When bursts begin in (from, to]: each recorded burst recurs every day around its time of day, a Poisson number of
     * times (one on average) at each recurrence, each shifted by a normal of {@link #TIME_OF_DAY_SPREAD_SECONDS}. The sum
     * is a Poisson process whose rate follows the record's day, as many bursts a day as the record holds. Only the times
     * follow the record's hours: what comes at each is a copy of any recorded burst, as at the flat rate.
     */
    private static List<Long> byTimeOfDay(List<List<ActiveJob>> bursts, long from, long to, Random rng) {
        List<Long> starts = new ArrayList<>();
        long reach = 4 * TIME_OF_DAY_SPREAD_SECONDS;
        for (List<ActiveJob> b : bursts) {
            long at = b.get(0).arrivalSeconds();
            for (long day = Math.max(0, Math.floorDiv(from - reach - at, DAY_SECONDS)); at + day * DAY_SECONDS - reach <= to; day++) {
                for (int n = poisson1(rng); n > 0; n--) {
                    long t = at + day * DAY_SECONDS + Math.round(rng.nextGaussian() * TIME_OF_DAY_SPREAD_SECONDS);
                    if (t > from && t <= to) starts.add(t);
                }
            }
        }
        starts.sort(null);
        return starts;
    }

    /** A Poisson count of mean 1 (Knuth's product of uniforms). */
    private static int poisson1(Random rng) {
        double product = rng.nextDouble();
        int n = 0;
        for (; product > E_TO_MINUS_ONE; n++) product *= rng.nextDouble();
        return n;
    }

    /** The burst like, begun at t, as new jobs arriving by to. */
    private static void copy(List<ActiveJob> like, long t, long to, String prefix, List<ActiveJob> out) {
        long first = like.get(0).arrivalSeconds();
        for (ActiveJob j : like) {
            long at = t + j.arrivalSeconds() - first;
            if (at > to) break;
            out.add(new ActiveJob(prefix + out.size(), j.team(), j.jobClass(), j.priority(), j.gpus(), j.minGpus(), at, j.userEstimateSeconds(),
                    j.contract(), j.slice(), j.rules(), ActiveJob.RunHistory.NEW, null));
        }
    }

    /** The recent arrivals grouped into bursts, each in arrival order. */
    List<List<ActiveJob>> bursts() {
        List<ActiveJob> sorted = new ArrayList<>(recent);
        sorted.sort(Comparator.comparingLong(ActiveJob::arrivalSeconds));
        List<List<ActiveJob>> out = new ArrayList<>();
        long last = Long.MIN_VALUE;
        for (ActiveJob j : sorted) {
            if (out.isEmpty() || j.arrivalSeconds() - last > BURST_GAP_SECONDS) out.add(new ArrayList<>());
            out.get(out.size() - 1).add(j);
            last = j.arrivalSeconds();
        }
        return out;
    }
}
