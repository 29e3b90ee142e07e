package dev.horizon.allocator.eta;

import dev.horizon.allocator.model.PlacementRules;
import dev.horizon.allocator.model.SliceRequest;
import dev.horizon.allocator.moment.ActiveJob;
import dev.horizon.api.JobClass;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
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
    public static final LikeArrivals NONE = new LikeArrivals(List.of(), Long.MAX_VALUE, Long.MAX_VALUE);

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
    /** The futures' moment, and the end of its horizon (epoch seconds). */
    private final long from, horizonEnd;

    private LikeArrivals(List<Map<Kind, List<Seen>>> futures, long from, long horizonEnd) {
        this.futures = futures;
        this.from = from;
        this.horizonEnd = horizonEnd;
    }

    /** From each future's early arrivals ({@link Projection#arrivedEarly}), in the futures' order, of the moment at from. */
    static LikeArrivals of(List<List<Arrived>> perFuture, long from, long horizonEnd) {
        List<Map<Kind, List<Seen>>> futures = new ArrayList<>();
        for (List<Arrived> arrived : perFuture) {
            Map<Kind, List<Seen>> byKind = new HashMap<>();
            for (Arrived a : arrived) {
                long wait = a.start() == Long.MAX_VALUE ? Long.MAX_VALUE : a.start() - a.job().arrivalSeconds();
                byKind.computeIfAbsent(Kind.of(a.job()), k -> new ArrayList<>()).add(new Seen(a.job().arrivalSeconds(), wait));
            }
            byKind.values().forEach(l -> l.sort(Comparator.comparingLong(Seen::arrival)));
            futures.add(byKind);
        }
        return new LikeArrivals(List.copyOf(futures), from, horizonEnd);
    }

    /** How many futures there are to read a job like one of theirs from. */
    public int futures() {
        return futures.size();
    }

    /**
     * The bands of the jobs asked for, each submitted since these futures' moment and waiting at now, by id (none for a job
     * fewer than {@link StartBands#MIN_LEFT} futures can speak for); known: the jobs known at now, started or not, the
     * asked among them, of which those submitted since the moment rank each asked job among the new work like it.
     */
    public Map<String, StartBands.Band> bandsOf(List<ActiveJob> asked, List<ActiveJob> known, long now) {
        Map<Kind, List<ActiveJob>> since = new HashMap<>();
        for (ActiveJob j : known) if (j.arrivalSeconds() > from) since.computeIfAbsent(Kind.of(j), k -> new ArrayList<>()).add(j);
        // in the order they came, those of one second in the order known
        Map<String, Integer> rank = new HashMap<>();
        for (List<ActiveJob> like : since.values()) {
            like.sort(Comparator.comparingLong(ActiveJob::arrivalSeconds));
            for (int i = 0; i < like.size(); i++) rank.put(like.get(i).id(), i + 1);
        }
        Map<String, StartBands.Band> out = new HashMap<>();
        for (ActiveJob j : asked) {
            StartBands.Band b = bandOf(j, rank.getOrDefault(j.id(), 1), now);
            if (b != null) out.put(j.id(), b);
        }
        return out;
    }

    /**
     * In each future, the job's submission plus the wait of the work like it that arrived there nearest its submission
     * (within {@link #NEAREST_SECONDS}) among those that had not started by the time the job has waited at now (the job
     * has not, so a future in which such work started sooner says nothing of it), and no earlier among that future's
     * arrivals like it than the job's rank among the new ones: a sweep's hundredth job waits behind the ninety-nine
     * submitted with it, which the nearest arrival, often the first of a copy of that sweep, does not. Measured on five
     * Philly windows (docs/control-plane.md), the nearest alone gave bands too early (pooled P50 coverage 0.44, and 0.27
     * on one window without the first condition).
     */
    private StartBands.Band bandOf(ActiveJob job, int rank, long now) {
        long waited = Math.max(0, now - job.arrivalSeconds());
        List<Long> starts = new ArrayList<>();
        for (Map<Kind, List<Seen>> future : futures) {
            List<Seen> like = future.getOrDefault(Kind.of(job), List.of());
            int nearest = -1;
            for (int i = 0; i < like.size(); i++) {
                if (like.get(i).waited() < waited) continue;
                long apart = Math.abs(like.get(i).arrival() - job.arrivalSeconds());
                if (apart <= NEAREST_SECONDS && (nearest < 0 || apart < Math.abs(like.get(nearest).arrival() - job.arrivalSeconds()))) nearest = i;
            }
            int at = nearest < 0 ? -1 : Math.max(nearest, rank - 1);
            if (at < 0 || at >= like.size()) continue;
            Seen s = like.get(at);
            starts.add(s.waited() == Long.MAX_VALUE ? Long.MAX_VALUE : job.arrivalSeconds() + s.waited());
        }
        if (starts.size() < StartBands.MIN_LEFT) return null;
        long[] sorted = starts.stream().mapToLong(Long::longValue).toArray();
        Arrays.sort(sorted);
        return new StartBands.Band(sorted, horizonEnd, null, 0);
    }
}
