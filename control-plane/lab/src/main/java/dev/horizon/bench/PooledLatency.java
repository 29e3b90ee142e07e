package dev.horizon.bench;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.horizon.allocator.PlanningContext;
import dev.horizon.allocator.SchedulingPolicy;
import dev.horizon.allocator.cpsat.CpSatPlanner;
import dev.horizon.allocator.model.Cluster;
import dev.horizon.allocator.model.Decision;
import dev.horizon.allocator.model.GpuNode;
import dev.horizon.allocator.model.PendingJob;
import dev.horizon.allocator.model.Placement;
import dev.horizon.allocator.model.PlacementRules;
import dev.horizon.allocator.model.RunningJob;
import dev.horizon.allocator.placement.Occupancy;
import dev.horizon.allocator.policy.HorizonPolicy;
import dev.horizon.allocator.pool.PoolConstraints;
import dev.horizon.allocator.pool.PooledPlanner;
import dev.horizon.api.JobJson;
import dev.horizon.simulation.PolicyMetrics;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.function.Supplier;

/**
 * `./horizon latency --pools K`: one decision on a cluster of K node pools (one GPU model each, the
 * GPUs split evenly), each half busy and with its own inference service, and J waiting jobs that
 * each accept one model (a share F of them both models of a pair of pools, 0-1, 2-3 and so on,
 * which ties that pair together). Times the joint plan (every pool as one cluster, the way the control plane plans today)
 * and the pooled plan ({@link PooledPlanner}) on the same moments, and prints both with the ratio.
 */
final class PooledLatency {
    private static final String[] MODELS = {"H100-80GB", "A100-80GB", "H200-141GB", "L40S-48GB", "B200-180GB", "A100-40GB", "L4-24GB",
        "H100-94GB"};

    /** A moment to plan and which models each job and service accepts. */
    record Moment(PlanningContext ctx, PoolConstraints constraints) {
        /** The same moment with its own occupancy, since a decision changes the occupancy it is given. */
        PlanningContext fresh() {
            return new PlanningContext(ctx.now(), ctx.stepSeconds(), ctx.horizonSteps(), ctx.cluster(), ctx.occupancy().copy(), ctx.running(),
                    ctx.pending(), ctx.services(), ctx.fairShare());
        }
    }

    private PooledLatency() {
    }

    static int run(CliArgs a, int gpus, int jobs, String mode, int seed, double timeLimit, PrintStream out, PrintStream err) {
        int pools = a.integer("pools");
        double crossPool = a.number("cross-pool", 0);
        Integer threadsArg = a.integer("threads"), repeatArg = a.integer("repeat");
        int threads = threadsArg == null ? Runtime.getRuntime().availableProcessors() : threadsArg;
        int repeat = repeatArg == null ? 3 : repeatArg;
        if (pools < 1 || pools > gpus) throw new CliArgs.UsageException("--pools must be from 1 to --gpus (got " + pools + ")");
        if (!(crossPool >= 0 && crossPool <= 1)) throw new CliArgs.UsageException("--cross-pool must be from 0 to 1 (got " + crossPool + ")");
        if (threads < 1) throw new CliArgs.UsageException("--threads must be at least 1 (got " + threads + ")");
        if (repeat < 1) throw new CliArgs.UsageException("--repeat must be at least 1 (got " + repeat + ")");
        Supplier<SchedulingPolicy> policies = mode.equals("cpsat")
                ? () -> new HorizonPolicy("horizon-cpsat", new CpSatPlanner(timeLimit, 64))
                : HorizonPolicy::new;
        Random rng = new Random(seed);
        // one unmeasured round first, so the JIT has compiled the planner before either side is timed
        int rounds = repeat + 1;
        double[] joint = new double[repeat], pooled = new double[repeat], groupsSum = new double[repeat];
        Map<String, double[]> perGroup = new LinkedHashMap<>();
        Map<String, int[]> groupSize = new LinkedHashMap<>();
        int groups = 0, offModel = 0, jointStarts = 0, pooledStarts = 0;
        try (PooledPlanner planner = new PooledPlanner(policies, threads)) {
            for (int i = 0; i < rounds; i++) {
                err.println("round " + (i + 1) + " of " + rounds + (i == 0 ? " (warm-up)" : "") + ": building " + gpus + " GPUs in " + pools
                        + " pools with " + jobs + " waiting jobs ...");
                Moment m = moment(gpus, jobs, pools, crossPool, rng);
                PlanningContext jointCtx = m.fresh();
                long t0 = System.nanoTime();
                Decision jd = policies.get().decide(jointCtx);
                double jointMs = (System.nanoTime() - t0) / 1e6;
                PooledPlanner.Result pr = planner.decide(m.fresh(), m.constraints());
                err.printf("  joint plan %.1f ms, pooled plan %.1f ms over %d groups on %d threads%n", jointMs, pr.totalMillis(),
                        pr.groups().size(), threads);
                if (i == 0) continue;
                int k = i - 1;
                joint[k] = jointMs;
                pooled[k] = pr.totalMillis();
                groups = pr.groups().size();
                jointStarts += jd.starts().size();
                pooledStarts += pr.decision().starts().size();
                offModel += offModel(m, jd);
                for (PooledPlanner.GroupTiming g : pr.groups()) {
                    String key = String.join("+", g.models());
                    perGroup.computeIfAbsent(key, x -> new double[repeat])[k] = g.millis();
                    groupSize.put(key, new int[] {g.gpus(), g.pendingJobs()});
                    groupsSum[k] += g.millis();
                }
            }
        }
        PolicyMetrics.Percentiles jp = PolicyMetrics.Percentiles.of(joint), pp = PolicyMetrics.Percentiles.of(pooled);
        ObjectNode n = JobJson.mapper().createObjectNode();
        n.put("gpus", gpus);
        n.put("pendingJobs", jobs);
        n.put("mode", mode);
        n.put("pools", pools);
        n.put("crossPool", crossPool);
        n.put("groups", groups);
        n.put("threads", threads);
        n.put("decisions", repeat);
        latency(n.putObject("jointDecisionMs"), jp);
        latency(n.putObject("pooledDecisionMs"), pp);
        latency(n.putObject("pooledGroupsSumMs"), PolicyMetrics.Percentiles.of(groupsSum));
        n.put("speedup", round(jp.p50() / pp.p50()));
        n.put("jointStartsPerDecision", round((double) jointStarts / repeat));
        n.put("pooledStartsPerDecision", round((double) pooledStarts / repeat));
        n.put("jointStartsOnModelsTheJobRefuses", round((double) offModel / repeat));
        ArrayNode list = n.putArray("perGroup");
        perGroup.forEach((key, ms) -> {
            ObjectNode g = list.addObject();
            g.put("models", key);
            g.put("gpus", groupSize.get(key)[0]);
            g.put("pendingJobs", groupSize.get(key)[1]);
            latency(g.putObject("decisionMs"), PolicyMetrics.Percentiles.of(ms));
            err.printf("group %-24s %6d GPUs %6d jobs  p50 %.1f ms%n", key, groupSize.get(key)[0], groupSize.get(key)[1],
                    PolicyMetrics.Percentiles.of(ms).p50());
        });
        err.printf("joint p50 %.1f ms, pooled p50 %.1f ms: %.2fx faster%n", jp.p50(), pp.p50(), jp.p50() / pp.p50());
        out.println(n.toString());
        return 0;
    }

