package dev.horizon.bench;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.horizon.allocator.eta.Alternatives;
import dev.horizon.allocator.eta.Calibrator;
import dev.horizon.allocator.eta.ExpectedArrivals;
import dev.horizon.allocator.eta.StartBands;
import dev.horizon.allocator.model.Decision;
import dev.horizon.allocator.model.GpuNode;
import dev.horizon.allocator.model.Placement;
import dev.horizon.allocator.model.PlacementRules;
import dev.horizon.allocator.moment.ActiveJob;
import dev.horizon.allocator.moment.ClusterMoment;
import dev.horizon.allocator.moment.ContextBuilder;
import dev.horizon.allocator.moment.NodeState;
import dev.horizon.allocator.moment.Teams;
import dev.horizon.allocator.placement.Occupancy;
import dev.horizon.allocator.policy.HorizonPolicy;
import dev.horizon.api.Contract;
import dev.horizon.api.JobClass;
import dev.horizon.api.JobJson;
import dev.horizon.fairshare.BudgetTree;
import dev.horizon.forecast.DurationEstimator;
import dev.horizon.trace.ScenarioOptions;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAccumulator;
import java.util.concurrent.atomic.LongAdder;
import java.util.stream.IntStream;

/**
 * {@code ./horizon eta-cost}: what the control plane's work beside its planning loop costs on one moment of a given
 * size: the start-time bands of every waiting job (as the service computes them after each plan) and the alternatives
 * of one waiting job (as its explanation computes them on demand), beside one plan for scale. Half the cluster's nodes
 * are H100, half A100; half the GPUs are busy; a quarter of the waiting jobs accept one model only.
 */
final class EtaCostCommand {
    /** The teams the waiting and running jobs belong to; under --budgets on each is budgeted an equal share. */
    private static final int TEAMS = 8;
    static final String USAGE = "usage: ./horizon eta-cost --gpus G --jobs J [--samples S] [--threads T] [--beyond-hours H] [--budgets on|off] [--seed N]\n"
            + "                        [--coverage S/D,... [--trace-dir P]]\n"
            + "       (bands of J waiting jobs on G GPUs with S sampled futures, default " + StartBands.SAMPLES + ", T of them played at once, default 1, played\n"
            + "       on H hours past the horizon as the control plane does, default " + StartBands.BEYOND_HOURS + ", the jobs' " + TEAMS + " teams under equal budgets\n"
            + "       with --budgets on (fair share, as a budgeted cluster plans), and one job's alternatives; prints milliseconds\n"
            + "       (firstBandsMs: when a job without a band gets the first futures' one, as the control plane shows it; bandsMs includes\n"
            + "       the " + StartBands.QUEUE_ALONE_SAMPLES + " futures of the queue alone, which the queueAloneJobs left without a P90 are told of);\n"
            + "       --coverage: also how well bands of S futures come true on the bench's Philly windows, seed/trace-start-day\n"
            + "       each (./horizon bench --scenario philly --load " + BandCoverage.LOAD + " --policies horizon --eta on), pooled by banded jobs)";
    private static final Set<String> OPTIONS = Set.of("gpus", "jobs", "samples", "threads", "beyond-hours", "budgets", "seed", "coverage", "trace-dir");
    private static final long NOW = LatencyCommand.NOW;
    /** The bands are computed on the calling thread, so its CPU time is what they cost one core, whatever else the machine runs. */
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    /** Plans before measuring, so the figures are of compiled code as in a service that has run a while. */
    private static final int WARMUP = 20;
    /**
     * Futures played before measuring (no more than are measured), for the same reason: the futures' code is compiled while they play, and on a
     * machine of few cores the compiler takes the cores the futures played at once would use.
     */
    private static final int WARMUP_FUTURES = 4;
    private static final int[] SIZES = {1, 1, 2, 4, 8};
    private static final JobClass[] CLASSES = {JobClass.TRAINING, JobClass.BATCH_INFERENCE, JobClass.QUANTIZATION};

    private EtaCostCommand() {
    }

