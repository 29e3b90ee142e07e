package dev.horizon.bench;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.horizon.allocator.SchedulingPolicy;
import dev.horizon.allocator.policy.PooledHorizonPolicy;
import dev.horizon.api.JobJson;
import dev.horizon.bound.FluidUpperBound;
import dev.horizon.allocator.eta.StartBands;
import dev.horizon.simulation.EtaCalibration;
import dev.horizon.simulation.PolicyMetrics;
import dev.horizon.simulation.Scenario;
import dev.horizon.simulation.SimResult;
import dev.horizon.simulation.Simulator;
import dev.horizon.trace.DemoDayScenario;
import dev.horizon.trace.ScenarioOptions;
import dev.horizon.trace.Scenarios;
import dev.horizon.trace.WideGangsScenario;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** `./horizon bench`: runs every policy on one scenario and writes results.json, schedule.csv, rt.csv and report.html. */
public final class BenchCommand {
    static final String USAGE = """
            usage: ./horizon bench --scenario S --out DIR [--seed N] [--gpus N] [--days D] [--load F]
                                   [--rt-peak-share F] [--reclaim-seconds S] [--trace-start-day K] [--trace-dir P]
                                   [--policies fifo,backfill,priority,kai,kueue,slurm,horizon] [--teams N] [--budgets FILE] [--eta on|off]
                                   [--eta-samples N] [--age-doubling-hours H]
                                   [--engine simulator|service] [--db-url jdbc:postgresql://...] [--slo-target T]
                                   [--seeds A..B]
              S: training-heavy | mixed | philly | fairshare | wide-gangs | demo-day | path of a scenario file
              demo-day: the day ./horizon demo replays (--seed N; its cluster, MIG layouts, teams and budgets are fixed): node-h100
                     8 x H100, node-a100 8 x A100 with GPU 6 as 2 x 3g.40gb and GPU 7 as 7 x 1g.10gb; policies fifo,kai,kueue,slurm,horizon
              wide-gangs: 128 GPUs (H100 and A100 halves, NVLink domains of 4 nodes), wide gangs; --rt-peak-share 0.3 by default
              fairshare: [--teams N] [--budgets FILE.yaml]; policies fifo,legacy,quota,kai,kueue,slurm,horizon by default
              --age-doubling-hours H: a scenario with budgets (fairshare, demo-day, --budgets) ages waiting work as a control
                     plane with horizon.planner.age-doubling-hours=H does: each H hours a job waits doubles the priority its
                     team's budget ranks it by, up to its team's most urgent work (Horizon's rule; 0: off, the default
                     but on demo-day, whose cluster ages every 12 h as the demo's does)
              philly reads the Philly log and the GenAI request trace from --trace-dir (default ../shared/traces)
              inference is scored per minute; a GPU taken back from batch work serves after --reclaim-seconds (30)
              --eta on: also compute each waiting job's start-time band (P50/P90) at its first step, as the service would, and
                     report how well they came true (results.json "eta" per policy that plans ahead, eta.csv; several times slower)
              --eta-samples N: the futures each band is read from (by default as many as the control plane's horizon.eta.samples)
              --slo-target T (0.99): before the window each policy's inference knob (the target utilization and
                     stabilization of the HPA sizing its services: the same 24 settings for kai, kueue, slurm and horizon)
                     is set on the day before the window only, to the cheapest setting that met T there; the headline
                     compares those runs, the untuned ones (horizon with its own burst sizing) follow (simulator engine);
                     off: every policy as configured, one table
              --seeds A..B: the window of --seed run once per jitter seed, every arrival moved by up to 10 min either way
                     (jitter seed 0: as it is); each run's ratios, then every ratio's mean and 95% interval (results.json
                     ratios.interval95; the other files and tables are of the first run)
              every run is audited against the cluster's rules; any violation fails the bench (exit 1) after writing results
              also: horizon-cpsat (the control plane's full mode: CP-SAT warm-started from the heuristic plan, 0.5 s, once
              every 300 s), horizon-cpsat-every (CP-SAT on every decision), horizon-pooled (node pools planned apart)
              --engine service replays the scenario through the control plane's planning code and store (H2 in a temp dir,
              or PostgreSQL with --db-url) instead of calling the allocator; it runs horizon only""";
    static final Set<String> OPTIONS = Set.of("scenario", "out", "seed", "gpus", "days", "load", "rt-peak-share",
            "trace-start-day", "trace-dir", "policies", "teams", "budgets", "reclaim-seconds", "eta", "engine", "db-url",
            "slo-target", "seeds", "eta-samples", "age-doubling-hours");

