package dev.horizon.bench;

import dev.horizon.experiment.openb.OpenbBenchCommand;
import java.io.IOException;
import java.io.PrintStream;
import java.util.Arrays;
import java.util.List;

/** Entry point of the allocator's commands: bench, simulate, latency, eta-cost and bands-at. Errors end with one clear line and a non-zero exit. */
public final class HorizonCli {
    private HorizonCli() {
    }

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    /** FGD's openb experiment has its own options and results (issue 4), so it has its own command. */
    private static boolean isOpenb(List<String> rest) {
        int i = rest.indexOf("--scenario");
        return i >= 0 && i + 1 < rest.size() && rest.get(i + 1).equals("openb");
    }

    static int run(String[] args, PrintStream out, PrintStream err) {
        if (args.length == 0) {
            err.println("usage: horizon-lab bench|simulate|latency|eta-cost|bands-at [--help]");
            return 2;
        }
        List<String> rest = Arrays.asList(args).subList(1, args.length);
        return guarded(args[0], err, () -> switch (args[0]) {
            case "bench" -> isOpenb(rest) ? OpenbBenchCommand.run(rest, out, err) : BenchCommand.run(rest, out, err);
            case "latency" -> LatencyCommand.run(rest, out, err);
            case "eta-cost" -> EtaCostCommand.run(rest, out, err);
            case "bands-at" -> BandsAtCommand.run(rest, out, err);
            case "simulate" -> SimulateCommand.run(rest, out, err);
            default -> {
                err.println("horizon: unknown command '" + args[0] + "'; run ./horizon help");
                yield 2;
            }
        });
    }

    /** {@code bench} with Horizon's decisions made by engine (the control plane's replay), with the same errors and exit codes. */
    public static int bench(List<String> args, PrintStream out, PrintStream err, Engine engine) {
        return guarded("bench", err, () -> BenchCommand.run(args, out, err, engine));
    }

    private interface Command {
        int run() throws IOException;
    }

    private static int guarded(String name, PrintStream err, Command command) {
        try {
            return command.run();
        } catch (CliArgs.UsageException | IllegalArgumentException e) {
            err.println("horizon " + name + ": " + e.getMessage());
            return 2;
        } catch (IOException e) {
            err.println("horizon " + name + ": " + e.getMessage());
            return 1;
        }
    }
}
