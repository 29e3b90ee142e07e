package dev.horizon.bench;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.horizon.allocator.Cluster;
import dev.horizon.allocator.Decision;
import dev.horizon.allocator.HorizonPolicy;
import dev.horizon.allocator.InferenceService;
import dev.horizon.allocator.Occupancy;
import dev.horizon.allocator.PendingJob;
import dev.horizon.allocator.Placement;
import dev.horizon.allocator.PlanningContext;
import dev.horizon.allocator.RunningJob;
import dev.horizon.allocator.cpsat.CpSatPlanner;
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
    static final String USAGE = "usage: ./horizon latency --gpus G --jobs J [--mode heuristic|cpsat] [--seed N] [--time-limit SECONDS]";
    private static final Set<String> OPTIONS = Set.of("gpus", "jobs", "mode", "seed", "time-limit");

    private LatencyCommand() {
    }

    static int run(List<String> args, PrintStream out, PrintStream err) {
        if (args.contains("--help")) {
            out.println(USAGE);
            return 0;
        }
        CliArgs a = new CliArgs("latency", args, OPTIONS);
        Integer gpus = a.integer("gpus"), jobs = a.integer("jobs");
        if (gpus == null || jobs == null) throw new CliArgs.UsageException("latency needs --gpus G and --jobs J (" + USAGE + ")");
        if (gpus < 1 || jobs < 0) throw new CliArgs.UsageException("--gpus must be >= 1 and --jobs >= 0");
        String mode = a.get("mode", "heuristic");
        if (!mode.equals("heuristic") && !mode.equals("cpsat")) throw new CliArgs.UsageException("--mode must be heuristic or cpsat (got '" + mode + "')");
        Integer seed = a.integer("seed");
        double timeLimit = a.number("time-limit", 2.0);
        boolean cpsat = mode.equals("cpsat");
        CpSatPlanner cpSat = cpsat ? new CpSatPlanner(timeLimit, 64) : null;
        HorizonPolicy policy = cpsat ? new HorizonPolicy("horizon-cpsat", 0.99, 8.0, cpSat) : new HorizonPolicy();
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
        long now = 36_000;
        int[] sizes = {1, 1, 2, 4, 8};
        double[] weights = {1, 2, 4, 8};
        JobClass[] classes = {JobClass.TRAINING, JobClass.BATCH_INFERENCE, JobClass.QUANTIZATION};
        List<RunningJob> running = new ArrayList<>();
        int busyTarget = gpus / 2;
        for (int i = 0; occupancy.totalFree() > gpus - busyTarget && i < gpus; i++) {
            int g = Math.min(sizes[rng.nextInt(sizes.length)], cluster.largestNode());
            Placement p = occupancy.findBlock(g);
            if (p == null) break;
            occupancy.occupy(p);
            JobClass c = classes[rng.nextInt(classes.length)];
            running.add(new RunningJob("run-" + i, "team-" + rng.nextInt(8), c, weights[rng.nextInt(4)], g, now - 3600, now - 1800,
                    now + 600 + rng.nextInt(8 * 3600), Contract.defaultFor(c), p, rng.nextInt(4) == 0 && Contract.defaultFor(c).resumable()));
        }
        List<PendingJob> pending = new ArrayList<>();
        for (int i = 0; i < jobs; i++) {
            JobClass c = classes[rng.nextInt(classes.length)];
            int g = Math.min(sizes[rng.nextInt(sizes.length)], gpus);
            pending.add(new PendingJob("job-" + i, "team-" + rng.nextInt(8), c, weights[rng.nextInt(4)], g, g,
                    now - rng.nextInt(7200), 600 + rng.nextInt(8 * 3600), Contract.defaultFor(c)));
        }
        int horizon = 96;
        double[] forecast = new double[horizon];
        for (int k = 0; k < horizon; k++) {
            double hour = (10 + k / 4.0) % 24;
            forecast[k] = 0.3 * gpus * (0.15 + 0.85 * Math.exp(-Math.pow((hour - 14) / 3.5, 2)));
        }
        int held = Math.min(occupancy.totalFree(), (int) Math.ceil(forecast[0]));
        Placement singles = occupancy.findSingles(held);
        if (singles != null) occupancy.occupy(singles);
        InferenceService svc = new InferenceService("serving", "serving", 4, Math.max(2, gpus / 8));
        return new PlanningContext(now, 900, horizon, cluster, occupancy, running, pending,
                Map.of("serving", new PlanningContext.ServiceView(svc, held, held, forecast, (int) Math.ceil(0.3 * gpus))));
    }
}