    /** The options of a command that runs one policy on a scenario: bench's, less --policies, and its own. */
    static Set<String> scenarioOptionsAnd(String... own) {
        Set<String> options = new HashSet<>(OPTIONS);
        options.remove("policies");
        options.addAll(List.of(own));
        return options;
    }

    private BenchCommand() {
    }

    /**
     * The results of one bench run, as written to results.json; results: each policy at the service level sloTarget (its
     * inference knob as calibrated, knobs; a policy without one as it is); untuned: each policy with its default knob;
     * engine: what made Horizon's decisions; eta: each policy's start-time band calibration, where it produces bands.
     */
    public record Outcome(Scenario scenario, FluidUpperBound.Bound bound, Map<String, SimResult> results, long reclaimSeconds, String engine,
                          Map<String, EtaCalibration.Report> eta, double sloTarget, Map<String, SloCalibration.Choice> knobs,
                          Map<String, SimResult> untuned) {
        /** On the simulator, without start-time or service-level calibration. */
        public Outcome(Scenario scenario, FluidUpperBound.Bound bound, Map<String, SimResult> results, long reclaimSeconds) {
            this(scenario, bound, results, reclaimSeconds, Engine.SIMULATOR.name(), Map.of(), SloCalibration.DEFAULT_TARGET, Map.of(), results);
        }
    }

    static int run(List<String> args, PrintStream out, PrintStream err) throws IOException {
        return run(args, out, err, Engine.SIMULATOR);
    }

    /** The bench with Horizon's decisions made by engine; any engine but the simulator runs horizon only. */
    public static int run(List<String> args, PrintStream out, PrintStream err, Engine engine) throws IOException {
        if (args.contains("--help")) {
            out.println(USAGE);
            return 0;
        }
        CliArgs a = new CliArgs("bench", args, OPTIONS);
        if (!a.has("scenario") || !a.has("out")) throw new CliArgs.UsageException("bench needs --scenario S and --out DIR (see ./horizon bench --help)");
        String asked = a.get("engine", Engine.SIMULATOR.name());
        if (!asked.equals(engine.name())) {
            throw new CliArgs.UsageException("--engine must be simulator or service (got '" + asked + "'); the launcher starts the service engine"
                    + " from the control plane: ./horizon bench ... --engine service");
        }
        if (a.has("db-url") && engine == Engine.SIMULATOR) throw new CliArgs.UsageException("--db-url is for --engine service (the store it replays through)");
        String scenarioName = a.get("scenario", "");
        boolean simulator = engine == Engine.SIMULATOR;
        String defaults = !simulator ? "horizon" : switch (scenarioName) {
            case "fairshare" -> "fifo,legacy,quota,kai,kueue,slurm,horizon";
            case DemoDayScenario.NAME -> "fifo,kai,kueue,slurm,horizon";
            default -> "fifo,backfill,priority,kai,kueue,slurm,horizon";
        };
        List<String> policies = List.of(a.get("policies", defaults).split(","));
        for (String p : policies) {
            if (!BenchPolicies.exists(p)) throw new CliArgs.UsageException("--policies: unknown policy '" + p + "'; use any of " + BenchPolicies.NAMES);
            if (!simulator && !p.equals("horizon")) {
                throw new CliArgs.UsageException("--policies: the " + engine.name() + " engine runs horizon only; run '" + p + "' with --engine simulator");
            }
        }
        List<Long> seeds = Repeats.seeds(a);
        List<Outcome> runs = new ArrayList<>();
        for (long jitter : seeds == null ? List.of(0L) : seeds) {
            runs.add(bench(a.get("scenario", null), options(a), policies, reclaimSeconds(a), engine, etaSamples(a), sloTarget(a), jitter, err));
        }
        Outcome outcome = runs.get(0);
        ObjectNode intervals = seeds == null ? null : Repeats.intervals(runs);
        Path dir = Path.of(a.get("out", null));
        Files.createDirectories(dir);
        ResultsWriter.write(outcome, dir, intervals);
        printTable(outcome, out);
        if (seeds != null) Repeats.print(seeds, runs, intervals, out);
        out.println("wrote " + dir.resolve("results.json") + ", schedule.csv, rt.csv, report.html");
        int verdict = 0;
        for (Outcome o : runs) verdict = Math.max(verdict, auditVerdict(o, err));
        return verdict;
    }

