package dev.horizon.bench;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.horizon.allocator.PlanningContext;
import dev.horizon.allocator.cpsat.CpSatPlanner;
import dev.horizon.allocator.model.Cluster;
import dev.horizon.allocator.model.Decision;
import dev.horizon.allocator.model.InferenceService;
import dev.horizon.allocator.model.PendingJob;
import dev.horizon.allocator.model.Placement;
import dev.horizon.allocator.model.RunningJob;
import dev.horizon.allocator.placement.Occupancy;
import dev.horizon.allocator.policy.HorizonPolicy;
import dev.horizon.api.Contract;
import dev.horizon.api.JobClass;
import dev.horizon.api.JobJson;
import dev.horizon.simulation.PolicyMetrics;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

/**
 * `./horizon latency`: how long one planning decision takes on a loaded cluster of G GPUs with J
 * waiting jobs (half the GPUs busy with running work, one inference service following a daily curve).
 */
public final class LatencyCommand {
    static final String USAGE = "usage: ./horizon latency --gpus G --jobs J [--mode heuristic|cpsat] [--seed N] [--time-limit SECONDS]\n"
            + "       [--pools K [--cross-pool F] [--threads T] [--repeat N]]   (K node pools of one GPU model each, planned apart in\n"
            + "       parallel where independent, beside the joint plan; F: share of jobs that accept the models of a pair of pools,\n"
            + "       0-1, 2-3 ..., which ties each pair into one group)";
    private static final Set<String> OPTIONS = Set.of("gpus", "jobs", "mode", "seed", "time-limit", "pools", "cross-pool", "threads", "repeat");

    private LatencyCommand() {
    }

    static int run(List<String> args, PrintStream out, PrintStream err) {
        if (args.contains("--help")) {
            out.println(USAGE);
            return 0;
        }
        CliArgs a = new CliArgs("latency", args, OPTIONS);
        Integer gpus = a.integer("gpus"), jobs = a.integer("jobs");
        if (gpus == null || jobs == null) throw new CliArgs.UsageException("latency needs --gpus G and --jobs J (see ./horizon latency --help)");
        if (gpus < 1 || jobs < 0) throw new CliArgs.UsageException("--gpus must be >= 1 and --jobs >= 0");
        String mode = a.get("mode", "heuristic");
        if (!mode.equals("heuristic") && !mode.equals("cpsat")) throw new CliArgs.UsageException("--mode must be heuristic or cpsat (got '" + mode + "')");
        Integer seed = a.integer("seed");
        double timeLimit = a.number("time-limit", 2.0);
        if (a.has("pools")) return PooledLatency.run(a, gpus, jobs, mode, seed == null ? 1 : seed, timeLimit, out, err);
        boolean cpsat = mode.equals("cpsat");
        CpSatPlanner cpSat = cpsat ? new CpSatPlanner(timeLimit, 64) : null;
        HorizonPolicy policy = cpsat ? new HorizonPolicy("horizon-cpsat", cpSat) : new HorizonPolicy();
        int warmup = cpsat ? 1 : 100, measured = cpsat ? 5 : 300;
        Random rng = new Random(seed == null ? 1 : seed);
        double[] latencies = new double[measured];
        double hint = 0, best = 0;
        int improved = 0;
        for (int i = 0; i < warmup + measured; i++) {
            PlanningContext ctx = context(gpus, jobs, rng);
            long t0 = System.nanoTime();
            Decision d = policy.decide(ctx);
            double ms = (System.nanoTime() - t0) / 1e6;
            if (i >= warmup) {
                latencies[i - warmup] = ms;
                if (cpsat) {
                    hint += cpSat.lastStats().hintObjective();
                    best += cpSat.lastStats().objective();
                    if (cpSat.lastStats().improved()) improved++;
                }
            }
            if (d.starts().isEmpty() && jobs > 0 && i == 0) err.println("note: the first plan started no job");
            if (i == warmup - 1) err.println("warmed up; measuring " + measured + " decisions ...");
        }
        PolicyMetrics.Percentiles p = PolicyMetrics.Percentiles.of(latencies);
        ObjectNode n = JobJson.mapper().createObjectNode();
        n.put("gpus", gpus);
        n.put("pendingJobs", jobs);
        n.put("mode", mode);
        ObjectNode lat = n.putObject("decisionLatencyMs");
        lat.put("p50", round(p.p50()));
        lat.put("p99", round(p.p99()));
        if (cpsat) {
            n.put("timeLimitSeconds", timeLimit);
            n.put("heuristicObjective", round(hint / measured));
            n.put("cpsatObjective", round(best / measured));
            n.put("improvementPct", round(hint == 0 ? 0 : 100 * (best - hint) / hint));
            n.put("plansImproved", improved);
            n.put("plans", measured);
        }
        out.println(n.toString());
        return 0;
    }

