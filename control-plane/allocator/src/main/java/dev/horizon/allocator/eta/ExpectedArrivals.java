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
 * @param recent      jobs that arrived over the last spanSeconds, as they were when they arrived
 * @param spanSeconds how far back recent reaches
 */
public record ExpectedArrivals(List<ActiveJob> recent, long spanSeconds) {
    /** How far back a rate is read: a day covers the daily rhythm of submissions. */
    public static final long WINDOW_SECONDS = 86_400;
    /** Arrivals closer than this to the one before belong to one burst. */
    static final long BURST_GAP_SECONDS = 300;
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
        double rate = bursts.size() / (double) spanSeconds;
        double t = from;
        while (true) {
            t += -Math.log(1 - rng.nextDouble()) / rate;
            if (t > to) break;
            List<ActiveJob> like = bursts.get(rng.nextInt(bursts.size()));
            long first = like.get(0).arrivalSeconds();
            for (ActiveJob j : like) {
                long at = (long) Math.ceil(t) + j.arrivalSeconds() - first;
                if (at > to) break;
                out.add(new ActiveJob(prefix + out.size(), j.team(), j.jobClass(), j.priority(), j.gpus(), j.minGpus(), at, j.userEstimateSeconds(),
                        j.contract(), j.slice(), j.rules(), ActiveJob.RunHistory.NEW, null));
            }
        }
        out.sort(Comparator.comparingLong(ActiveJob::arrivalSeconds));
        return out;
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