    /** The futures each start-time band is read from (--eta-samples), or 0 with --eta off: no bands. */
    static int etaSamples(CliArgs a) {
        String v = a.get("eta", "off");
        if (!v.equals("on") && !v.equals("off")) throw new CliArgs.UsageException("--eta must be on or off (got '" + v + "')");
        if (a.has("eta-samples") && v.equals("off")) throw new CliArgs.UsageException("--eta-samples is for --eta on (the futures each band is read from)");
        Integer asked = a.integer("eta-samples");
        int samples = asked == null ? StartBands.SAMPLES : asked;
        if (samples < 1 || samples > 1000) throw new CliArgs.UsageException("--eta-samples must be between 1 and 1000 (got " + samples + "); the default is " + StartBands.SAMPLES);
        return v.equals("on") ? samples : 0;
    }

    /** The --slo-target, or NaN for off (every policy as configured, one table). */
    static double sloTarget(CliArgs a) {
        if ("off".equals(a.get("slo-target", ""))) return Double.NaN;
        double t = a.number("slo-target", SloCalibration.DEFAULT_TARGET);
        if (!(t > 0 && t <= 1)) throw new CliArgs.UsageException("--slo-target must be in (0, 1] or off (got " + t + "); 0.99 means 99% of service-minutes met");
        return t;
    }

    static long reclaimSeconds(CliArgs a) {
        Integer s = a.integer("reclaim-seconds");
        if (s != null && s < 0) throw new CliArgs.UsageException("--reclaim-seconds must be >= 0 (got " + s + ")");
        return s == null ? Simulator.DEFAULT_RECLAIM_SECONDS : s;
    }

    /** 0 when every run kept the cluster's rules; else one line naming each policy's violations, and 1. */
    static int auditVerdict(Outcome o, PrintStream err) {
        List<String> broken = new ArrayList<>();
        o.results().forEach((name, r) -> {
            if (!r.audit().clean()) broken.add(name + " " + r.audit().violations() + " " + new java.util.TreeMap<>(r.audit().byKind()));
        });
        if (broken.isEmpty()) return 0;
        err.println("bench: audit failed: " + String.join("; ", broken) + " (results.json lists the first cases under audit.examples)");
        return 1;
    }

    static ScenarioOptions options(CliArgs a) {
        Integer seed = a.integer("seed");
        Integer day = a.integer("trace-start-day");
        boolean fairShare = "fairshare".equals(a.get("scenario", ""));
        return new ScenarioOptions(seed == null ? 1 : seed, a.integer("gpus"), a.integer("days"), a.number("load", fairShare ? 2.5 : 1.5),
                a.number("rt-peak-share", WideGangsScenario.NAME.equals(a.get("scenario", "")) ? WideGangsScenario.DEFAULT_RT_PEAK_SHARE : ScenarioOptions.DEFAULT_RT_PEAK_SHARE), day == null ? 0 : day, Path.of(a.get("trace-dir", ScenarioOptions.DEFAULT_TRACE_DIR)),
                a.integer("teams"), a.has("budgets") ? Path.of(a.get("budgets", null)) : null, a.integer("age-doubling-hours"));
    }

    /** Builds the scenario, computes the upper bound and simulates each policy, showing progress on {@code err}. */
    public static Outcome bench(String scenarioName, ScenarioOptions options, List<String> policies, PrintStream err) throws IOException {
        return bench(scenarioName, options, policies, Simulator.DEFAULT_RECLAIM_SECONDS, Engine.SIMULATOR, 0, SloCalibration.DEFAULT_TARGET, 0, err);
    }

