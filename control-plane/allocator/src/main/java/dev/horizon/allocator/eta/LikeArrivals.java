package dev.horizon.allocator.eta;

import dev.horizon.allocator.model.PlacementRules;
import dev.horizon.allocator.model.SliceRequest;
import dev.horizon.allocator.moment.ActiveJob;
import dev.horizon.api.JobClass;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The band of a job submitted after the latest bands were computed, read off the futures those bands came from. Every
 * future brings expected work copied from the recent arrivals, so a job like the new one (the same team, class, priority
 * and shape) most often arrives in it soon after its moment; how long the one that came nearest the new job's submission
 * waited there is that future's say on the new job's wait. Bands take seconds on a small cluster and a minute on a large
 * one ({@code ./horizon eta-cost}), so this is what gives a job an answer within a plan of its submission, until the next
 * computation gives it a band of its own.
 */
public final class LikeArrivals {
    /** How far past its moment a future's arrivals are kept: longer than a computation lags its plan, even on the demo's fast clock. */
    public static final long WINDOW_SECONDS = 4 * 3600;
    /** A future's arrival like the job counts only within this of the job's submission: the queue an hour away is another queue. */
    static final long NEAREST_SECONDS = 3600;
    public static final LikeArrivals NONE = new LikeArrivals(List.of(), Long.MAX_VALUE);

    /** An expected arrival of a future and its first start there (Long.MAX_VALUE: not by the end of that future). */
    public record Arrived(ActiveJob job, long start) {
    }

    /** What makes two jobs alike: they queue for the same GPUs behind the same work. */
    private record Kind(String team, JobClass jobClass, double priority, int gpus, int minGpus, SliceRequest slice, PlacementRules rules) {
        static Kind of(ActiveJob j) {
            return new Kind(j.team(), j.jobClass(), j.priority(), j.gpus(), j.minGpus(), j.slice(), j.rules());
        }
    }

    /** One arrival's time and wait (Long.MAX_VALUE: it had not started by the end of its future). */
    private record Seen(long arrival, long waited) {
    }

    private final List<Map<Kind, List<Seen>>> futures;
    private final long horizonEnd;

    private LikeArrivals(List<Map<Kind, List<Seen>>> futures, long horizonEnd) {
        this.futures = futures;
        this.horizonEnd = horizonEnd;
    }

    /** From each future's early arrivals ({@link Projection#arrivedEarly}), in the futures' order; horizonEnd: the moment's. */
    static LikeArrivals of(List<List<Arrived>> perFuture, long horizonEnd) {
        List<Map<Kind, List<Seen>>> futures = new ArrayList<>();
        for (List<Arrived> arrived : perFuture) {
            Map<Kind, List<Seen>> byKind = new HashMap<>();
            for (Arrived a : arrived) {
                long wait = a.start() == Long.MAX_VALUE ? Long.MAX_VALUE : a.start() - a.job().arrivalSeconds();
                byKind.computeIfAbsent(Kind.of(a.job()), k -> new ArrayList<>()).add(new Seen(a.job().arrivalSeconds(), wait));
            }
            futures.add(byKind);
        }
        return new LikeArrivals(List.copyOf(futures), horizonEnd);
    }

    /** How many futures there are to read a job like one of theirs from. */
    public int futures() {
        return futures.size();
    }

    /**
     * The job's band from the futures that brought work like it within {@link #NEAREST_SECONDS} of its submission: in each,
     * its submission plus the wait of the like arrival nearest it; null when fewer than {@link StartBands#MIN_LEFT}
     * futures did, too few to say a 90th percentile.
     */
    public StartBands.Band bandOf(ActiveJob job) {
        Kind kind = Kind.of(job);
        List<Long> starts = new ArrayList<>();
        for (Map<Kind, List<Seen>> future : futures) {
            Seen nearest = null;
            for (Seen s : future.getOrDefault(kind, List.of())) {
                long apart = Math.abs(s.arrival() - job.arrivalSeconds());
                if (apart <= NEAREST_SECONDS && (nearest == null || apart < Math.abs(nearest.arrival() - job.arrivalSeconds()))) nearest = s;
            }
            if (nearest != null) starts.add(nearest.waited() == Long.MAX_VALUE ? Long.MAX_VALUE : job.arrivalSeconds() + nearest.waited());
        }
        if (starts.size() < StartBands.MIN_LEFT) return null;
        long[] sorted = starts.stream().mapToLong(Long::longValue).toArray();
        Arrays.sort(sorted);
        return new StartBands.Band(sorted, horizonEnd, null, 0);
    }
}
