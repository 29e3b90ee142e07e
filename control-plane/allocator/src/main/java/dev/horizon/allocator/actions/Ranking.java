package dev.horizon.allocator.actions;

import dev.horizon.allocator.PlanningContext;
import dev.horizon.allocator.model.PendingJob;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** How Horizon's actions order and compare work, and how they speak of time and GPUs in wait reasons. */
public final class Ranking {
    /**
     * Value order: weight first, then first come first served. Written out rather than chained: every decision sorts the
     * queue by it, and in a start-time band's futures that is hundreds of decisions over a queue of thousands.
     */
    public static final Comparator<PendingJob> VALUE_ORDER = (a, b) -> {
        int byWeight = Double.compare(b.weight(), a.weight());
        if (byWeight != 0) return byWeight;
        int byArrival = Long.compare(a.arrivalSeconds(), b.arrivalSeconds());
        return byArrival != 0 ? byArrival : a.id().compareTo(b.id());
    };

    private static final int MAX_CACHED_HOURS = 4096;
    private static final Map<Long, String> HOURS = new ConcurrentHashMap<>();

    private Ranking() {
    }

    /**
     * Whether work of weight {@code preemptor} may take GPUs from work of weight {@code victim}: only
     * across a whole unit of weight. Integer weights (priority classes) compare as usual; fractional
     * parts (user priority inside a fair-share tier) order work but never preempt.
     */
    public static boolean outranks(double preemptor, double victim) {
        return Math.floor(victim) + 1 <= Math.floor(preemptor);
    }

    /** Steps from the start of the current step until endSeconds, at least 1 and at most h. */
    public static int stepsUntil(PlanningContext ctx, long endSeconds, int h) {
        long stepStart = ctx.stepIndex() * ctx.stepSeconds();
        long steps = (endSeconds - stepStart + ctx.stepSeconds() - 1) / ctx.stepSeconds();
        return (int) Math.max(1, Math.min(h, steps));
    }

    /**
     * "node-1, node-2, node-3 and 4 more": three named at most, since a reason is stored with every waiting job and a
     * large cluster drains, loses or holds many nodes at once.
     */
    public static String upToThree(List<String> names) {
        return names.size() <= 3 ? String.join(", ", names) : String.join(", ", names.subList(0, 3)) + " and " + (names.size() - 3) + " more";
    }

    /** "1 GPU", "8 GPUs". */
    public static String gpus(int n) {
        return n + (n == 1 ? " GPU" : " GPUs");
    }

    public static String minutes(long seconds) {
        if (seconds < 5400) return (seconds + 59) / 60 + " min";
        // every decision words each waiting job's wait this way, mostly the same few lengths: formatting them was a
        // sixth of what a start-time band's futures cost (issue 35); the cache is emptied before it grows large
        if (HOURS.size() >= MAX_CACHED_HOURS) HOURS.clear();
        return HOURS.computeIfAbsent(seconds, s -> String.format("%.1f h", s / 3600.0));
    }
}