    /**
     * Horizon's decisions made by engine; etaSamples: also compute and hold to account the start-time bands, each read
     * from that many futures (beside the run: the schedule is the same either way; 0: none); sloTarget: the service level each policy's inference knob is calibrated to on
     * the day before the window (simulator engine; the service engine runs Horizon as the control plane is configured);
     * jitterSeed: moves the window's arrivals a little ({@link Repeats}; 0: as they are).
     */
    public static Outcome bench(String scenarioName, ScenarioOptions options, List<String> policies, long reclaimSeconds, Engine engine, int etaSamples,
                                double sloTarget, long jitterSeed, PrintStream err) throws IOException {
        Scenario scenario = Scenarios.build(scenarioName, options).withArrivalJitter(jitterSeed, Repeats.ARRIVAL_JITTER_SECONDS);
        err.println(scenario.jobs().size() + " jobs, " + scenario.cluster().totalGpus() + " GPUs, " + scenario.windowSteps() + " steps; solving the fluid upper bound ...");
        FluidUpperBound.Bound bound = FluidUpperBound.of(scenario);
        Map<String, SimResult> results = new LinkedHashMap<>(), untuned = new LinkedHashMap<>();
        Map<String, EtaCalibration.Report> bands = new LinkedHashMap<>();
        Map<String, SloCalibration.Choice> knobs = new LinkedHashMap<>();
        Progress progress = new Progress(err);
        for (String name : policies) {
            SloCalibration.Choice knob = engine == Engine.SIMULATOR && !Double.isNaN(sloTarget) ? SloCalibration.calibrate(scenario, name, sloTarget) : null;
            SchedulingPolicy policy = knob != null ? knob.knob().create() : name.equals("horizon") ? engine.horizon(scenario) : BenchPolicies.create(name);
            if (knob != null) knobs.put(name, knob);
            SchedulingPolicy bandPlanner = etaSamples > 0 ? BenchPolicies.create(name) : null;
            EtaCalibration calibration = etaSamples > 0 ? new EtaCalibration(bandPlanner, etaSamples, scenario.priorArrivals()) : null;
            progress.reset();
            Simulator simulator = new Simulator(scenario, policy, reclaimSeconds);
            if (calibration != null) simulator.observedBy(calibration);
            results.put(name, simulator.run(f -> progress.show(name, f)));
            EtaCalibration.Report report = calibration == null ? null : calibration.report(scenario.windowSeconds());
            if (report != null) bands.put(name, report);
            for (SchedulingPolicy p : java.util.Arrays.asList(policy, bandPlanner)) if (p instanceof PooledHorizonPolicy pooled) pooled.close();
            if (knob == null || knob.knob().isDefault()) {
                untuned.put(name, results.get(name));
                continue;
            }
            progress.reset();
            untuned.put(name, new Simulator(scenario, BenchPolicies.create(name), reclaimSeconds).run(f -> progress.show(name + " untuned", f)));
        }
        return new Outcome(scenario, bound, results, reclaimSeconds, engine.name(), bands, sloTarget, knobs, untuned);
    }

    /** The policies by priority-weighted output, highest first. */
    static List<SimResult> byOutput(Outcome o) {
        return byOutput(o.results());
    }

    static List<SimResult> byOutput(Map<String, SimResult> results) {
        List<SimResult> sorted = new ArrayList<>(results.values());
        sorted.sort(java.util.Comparator.comparingDouble((SimResult r) -> -r.metrics().priorityWeightedOutput()).thenComparing(SimResult::policy));
        return sorted;
    }

    /** The baseline (any policy but Horizon's) with the highest output, or null when none ran. */
    static String bestBaseline(Outcome o) {
        return bestBaseline(o.results());
    }

    static String bestBaseline(Map<String, SimResult> results) {
        return byOutput(results).stream().map(SimResult::policy).filter(p -> !p.startsWith("horizon")).findFirst().orElse(null);
    }

    /**
     * The headline table (each policy at the equal service level, when knobs were calibrated) with the knob each policy
     * ran with, then the untuned comparison.
     */
    static void printTable(Outcome o, PrintStream out) {
        boolean calibrated = !o.knobs().isEmpty();
        if (calibrated) {
            out.printf("at equal service level: each inference knob set on the day before the window to the cheapest setting whose per-minute SLO"
                    + " there was >= %.3f%n", o.sloTarget());
        }
        printTable(o, o.results(), out);
        o.knobs().forEach((name, c) -> out.printf("%s: inference knob %s; day before: rtSLO %.4f%s, %.1f GPU-h held (of %d settings)%n", name,
                c.knob().json(), c.dayBeforeRtSloAttainment(), c.metTarget() ? "" : " (no setting met the target: the closest)", c.dayBeforeGpuHours(),
                c.settingsTried()));
        PeerRatios equal = PeerRatios.of(o.results(), o.bound().priorityWeightedOutput());
        if (calibrated && equal != null) {
            out.printf("equal SLO: horizon %.3fx the best peer (%s), %.3f of the bound; no policy can pass %.3fx %s here (the bound over it)%n",
                    equal.horizonOverBestPeer(), equal.bestPeer(), equal.horizonOverBound(), equal.boundOverBestPeer(), equal.bestPeer());
        }
        o.eta().forEach((name, e) -> out.printf("%s start-time bands: %d jobs, coverage P50 %.3f, P90 %.3f, median |start - P50| %.0f s (median wait %.0f s);"
                + " %d bursts: a calibrated band meets P50 here with odds %.2f, P90 %.2f; bands read off work like it before a job's own: %d jobs,"
                + " coverage P50 %.3f, P90 %.3f%n",
                name, e.jobs(), e.coverageP50(), e.coverageP90(), e.medianAbsErrorSeconds(), e.medianWaitSeconds(), e.bursts(), e.calibratedP50().within(),
                e.calibratedP90().within(), e.like().jobs(), e.like().coverageP50(), e.like().coverageP90()));
        if (calibrated) {
            out.println();
            out.println("untuned (every inference knob at its default):");
            printTable(o, o.untuned(), out);
        }
    }

