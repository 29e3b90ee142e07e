package dev.horizon.service.fairshare;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Books a stretch of time into hourly per-team GPU-seconds, as the simulator's {@code FairShareLedger} does: what each
 * team's work held (from its run segments, exactly, including runs that ended in the stretch) and what it was owed (the
 * entitlement set at the previous plan, constant until this one).
 */
public final class UsageBooking {
    public static final long HOUR = 3600;

    /** A run segment as booking needs it: end null while it runs. */
    public record Held(String team, double gpus, long start, Long end) {
    }

    /** GPU-seconds to add to one team's hour. */
    public record Hourly(String team, long hour, double used, double owed) {
    }

    private UsageBooking() {
    }

    /** The hourly additions for [from, to): nothing when the stretch is empty. */
    public static List<Hourly> book(long from, long to, List<Held> held, Map<String, Double> owedNow) {
        Map<String, Map<Long, double[]>> byTeam = new TreeMap<>();
        for (Held h : held) {
            long a = Math.max(from, h.start()), b = Math.min(to, h.end() == null ? to : h.end());
            if (b > a) spread(byTeam, h.team(), a, b, h.gpus(), 0);
        }
        owedNow.forEach((team, gpus) -> {
            if (gpus > 0 && to > from) spread(byTeam, team, from, to, gpus, 1);
        });
        List<Hourly> out = new ArrayList<>();
        byTeam.forEach((team, hours) -> hours.forEach((hour, v) -> out.add(new Hourly(team, hour, v[0], v[1]))));
        return out;
    }

    private static void spread(Map<String, Map<Long, double[]>> byTeam, String team, long a, long b, double gpus, int column) {
        Map<Long, double[]> hours = byTeam.computeIfAbsent(team, k -> new TreeMap<>());
        for (long t = a; t < b; ) {
            long hour = Math.floorDiv(t, HOUR);
            long end = Math.min(b, (hour + 1) * HOUR);
            hours.computeIfAbsent(hour, k -> new double[2])[column] += gpus * (end - t);
            t = end;
        }
    }
}
