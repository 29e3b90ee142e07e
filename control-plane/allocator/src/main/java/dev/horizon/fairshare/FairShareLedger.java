package dev.horizon.fairshare;

import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Occupancy and owed GPU-time per team, hour by hour, integrated exactly between events: between two
 * calls of {@link #advance} each team's running and asked GPUs are constant, and so is what it is owed.
 * Ranks teams by occupancy / owed over a sliding window, most under-served first.
 */
public final class FairShareLedger {
    private static final long HOUR = 3600;
    private final BudgetTree tree;
    private final long windowSeconds;
    private final Map<String, double[]> usedPerHour = new HashMap<>();
    private final Map<String, double[]> owedPerHour = new HashMap<>();
    private long last;
    private Map<String, Double> running = Map.of();
    private Map<String, Double> owedNow = Map.of();

    public FairShareLedger(BudgetTree tree, long windowSeconds) {
        this.tree = tree;
        this.windowSeconds = windowSeconds;
    }

    public BudgetTree tree() {
        return tree;
    }

    /**
     * Books [last, now) at the state set by the previous call, then sets the state from now on:
     * GPUs each team runs, GPUs its jobs ask for (running and waiting), and the capacity to share.
     */
    public void advance(long now, Map<String, Double> runningGpus, Map<String, Double> askedGpus, double capacity) {
        book(now);
        running = Map.copyOf(runningGpus);
        owedNow = Entitlements.owed(tree, capacity, askedGpus);
    }

    private void book(long now) {
        for (long a = last; a < now; ) {
            int hour = (int) (a / HOUR);
            long b = Math.min(now, (hour + 1) * HOUR);
            for (String team : tree.teams()) {
                add(usedPerHour, team, hour, running.getOrDefault(team, 0.0) * (b - a));
                add(owedPerHour, team, hour, owedNow.getOrDefault(team, 0.0) * (b - a));
            }
            a = b;
        }
        last = Math.max(last, now);
    }

    private static void add(Map<String, double[]> perHour, String team, int hour, double gpuSeconds) {
        double[] a = perHour.computeIfAbsent(team, k -> new double[64]);
        if (hour >= a.length) {
            a = Arrays.copyOf(a, Math.max(a.length * 2, hour + 1));
            perHour.put(team, a);
        }
        a[hour] += gpuSeconds;
    }

    /** GPUs each team is owed right now. */
    public Map<String, Double> owedNow() {
        return owedNow;
    }

    /** GPU-seconds each team held and was owed over the sliding window up to now (the hours it touches). */
    public Map<String, TeamUsage> windowUsage() {
        int to = (int) (last / HOUR);
        int from = (int) Math.max(0, (last - windowSeconds) / HOUR);
        Map<String, TeamUsage> out = new LinkedHashMap<>();
        for (String team : tree.teams()) out.put(team, new TeamUsage(sum(usedPerHour.get(team), from, to), sum(owedPerHour.get(team), from, to)));
        return out;
    }

    private static double sum(double[] a, int from, int to) {
        if (a == null) return 0;
        double s = 0;
        for (int h = from; h <= to && h < a.length; h++) s += a[h];
        return s;
    }

    /**
     * Owed GPU-hours delivered per team over the whole run, as Ai2 reports it: GPU-hours delivered
     * over GPU-hours owed (owed counted hour by hour: share capped at what the team asked for),
     * capped at 1. Teams never owed anything are left out.
     */
    public Map<String, Double> owedDelivered() {
        return delivered(false);
    }

    /**
     * The stricter hourly reading: each hour counts only up to what was owed that hour, so a team
     * over-served in one hour does not make up for another.
     */
    public Map<String, Double> owedDeliveredHourly() {
        return delivered(true);
    }

    private Map<String, Double> delivered(boolean hourly) {
        Map<String, Double> out = new LinkedHashMap<>();
        for (String team : tree.teams()) {
            double[] used = usedPerHour.get(team), owed = owedPerHour.get(team);
            if (owed == null) continue;
            double delivered = 0, total = 0;
            for (int h = 0; h < owed.length; h++) {
                double u = used == null || h >= used.length ? 0 : used[h];
                delivered += hourly ? Math.min(u, owed[h]) : u;
                total += owed[h];
            }
            if (total > 1e-9) out.put(team, Math.min(1, delivered / total));
        }
        return out;
    }

    /** Share of the GPU-time run that went beyond what its team was owed in that hour. */
    public double unallocatedShare() {
        double beyond = 0, used = 0;
        for (String team : tree.teams()) {
            double[] u = usedPerHour.get(team), o = owedPerHour.get(team);
            if (u == null) continue;
            for (int h = 0; h < u.length; h++) {
                used += u[h];
                beyond += Math.max(0, u[h] - (o == null || h >= o.length ? 0 : o[h]));
            }
        }
        return used < 1e-9 ? 0 : beyond / used;
    }
}
