package dev.horizon.bench;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.horizon.allocator.policy.HorizonPolicy;
import dev.horizon.allocator.SchedulingPolicy;
import dev.horizon.api.JobJson;
import dev.horizon.baseline.BackfillPolicy;
import dev.horizon.baseline.FifoPolicy;
import dev.horizon.baseline.LegacyPriorityPolicy;
import dev.horizon.baseline.StaticQuotaPolicy;
import dev.horizon.baseline.PriorityPreemptionPolicy;
import dev.horizon.bound.FluidUpperBound;
import dev.horizon.simulation.PolicyMetrics;
import dev.horizon.simulation.Scenario;
import dev.horizon.simulation.SimResult;
import dev.horizon.simulation.Simulator;
import dev.horizon.trace.ScenarioOptions;
import dev.horizon.trace.Scenarios;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

/** `./horizon bench`: runs every policy on one scenario and writes results.json, schedule.csv, rt.csv and report.html. */
public final class BenchCommand {
    static final String USAGE = """
            usage: ./horizon bench --scenario S --out DIR [--seed N] [--gpus N] [--days D] [--load F]
                                   [--rt-peak-share F] [--trace-start-day K] [--trace-dir P]
                                   [--policies fifo,backfill,priority,legacy,quota,horizon] [--teams N] [--budgets FILE]
              S: training-heavy | mixed | philly | fairshare | path of a scenario file
              fairshare: [--teams N] [--budgets FILE.yaml]; policies fifo,legacy,quota,horizon by default
              philly reads the Philly log and the GenAI request trace from --trace-dir (default ../shared/traces)""";
    static final Set<String> OPTIONS = Set.of("scenario", "out", "seed", "gpus", "days", "load", "rt-peak-share",
            "trace-start-day", "trace-dir", "policies", "teams", "budgets");
    static final Map<String, Supplier<SchedulingPolicy>> POLICIES = new LinkedHashMap<>();

    static {
        POLICIES.put("fifo", FifoPolicy::new);
        POLICIES.put("backfill", BackfillPolicy::new);
        POLICIES.put("priority", PriorityPreemptionPolicy::new);
        POLICIES.put("legacy", LegacyPriorityPolicy::new);
        POLICIES.put("quota", StaticQuotaPolicy::new);
        POLICIES.put("horizon", HorizonPolicy::new);
    }

    private BenchCommand() {
    }

    /** The results of one bench run, as written to results.json. */
    public record Outcome(Scenario scenario, FluidUpperBound.Bound bound, Map<String, SimResult> results) {
    }

    static int run(List<String> args, PrintStream out, PrintStream err) throws IOException {
        if (args.contains("--help")) {
            out.println(USAGE);
            return 0;
        }
        CliArgs a = new CliArgs("bench", args, OPTIONS);
        if (!a.has("scenario") || !a.has("out")) throw new CliArgs.UsageException("bench needs --scenario S and --out DIR (see ./horizon bench --help)");
        boolean fairShare = "fairshare".equals(a.get("scenario", ""));
        String defaults = fairShare ? "fifo,legacy,quota,horizon" : "fifo,backfill,priority,horizon";
        List<String> policies = List.of(a.get("policies", defaults).split(","));
        for (String p : policies) {
            if (!POLICIES.containsKey(p)) throw new CliArgs.UsageException("--policies: unknown policy '" + p + "'; use any of " + POLICIES.keySet());
        }
        Outcome outcome = bench(a.get("scenario", null), options(a), policies, err);
        Path dir = Path.of(a.get("out", null));
        Files.createDirectories(dir);
        ResultsWriter.write(outcome, dir);
        printTable(outcome, out);
        out.println("wrote " + dir.resolve("results.json") + ", schedule.csv, rt.csv, report.html");
        return 0;
    }

    static ScenarioOptions options(CliArgs a) {
        Integer seed = a.integer("seed");
        Integer day = a.integer("trace-start-day");
        boolean fairShare = "fairshare".equals(a.get("scenario", ""));
        return new ScenarioOptions(seed == null ? 1 : seed, a.integer("gpus"), a.integer("days"), a.number("load", fairShare ? 2.5 : 1.5),
                a.number("rt-peak-share", 0.4), day == null ? 0 : day, Path.of(a.get("trace-dir", "../shared/traces")),
                a.integer("teams"), a.has("budgets") ? Path.of(a.get("budgets", null)) : null);
    }

    /** Builds the scenario, computes the upper bound and simulates each policy, showing progress on {@code err}. */
    public static Outcome bench(String scenarioName, ScenarioOptions options, List<String> policies, PrintStream err) throws IOException {
        Progress progress = new Progress(err);
        Scenario scenario = Scenarios.build(scenarioName, options);
        err.println(scenario.jobs().size() + " jobs, " + scenario.cluster().totalGpus() + " GPUs, " + scenario.windowSteps() + " steps; solving the fluid upper bound ...");
        FluidUpperBound.Bound bound = FluidUpperBound.of(scenario);
        Map<String, SimResult> results = new LinkedHashMap<>();
        for (String name : policies) {
            SchedulingPolicy policy = POLICIES.get(name).get();
            progress.reset();
            results.put(name, new Simulator(scenario, policy).run(f -> progress.show(name, f)));
        }
        return new Outcome(scenario, bound, results);
    }

    static void printTable(Outcome o, PrintStream out) {
        out.printf("%-10s %11s %10s %8s %8s %9s %11s %9s %9s%n", "policy", "utilization", "output", "rtSLO", "done", "preempt",
                "wait p50 s", "p95 s", "lat p99ms");
        out.printf("%-10s %11.3f %10.1f %8s %8s %9s %11s %9s %9s%n", "bound", o.bound().utilization(), o.bound().priorityWeightedOutput(),
                "1.000", "-", "-", "-", "-", "-");
        SimResult fifo = o.results().get("fifo");
        for (SimResult r : o.results().values()) {
            PolicyMetrics m = r.metrics();
            out.printf("%-10s %11.3f %10.1f %8.3f %8d %9d %11.0f %9.0f %9.2f%n", r.policy(), m.utilization(), m.priorityWeightedOutput(),
                    m.rtSloAttainment(), m.jobsCompleted(), m.preemptions(), m.waitSeconds().p50(), m.waitSeconds().p95(), m.decisionLatencyMs().p99());
        }
        List<String> ratios = new ArrayList<>();
        for (SimResult r : o.results().values()) {
            String line = String.format("%s: output %.2fx of bound", r.policy(), r.metrics().priorityWeightedOutput() / o.bound().priorityWeightedOutput());
            if (fifo != null && r != fifo) {
                line += String.format(", %.2fx FIFO's; utilization %+.1f points vs FIFO", r.metrics().priorityWeightedOutput() / fifo.metrics().priorityWeightedOutput(),
                        100 * (r.metrics().utilization() - fifo.metrics().utilization()));
            }
            ratios.add(line);
        }
        ratios.forEach(out::println);
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
