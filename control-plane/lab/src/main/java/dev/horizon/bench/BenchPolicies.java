package dev.horizon.bench;

import dev.horizon.allocator.SchedulingPolicy;
import dev.horizon.allocator.cpsat.CpSatPlanner;
import dev.horizon.allocator.policy.FullModeHorizonPolicy;
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
    /** horizon-cpsat: CP-SAT's time limit, how many jobs (value order) enter its model, and how often it runs. */
    static final double CPSAT_SECONDS = 0.5;
    static final int CPSAT_MAX_JOBS = 64;
    static final long CPSAT_EVERY_SECONDS = 300;
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
        // the control plane's full mode: CP-SAT warm-started from the heuristic plan once every 300 s; measured apart
        POLICIES.put("horizon-cpsat", () -> new FullModeHorizonPolicy("horizon-cpsat", new CpSatPlanner(CPSAT_SECONDS, CPSAT_MAX_JOBS), CPSAT_EVERY_SECONDS));
        // CP-SAT on every decision: what the solver could add at most, at about 10x the decision time
        POLICIES.put("horizon-cpsat-every", () -> new HorizonPolicy("horizon-cpsat-every", new CpSatPlanner(CPSAT_SECONDS, CPSAT_MAX_JOBS)));
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