    static int run(List<String> args, PrintStream out, PrintStream err) {
        if (args.contains("--help")) {
            out.println(USAGE);
            return 0;
        }
        CliArgs a = new CliArgs("eta-cost", args, OPTIONS);
        Integer gpus = a.integer("gpus"), jobs = a.integer("jobs"), samples = a.integer("samples"), seed = a.integer("seed"), threadsAsked = a.integer("threads"),
                beyondAsked = a.integer("beyond-hours");
        if (gpus == null || jobs == null) throw new CliArgs.UsageException("eta-cost needs --gpus G and --jobs J (see ./horizon eta-cost --help)");
        if (gpus < 16 || jobs < 1) throw new CliArgs.UsageException("--gpus must be >= 16 (two 8-GPU nodes) and --jobs >= 1");
        int s = samples == null ? StartBands.SAMPLES : samples;
        if (s < 1) throw new CliArgs.UsageException("--samples must be >= 1");
        int threads = threadsAsked == null ? 1 : threadsAsked;
        if (threads < 1 || threads > s) throw new CliArgs.UsageException("--threads must be between 1 and --samples (" + s + ")");
        int beyondHours = beyondAsked == null ? StartBands.BEYOND_HOURS : beyondAsked;
        if (beyondHours < 0 || beyondHours > StartBands.MAX_BEYOND_HOURS) {
            throw new CliArgs.UsageException("--beyond-hours must be between 0 and " + StartBands.MAX_BEYOND_HOURS + ", as the control plane's horizon.eta.beyond-hours");
        }
        String budgetsAsked = a.get("budgets", "off");
        if (!List.of("on", "off").contains(budgetsAsked)) throw new CliArgs.UsageException("--budgets must be on or off (got '" + budgetsAsked + "')");
        boolean budgets = budgetsAsked.equals("on");
        if (a.has("trace-dir") && !a.has("coverage")) throw new CliArgs.UsageException("--trace-dir is for --coverage (where the Philly log is)");
        List<BandCoverage.Window> windows = a.has("coverage") ? BandCoverage.Window.parse(a.get("coverage", "")) : List.of();
        Path traceDir = Path.of(a.get("trace-dir", ScenarioOptions.DEFAULT_TRACE_DIR));
        if (!windows.isEmpty()) BandCoverage.requireTraces(traceDir);
        ClusterMoment m = moment(gpus, jobs, budgets, new Random(seed == null ? 1 : seed));
        int beyondSteps = StartBands.beyondSteps(beyondHours, m.stepSeconds());
        err.println("warming up (" + WARMUP + " plans) ...");
        for (int i = 0; i < WARMUP; i++) new HorizonPolicy().decide(ContextBuilder.build(m));
        long t0 = System.nanoTime();
        Decision d = new HorizonPolicy().decide(ContextBuilder.build(m));
        double planMs = (System.nanoTime() - t0) / 1e6;
        Set<String> waiting = new LinkedHashSet<>();
        m.jobs().stream().filter(j -> !j.isRunning()).forEach(j -> waiting.add(j.id()));
        d.starts().forEach(st -> waiting.remove(st.jobId()));
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        LongAdder futuresCpu = new LongAdder();
        LongAdder futuresPlayed = new LongAdder();
        LongAccumulator slowestFuture = new LongAccumulator(Math::max, 0);
        // each future's CPU time is counted on the thread that plays it, so the sum is what the bands cost whatever ran
        // beside; the slowest future's wall time bounds what playing them all at once can take
        Executor counted = r -> pool.execute(() -> {
            long c0 = THREADS.getCurrentThreadCpuTime(), w0 = System.nanoTime();
            try {
                r.run();
            } finally {
                long cpu = THREADS.getCurrentThreadCpuTime() - c0, wall = System.nanoTime() - w0;
                futuresCpu.add(cpu);
                slowestFuture.accumulate(wall);
                futuresPlayed.increment();
                err.printf("  future %d played in %.1f s (%.1f s of CPU)%n", futuresPlayed.sum(), wall / 1e9, cpu / 1e9);
            }
        });
        StartBands.Players players = new StartBands.Players(HorizonPolicy::new, counted, threads);
        ExpectedArrivals expected = new ExpectedArrivals(m.jobs().stream().filter(j -> !j.isRunning()).toList(), ExpectedArrivals.WINDOW_SECONDS);
        Map<String, StartBands.Band> bands;
        double bandsMs, bandsCpuMs, slowestFutureMs;
        AtomicLong firstBandsNanos = new AtomicLong(-1);
        try {
            int warmUp = Math.min(WARMUP_FUTURES, s);
            err.println("one plan in " + Math.round(planMs) + " ms; warming up (" + warmUp + " futures) ...");
            StartBands.computed(m, d, players, expected, waiting, warmUp, NOW + 1, beyondSteps);
            err.println("bands of " + waiting.size() + " waiting jobs, " + s + " sampled futures, " + threads + " at once, " + beyondHours + " h past the horizon ...");
            futuresCpu.reset();
            futuresPlayed.reset();
            slowestFuture.reset();
            t0 = System.nanoTime();
            long cpu0 = THREADS.getCurrentThreadCpuTime();
            // as the service computes them: with the futures' early arrivals (for the jobs that come before the next computation)
            // and the queue alone (what a job left without a P90 is told)
            long started = t0;
            bands = StartBands.computedWithQueueAlone(m, d, players, expected, waiting, s, NOW, beyondSteps,
                    first -> firstBandsNanos.set(System.nanoTime() - started)).bands();
            Calibrator calibrator = new Calibrator();
            bands.forEach((id, band) -> calibrator.shown(id, NOW, band));
            bandsMs = (System.nanoTime() - t0) / 1e6;
            bandsCpuMs = (THREADS.getCurrentThreadCpuTime() - cpu0 + futuresCpu.sum()) / 1e6;
            slowestFutureMs = slowestFuture.get() / 1e6;
        } finally {
            pool.shutdown();
        }
        // a job tied to one model that the plan starts later: the one whose alternatives a user would ask for
        String asked = waiting.stream().filter(id -> id.startsWith("one-model-") && d.plannedStarts().getOrDefault(id, NOW) > NOW).findFirst()
                .orElse(waiting.stream().findFirst().orElse(null));
        err.println("bands in " + Math.round(bandsMs) + " ms; alternatives of " + asked + " ...");
        t0 = System.nanoTime();
        List<Alternatives.Alternative> alternatives = asked == null ? List.of() : Alternatives.of(m, d, HorizonPolicy::new, asked);
        double alternativesMs = (System.nanoTime() - t0) / 1e6;
        ObjectNode n = JobJson.mapper().createObjectNode();
        n.put("gpus", gpus);
        n.put("jobs", jobs);
        n.put("waitingJobs", waiting.size());
        n.put("samples", s);
        n.put("threads", threads);
        n.put("beyondHours", beyondHours);
        n.put("budgets", budgets);
        n.put("planMs", Math.round(planMs));
        n.put("bandsMs", Math.round(bandsMs));
        n.put("bandsCpuMs", Math.round(bandsCpuMs));
        n.put("slowestFutureMs", Math.round(slowestFutureMs));
        // when a job that has no band gets the first futures' one (StartBands.computed); none when the first batch plays them all
        if (firstBandsNanos.get() >= 0) n.put("firstBandsMs", Math.round(firstBandsNanos.get() / 1e6));
        else n.putNull("firstBandsMs");
        // a cheaper computation that answers fewer jobs is not cheaper: how many got both ends of a band, past the horizon too
        n.put("jobsWithP50AndP90", bands.values().stream().filter(band -> band.projected(0.9) != null).count());
        n.put("queueAloneJobs", bands.values().stream().filter(band -> band.projected(0.9) == null).count());
        n.put("alternativesMs", Math.round(alternativesMs));
        n.put("alternativesFound", alternatives.size());
        n.put("alternativesOf", asked);
        if (!windows.isEmpty()) n.set("coverage", BandCoverage.json(BandCoverage.of(windows, s, traceDir, err)));
        out.println(n.toString());
        return 0;
    }

