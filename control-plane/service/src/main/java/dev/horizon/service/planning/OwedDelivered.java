package dev.horizon.service.planning;

import dev.horizon.service.fractional.JobGpus;
import dev.horizon.fairshare.BudgetTree;
import dev.horizon.fairshare.Entitlements;
import dev.horizon.service.jobs.JobRow;
import dev.horizon.service.jobs.JobStore;
import dev.horizon.service.teams.Team;
import dev.horizon.service.teams.TeamStore;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;

/**
 * Owed GPU-hours delivered per team over the last 7 days, from the jobs the store holds: between any two moments
 * where a job was submitted, started or ended, each team asks for its jobs' GPUs and runs its running jobs' GPUs;
 * what it is owed then is {@link Entitlements#owed} over the budget tree. Delivered is GPU-hours run over GPU-hours
 * owed, capped at 1, as the allocator's ledger reports it; a team owed nothing has no value. Recomputed after each
 * plan, so a restart loses nothing.
 */
@Singleton
public class OwedDelivered {
    @Inject
    MeterRegistry registry;
    @Inject
    TeamStore teams;
    @Inject
    JobStore jobs;

    private volatile Map<String, Double> delivered = Map.of();
    private final Map<String, Gauge> gauges = new HashMap<>();

    public Optional<Double> of(String team) {
        return Optional.ofNullable(delivered.get(team));
    }

    void refresh(long now, int clusterGpus) {
        List<Team> all = teams.all();
        delivered = compute(all, jobs.ranOrAskedSince(now - TeamWeights.WINDOW_SECONDS), now, clusterGpus);
        // a gauge per team, reading the latest map; a team owed nothing in the window reads NaN (no value) rather than a stale one
        synchronized (gauges) {
            for (Team t : all) {
                gauges.computeIfAbsent(t.name(), name -> Gauge.builder("horizon_owed_gpu_hours_delivered", this, o -> o.delivered.getOrDefault(name, Double.NaN))
                        .tag("team", name).description("GPU-hours run over GPU-hours owed by fair share, last 7 days, capped at 1").register(registry));
            }
        }
    }

    /** jobs: every job that asked for or ran on GPUs after now - 7 days; submittedAt in milliseconds, the rest in seconds. */
    static Map<String, Double> compute(List<Team> teams, List<JobRow> jobs, long now, double capacity) {
        BudgetTree tree = tree(teams);
        long from = now - TeamWeights.WINDOW_SECONDS;
        TreeSet<Long> cuts = new TreeSet<>(List.of(from, now));
        for (JobRow j : jobs) {
            cuts.add(clamp(j.submittedAt() / 1000, from, now));
            if (j.startedAt() != null) cuts.add(clamp(j.startedAt(), from, now));
            if (j.endedAt() != null) cuts.add(clamp(j.endedAt(), from, now));
        }
        Map<String, Double> used = new HashMap<>(), owed = new HashMap<>();
        Long a = null;
        for (long b : cuts) {
            if (a != null && b > a) {
                long mid = a;
                Map<String, Double> asked = new HashMap<>(), running = new HashMap<>();
                for (JobRow j : jobs) {
                    long end = j.endedAt() != null ? j.endedAt() : now;
                    if (j.submittedAt() / 1000 <= mid && mid < end) asked.merge(j.team(), JobGpus.of(j), Double::sum);
                    if (j.startedAt() != null && j.startedAt() <= mid && mid < end) running.merge(j.team(), JobGpus.of(j), Double::sum);
                }
                long seconds = b - a;
                Entitlements.owed(tree, capacity, asked).forEach((team, gpus) -> owed.merge(team, gpus * seconds, Double::sum));
                running.forEach((team, gpus) -> used.merge(team, gpus * seconds, Double::sum));
            }
            a = b;
        }
        Map<String, Double> out = new LinkedHashMap<>();
        for (String team : tree.teams()) {
            double o = owed.getOrDefault(team, 0.0);
            if (o > 1e-9) out.put(team, Math.min(1, used.getOrDefault(team, 0.0) / o));
        }
        return out;
    }

    private static long clamp(long t, long from, long to) {
        return Math.max(from, Math.min(to, t));
    }

    /**
     * The teams as the allocator's budget tree. The service allows a share of 0 and siblings whose shares add up to
     * more than 1, which the tree does not: a team with no share (and what is under it) is owed nothing, and
     * siblings are scaled to add up to 1, which leaves the water-filling unchanged since it splits by relative share.
     */
    static BudgetTree tree(List<Team> teams) {
        Map<String, List<Team>> children = new HashMap<>();
        for (Team t : teams) children.computeIfAbsent(t.parent() == null ? BudgetTree.ROOT : t.parent(), k -> new ArrayList<>()).add(t);
        List<BudgetTree.Budget> budgets = new ArrayList<>();
        addChildren(BudgetTree.ROOT, children, budgets);
        return new BudgetTree(budgets);
    }

    private static void addChildren(String parent, Map<String, List<Team>> children, List<BudgetTree.Budget> out) {
        List<Team> kids = children.getOrDefault(parent, List.of()).stream().filter(t -> t.share() > 0).toList();
        double sum = kids.stream().mapToDouble(Team::share).sum();
        for (Team t : kids) {
            out.add(new BudgetTree.Budget(t.name(), BudgetTree.ROOT.equals(parent) ? null : parent, sum > 1 ? t.share() / sum : t.share()));
            addChildren(t.name(), children, out);
        }
    }
}