    private static void latency(ObjectNode n, PolicyMetrics.Percentiles p) {
        n.put("p50", round(p.p50()));
        n.put("p99", round(p.p99()));
    }

    private static double round(double v) {
        return Math.round(v * 1000) / 1000.0;
    }

    /** Starts of the joint plan on a node whose model the job does not accept (the planners honour gpuTypes: none expected). */
    private static int offModel(Moment m, Decision joint) {
        int count = 0;
        for (Decision.Start s : joint.starts()) {
            Set<String> accepted = m.constraints().jobModels().getOrDefault(s.jobId(), Set.of());
            if (accepted.isEmpty()) continue;
            for (Placement.Slice slice : s.placement().slices()) {
                if (!accepted.contains(m.ctx().cluster().nodes().get(slice.node()).gpuModel())) {
                    count++;
                    break;
                }
            }
        }
        return count;
    }

    static String model(int pool) {
        return pool < MODELS.length ? MODELS[pool] : MODELS[pool % MODELS.length] + "-pool" + pool;
    }

    /** K pools of about G/K GPUs, 8 to a node; each pool half busy and with its own inference service; J jobs spread over the pools. */
    static Moment moment(int gpus, int jobs, int pools, double crossPool, Random rng) {
        List<GpuNode> nodes = new ArrayList<>();
        int[] poolGpus = new int[pools];
        List<List<Integer>> poolNodes = new ArrayList<>();
        for (int p = 0; p < pools; p++) {
            poolGpus[p] = gpus / pools + (p < gpus % pools ? 1 : 0);
            List<Integer> members = new ArrayList<>();
            for (int left = poolGpus[p]; left > 0; left -= 8) {
                members.add(nodes.size());
                nodes.add(new GpuNode("node-" + nodes.size(), model(p), Math.min(8, left), 81_559, "nvl-" + nodes.size()));
            }
            poolNodes.add(members);
        }
        Cluster cluster = new Cluster(nodes);
        Occupancy occupancy = new Occupancy(cluster);
        List<RunningJob> running = new ArrayList<>();
        Map<String, PlanningContext.ServiceView> services = new LinkedHashMap<>();
        Map<String, Set<String>> serviceModels = new LinkedHashMap<>();
        for (int p = 0; p < pools; p++) {
            boolean[] allowed = new boolean[nodes.size()];
            for (int n : poolNodes.get(p)) allowed[n] = true;
            LatencyCommand.occupyHalf(occupancy, allowed, poolGpus[p], "run-" + p + "-", running, rng);
            double[] forecast = LatencyCommand.dailyCurve(0.3 * poolGpus[p]);
            int held = 0;
            // the service's replicas sit on its own pool's GPUs, one GPU each
            for (Placement one; held < Math.ceil(forecast[0]) && (one = occupancy.findBlock(1, allowed)) != null; held++) occupancy.occupy(one);
            String name = "serving-" + model(p);
            services.put(name, LatencyCommand.serviceView(name, held, forecast, poolGpus[p]));
            serviceModels.put(name, Set.of(model(p)));
        }
        List<PendingJob> pending = new ArrayList<>();
        Map<String, Set<String>> jobModels = new LinkedHashMap<>();
        for (int i = 0; i < jobs; i++) {
            int p = rng.nextInt(pools);
            // pools pair up (0-1, 2-3, ...) like two models of one family; a job accepting both ties the pair
            int q = p ^ 1;
            boolean two = q < pools && rng.nextDouble() < crossPool;
            Set<String> models = two ? Set.of(model(p), model(q)) : Set.of(model(p));
            PendingJob j = LatencyCommand.pendingJob("job-" + i, two ? Math.min(poolGpus[p], poolGpus[q]) : poolGpus[p], rng)
                    .withRules(PlacementRules.ANY.withGpuTypes(models));
            pending.add(j);
            jobModels.put(j.id(), models);
        }
        return new Moment(new PlanningContext(LatencyCommand.NOW, 900, LatencyCommand.HORIZON, cluster, occupancy, running, pending, services),
                new PoolConstraints(jobModels, serviceModels));
    }
}
