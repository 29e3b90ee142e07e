package dev.horizon.bench;

import dev.horizon.experiment.openb.OpenbBenchCommand;
import java.io.IOException;
import java.io.PrintStream;
import java.util.Arrays;
import java.util.List;

/** Entry point of the allocator's commands: bench, simulate and latency. Errors end with one clear line and a non-zero exit. */
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
            err.println("usage: horizon-allocator bench|simulate|latency [--help]");
            return 2;
        }
        List<String> rest = Arrays.asList(args).subList(1, args.length);
        try {
            return switch (args[0]) {
                case "bench" -> isOpenb(rest) ? OpenbBenchCommand.run(rest, out, err) : BenchCommand.run(rest, out, err);
                case "latency" -> LatencyCommand.run(rest, out, err);
                case "simulate" -> SimulateCommand.run(rest, out, err);
                default -> {
                    err.println("horizon: unknown command '" + args[0] + "'; run ./horizon help");
                    yield 2;
                }
            };
        } catch (CliArgs.UsageException | IllegalArgumentException e) {
            err.println("horizon " + args[0] + ": " + e.getMessage());
            return 2;
        } catch (IOException e) {
            err.println("horizon " + args[0] + ": " + e.getMessage());
            return 1;
        }
    }
}