    private static double round(double v) {
        return Math.round(v * 1000) / 1000.0;
    }

    /** A random but realistic moment: half the cluster busy, J jobs waiting, inference on its daily curve. */
    static PlanningContext context(int gpus, int jobs, Random rng) {
        Cluster cluster = Cluster.homogeneous(gpus, 8, "H100-80GB", 81_559);
        Occupancy occupancy = new Occupancy(cluster);
        List<RunningJob> running = new ArrayList<>();
        occupyHalf(occupancy, null, gpus, "run-", running, rng);
        List<PendingJob> pending = new ArrayList<>();
        for (int i = 0; i < jobs; i++) pending.add(pendingJob("job-" + i, gpus, rng));
        double[] forecast = dailyCurve(0.3 * gpus);
        int held = Math.min(occupancy.totalFree(), (int) Math.ceil(forecast[0]));
        Placement singles = occupancy.findSingles(held);
        if (singles != null) occupancy.occupy(singles);
        return new PlanningContext(NOW, 900, HORIZON, cluster, occupancy, running, pending,
                Map.of("serving", serviceView("serving", held, forecast, gpus)));
    }

    static final long NOW = 36_000;
    static final int HORIZON = 96;
    private static final int[] SIZES = {1, 1, 2, 4, 8};
    private static final double[] WEIGHTS = {1, 2, 4, 8};
    private static final JobClass[] CLASSES = {JobClass.TRAINING, JobClass.BATCH_INFERENCE, JobClass.QUANTIZATION};

    /** Starts random running jobs on the allowed nodes (null: all) until about half of {@code gpus} is busy. */
    static void occupyHalf(Occupancy occupancy, boolean[] allowed, int gpus, String prefix, List<RunningJob> running, Random rng) {
        int freeAtStart = free(occupancy, allowed);
        for (int i = 0; free(occupancy, allowed) > freeAtStart - gpus / 2 && i < gpus; i++) {
            int g = Math.min(SIZES[rng.nextInt(SIZES.length)], occupancy.cluster().largestNode());
            Placement p = occupancy.findBlock(g, allowed);
            if (p == null) break;
            occupancy.occupy(p);
            JobClass c = CLASSES[rng.nextInt(CLASSES.length)];
            running.add(new RunningJob(prefix + i, "team-" + rng.nextInt(8), c, WEIGHTS[rng.nextInt(4)], g, NOW - 3600, NOW - 1800,
                    NOW + 600 + rng.nextInt(8 * 3600), Contract.defaultFor(c), p, rng.nextInt(4) == 0 && Contract.defaultFor(c).resumable()));
        }
    }

    private static int free(Occupancy occupancy, boolean[] allowed) {
        int free = 0;
        for (int n = 0; n < occupancy.cluster().nodes().size(); n++) if (allowed == null || allowed[n]) free += occupancy.freeOn(n);
        return free;
    }

    /** A waiting job of 1 to 8 GPUs (at most {@code maxGpus}), of a random class, weight and team. */
    static PendingJob pendingJob(String id, int maxGpus, Random rng) {
        JobClass c = CLASSES[rng.nextInt(CLASSES.length)];
        int g = Math.min(SIZES[rng.nextInt(SIZES.length)], maxGpus);
        return PendingJob.builder().id(id).team("team-" + rng.nextInt(8)).jobClass(c).weight(WEIGHTS[rng.nextInt(4)]).gpus(g)
                .arrivalSeconds(NOW - rng.nextInt(7200)).estimatedRemainingSeconds(600 + rng.nextInt(8 * 3600)).contract(Contract.defaultFor(c)).build();
    }

    /** GPUs needed per step over the horizon, from 10:00, peaking at {@code peak} at 14:00. */
    static double[] dailyCurve(double peak) {
        double[] forecast = new double[HORIZON];
        for (int k = 0; k < HORIZON; k++) {
            double hour = (10 + k / 4.0) % 24;
            forecast[k] = peak * (0.15 + 0.85 * Math.exp(-Math.pow((hour - 14) / 3.5, 2)));
        }
        return forecast;
    }

    static PlanningContext.ServiceView serviceView(String name, int held, double[] forecast, int gpus) {
        InferenceService svc = new InferenceService(name, "serving", 4, Math.max(2, gpus / 8));
        return new PlanningContext.ServiceView(svc, held, held, forecast, (int) Math.ceil(0.3 * gpus));
    }
}
