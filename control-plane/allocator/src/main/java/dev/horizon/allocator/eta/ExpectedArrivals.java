package dev.horizon.allocator.eta;

import dev.horizon.allocator.moment.JobState;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Work expected to arrive, from what arrived lately: arrivals come at the rate of the recent past (a Poisson process),
 * each like one of the recent arrivals (its team, class, priority, shape and contract), so higher-ranked work that
 * keeps coming is expected to keep coming.
 *
 * @param recent      jobs that arrived over the last spanSeconds, as they were when they arrived
 * @param spanSeconds how far back recent reaches (the rate is recent.size() / spanSeconds)
 */
public record ExpectedArrivals(List<JobState> recent, long spanSeconds) {
    /** How far back a rate is read: a day covers the daily rhythm of submissions. */
    public static final long WINDOW_SECONDS = 86_400;
    public static final ExpectedArrivals NONE = new ExpectedArrivals(List.of(), WINDOW_SECONDS);

    public ExpectedArrivals {
        recent = List.copyOf(recent);
        if (spanSeconds < 1) throw new IllegalArgumentException("spanSeconds must be >= 1 (got " + spanSeconds + ")");
    }

    /** One draw of the work arriving in (from, to], in arrival order, waiting and new, with ids that start with prefix. */
    List<JobState> draw(long from, long to, Random rng, String prefix) {
        List<JobState> out = new ArrayList<>();
        if (recent.isEmpty()) return out;
        double rate = recent.size() / (double) spanSeconds;
        double t = from;
        for (int i = 0; ; i++) {
            t += -Math.log(1 - rng.nextDouble()) / rate;
            if (t > to) return out;
            JobState like = recent.get(rng.nextInt(recent.size()));
            out.add(new JobState(prefix + i, like.team(), like.jobClass(), like.priority(), like.gpus(), like.minGpus(), (long) Math.ceil(t),
                    like.userEstimateSeconds(), like.contract(), like.slice(), like.rules(), JobState.RunHistory.NEW, null));
        }
    }
}
