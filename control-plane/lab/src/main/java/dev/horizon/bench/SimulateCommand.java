package dev.horizon.bench;

import dev.horizon.bound.FluidUpperBound;
import dev.horizon.simulation.Scenario;
import dev.horizon.simulation.SimResult;
import dev.horizon.simulation.Simulator;
import dev.horizon.trace.Scenarios;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * `./horizon simulate`: one policy on one scenario, with its metrics beside the upper bound and,
 * for the jobs still waiting when the window ends, why ("why is my job pending?").
 */
final class SimulateCommand {
    static final String USAGE = """
            usage: ./horizon simulate --scenario S [--policy horizon] [--explain N] [--out DIR]
                                      [any scenario option of ./horizon bench: --seed --gpus --days --load ...]
              prints the policy's metrics and why each of the first N jobs still waiting at the end waits""";

    private SimulateCommand() {
    }

    static int run(List<String> args, PrintStream out, PrintStream err) throws IOException {
        if (args.contains("--help")) {
            out.println(USAGE);
            return 0;
        }
        CliArgs a = new CliArgs("simulate", args, BenchCommand.scenarioOptionsAnd("policy", "explain"));
        if (!a.has("scenario")) throw new CliArgs.UsageException("simulate needs --scenario S (see ./horizon simulate --help)");
        String policy = a.get("policy", "horizon");
        if (!BenchPolicies.exists(policy)) {
            throw new CliArgs.UsageException("--policy: unknown policy '" + policy + "'; use one of " + BenchPolicies.NAMES);
        }
        Integer explain = a.integer("explain");
        Scenario scenario = Scenarios.build(a.get("scenario", null), BenchCommand.options(a));
        Progress progress = new Progress(err);
        long reclaimSeconds = BenchCommand.reclaimSeconds(a);
        SimResult result = new Simulator(scenario, BenchPolicies.create(policy), reclaimSeconds).run(f -> progress.show(policy, f));
        BenchCommand.Outcome outcome = new BenchCommand.Outcome(scenario, FluidUpperBound.of(scenario), Map.of(policy, result), reclaimSeconds);
        BenchCommand.printTable(outcome, out);
        Map<String, String> waiting = result.waitingReasons();
        out.println(waiting.size() + " jobs still waiting at the end of the window" + (waiting.isEmpty() ? "." : "; why:"));
        waiting.entrySet().stream().limit(explain == null ? 10 : explain)
                .forEach(e -> out.println("  " + e.getKey() + ": " + e.getValue()));
        if (a.has("out")) {
            Path dir = Path.of(a.get("out", null));
            Files.createDirectories(dir);
            ResultsWriter.write(outcome, dir);
            out.println("wrote " + dir.resolve("results.json") + ", schedule.csv, rt.csv, report.html");
        }
        return BenchCommand.auditVerdict(outcome, err);
    }
}