    private static void printTable(Outcome o, Map<String, SimResult> results, PrintStream out) {
        out.printf("%-20s %11s %10s %7s %8s %6s %8s %8s %10s %10s %9s %6s %9s%n", "policy", "utilization", "output", "ofBound", "rtSLO/min",
                "done", "preempt", "lostGpuH", "wide p50 s", "wide p95 s", "wait p95", "audit", "lat p99ms");
        out.printf("%-20s %11.3f %10.1f %7.3f %8s %6s %8s %8s %10s %10s %9s %6s %9s%n", "bound", o.bound().utilization(),
                o.bound().priorityWeightedOutput(), 1.0, "1.000", "-", "-", "-", "-", "-", "-", "-", "-");
        String best = bestBaseline(results);
        for (SimResult r : byOutput(results)) {
            PolicyMetrics m = r.metrics();
            out.printf("%-20s %11.3f %10.1f %7.3f %8.4f %6d %8d %8.1f %10.0f %10.0f %9.0f %6d %9.2f%n", r.policy() + (r.policy().equals(best) ? "*" : ""),
                    m.utilization(), m.priorityWeightedOutput(), m.priorityWeightedOutput() / o.bound().priorityWeightedOutput(), m.rtSloAttainment(),
                    m.jobsCompleted(), m.preemptions(), m.lostGpuHours(), m.wideJobWaitSeconds().p50(), m.wideJobWaitSeconds().p95(),
                    m.waitSeconds().p95(), r.audit().violations(), m.decisionLatencyMs().p99());
        }
        SimResult horizon = results.get("horizon");
        if (best != null) out.println("* best baseline: " + best);
        if (horizon != null && best != null) {
            PolicyMetrics h = horizon.metrics(), b = results.get(best).metrics();
            out.printf("horizon: output %.3fx of the best baseline (%s), %.3f of the bound; rtSLO per minute %.4f vs %.4f%n",
                    h.priorityWeightedOutput() / b.priorityWeightedOutput(), best, h.priorityWeightedOutput() / o.bound().priorityWeightedOutput(),
                    h.rtSloAttainment(), b.rtSloAttainment());
        }
    }

    static ObjectNode metricsJson(PolicyMetrics m) {
        ObjectNode n = JobJson.mapper().createObjectNode();
        n.put("utilization", m.utilization());
        n.put("priorityWeightedOutput", m.priorityWeightedOutput());
        n.put("rtSloAttainment", m.rtSloAttainment());
        n.put("jobsCompleted", m.jobsCompleted());
        n.put("jobsStarted", m.jobsStarted());
        n.put("jobsArrived", m.jobsArrived());
        n.put("preemptions", m.preemptions());
        n.put("lostGpuHours", m.lostGpuHours());
        n.put("occupancy", m.occupancy());
        ObjectNode wide = percentiles(m.wideJobWaitSeconds(), false);
        wide.put("jobs", m.wideJobs());
        wide.put("minGpus", PolicyMetrics.WIDE_JOB_GPUS);
        n.set("wideJobWaitSeconds", wide);
        ObjectNode waits = percentiles(m.waitSeconds(), false);
        ObjectNode byClass = waits.putObject("byClass");
        m.waitSecondsByClass().forEach((k, v) -> byClass.set(k, percentiles(v, false)));
        n.set("waitSeconds", waits);
        n.set("decisionLatencyMs", percentiles(m.decisionLatencyMs(), true));
        if (m.fairShare() != null) {
            ObjectNode owed = n.putObject("owedGpuHoursDelivered");
            owed.put("min", m.fairShare().worstTeam());
            ObjectNode perTeam = owed.putObject("perTeam");
            m.fairShare().owedGpuHoursDelivered().forEach(perTeam::put);
            n.put("unallocatedShare", m.fairShare().unallocatedShare());
        }
        return n;
    }

    private static ObjectNode percentiles(PolicyMetrics.Percentiles p, boolean latency) {
        ObjectNode n = JobJson.mapper().createObjectNode();
        n.put("p50", p.p50());
        if (latency) {
            n.put("p99", p.p99());
        } else {
            n.put("p90", p.p90());
            n.put("p95", p.p95());
        }
        return n;
    }
}