    /** Half H100 and half A100 nodes of 8, about half the GPUs running work, J jobs waiting; with budgets, its teams' equal shares. */
    static ClusterMoment moment(int gpus, int jobs, boolean budgets, Random rng) {
        List<NodeState> nodes = new ArrayList<>();
        for (int i = 0; i < gpus / 8; i++) {
            String model = i % 2 == 0 ? "H100-80GB" : "A100-80GB";
            nodes.add(NodeState.ready(new GpuNode("node-" + i, model, 8, 81_559, "d" + i / 8)));
        }
        Occupancy occupancy = new Occupancy(new dev.horizon.allocator.model.Cluster(nodes.stream().map(NodeState::node).toList()));
        List<ActiveJob> all = new ArrayList<>();
        for (int i = 0; occupancy.totalFree() > gpus / 2 && i < gpus; i++) {
            int g = SIZES[rng.nextInt(SIZES.length)];
            Placement p = occupancy.findBlock(g, null);
            if (p == null) break;
            occupancy.occupy(p);
            long start = NOW - rng.nextInt(4 * 3600);
            all.add(job("run-" + i, g, Set.of(), start - 60, new ActiveJob.Running(start, p, false), rng));
        }
        for (int i = 0; i < jobs; i++) {
            boolean oneModel = i % 4 == 0;
            all.add(job((oneModel ? "one-model-" : "job-") + i, SIZES[rng.nextInt(SIZES.length)], oneModel ? Set.of(i % 8 == 0 ? "H100-80GB" : "A100-80GB") : Set.of(),
                    NOW - rng.nextInt(7200), null, rng));
        }
        Teams teams = budgets ? new Teams(new BudgetTree(IntStream.range(0, TEAMS).mapToObj(t -> new BudgetTree.Budget("team-" + t, null, 1.0 / TEAMS)).toList()),
                Map.of()) : null;
        return new ClusterMoment(NOW, 900, LatencyCommand.HORIZON, nodes, all, teams, List.of(), new DurationEstimator());
    }

    private static ActiveJob job(String id, int gpus, Set<String> models, long arrival, ActiveJob.Running run, Random rng) {
        JobClass c = CLASSES[rng.nextInt(CLASSES.length)];
        return new ActiveJob(id, "team-" + rng.nextInt(TEAMS), c, 1 + rng.nextInt(4), gpus, gpus, arrival, 600L + rng.nextInt(8 * 3600),
                Contract.defaultFor(c), null, PlacementRules.ANY.withGpuTypes(models), null, run);
    }
}
