package dev.horizon.bench;

import dev.horizon.allocator.SchedulingPolicy;
import dev.horizon.allocator.cpsat.CpSatPlanner;
import dev.horizon.allocator.policy.HorizonPolicy;
import dev.horizon.allocator.policy.PooledHorizonPolicy;
import dev.horizon.baseline.BackfillPolicy;
import dev.horizon.baseline.FifoPolicy;
import dev.horizon.baseline.KaiPolicy;
import dev.horizon.baseline.KueuePolicy;
import dev.horizon.baseline.LegacyPriorityPolicy;
import dev.horizon.baseline.PriorityPreemptionPolicy;
import dev.horizon.baseline.SlurmPolicy;
import dev.horizon.baseline.StaticQuotaPolicy;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/** The policies `--policies` names, each made fresh for a run (several keep state across one run's decisions). */
public final class BenchPolicies {
    /** horizon-cpsat's time limit per decision and how many jobs (value order) enter its model. */
    static final double CPSAT_SECONDS = 0.5;
    static final int CPSAT_MAX_JOBS = 64;
    private static final Map<String, Supplier<SchedulingPolicy>> POLICIES = new LinkedHashMap<>();

    static {
        POLICIES.put("fifo", FifoPolicy::new);
        POLICIES.put("backfill", BackfillPolicy::new);
        POLICIES.put("priority", PriorityPreemptionPolicy::new);
        POLICIES.put("legacy", LegacyPriorityPolicy::new);
        POLICIES.put("quota", StaticQuotaPolicy::new);
        POLICIES.put("kai", KaiPolicy::new);
        POLICIES.put("kueue", KueuePolicy::new);
        POLICIES.put("slurm", SlurmPolicy::new);
        POLICIES.put("horizon", HorizonPolicy::new);
        // CP-SAT warm-started from the heuristic plan on every decision; measured apart, too slow for the default list
        POLICIES.put("horizon-cpsat", () -> new HorizonPolicy("horizon-cpsat", 0.99, 8.0, new CpSatPlanner(CPSAT_SECONDS, CPSAT_MAX_JOBS)));
        POLICIES.put("horizon-pooled", () -> new PooledHorizonPolicy(2));
    }

    /** Every name, in the order reports list them. */
    public static final List<String> NAMES = List.copyOf(POLICIES.keySet());

    private BenchPolicies() {
    }

    public static boolean exists(String name) {
        return POLICIES.containsKey(name);
    }

    public static SchedulingPolicy create(String name) {
        Supplier<SchedulingPolicy> s = POLICIES.get(name);
        if (s == null) throw new IllegalArgumentException("unknown policy '" + name + "'; use any of " + NAMES);
        return s.get();
    }
}
