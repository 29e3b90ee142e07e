package dev.horizon.experiment.openb;

import dev.horizon.allocator.fragmentation.TargetWorkload;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.horizon.api.JobJson;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * `./horizon bench --scenario openb --pods FILE --nodes FILE --out DIR [--seed N] [--seeds K]`: FGD's experiment on an
 * Alibaba openb pod list for Horizon and the baselines Random, BestFit, GpuPacking and FGD. With --seeds K the curves
 * are averaged over seeds N..N+K-1. Writes results.json and prints each policy's unallocated share beside FGD's.
 */
public final class OpenbBenchCommand {
    static final String USAGE = """
            usage: ./horizon bench --scenario openb --pods FILE --nodes FILE --out DIR [--seed N] [--seeds K]
                                   [--policies horizon,fgd,bestfit,gpupacking,random]
              replays the openb pod list (shuffled with the seed, sampled to 130% of the cluster's GPUs, no departures)
              and reports the GPU allocation ratio every 10% of arrived demand; --seeds K averages seeds N..N+K-1""";
    static final Map<String, PolicyFactory> POLICIES = new LinkedHashMap<>();

    static {
        POLICIES.put("horizon", HorizonFragPolicy::new);
        POLICIES.put("fgd", (pods, nodes) -> new FgdPolicy(TargetWorkload.fgd(pods)));
        POLICIES.put("bestfit", (pods, nodes) -> new BestFitPolicy());
        POLICIES.put("gpupacking", (pods, nodes) -> new GpuPackingPolicy());
        POLICIES.put("random", (pods, nodes) -> new RandomPolicy());
    }

    private OpenbBenchCommand() {
    }

    /** Runs the command; usage errors are IllegalArgumentException with one line for the caller to print (exit 2). */
    public static int run(List<String> args, PrintStream out, PrintStream err) throws IOException {
        if (args.contains("--help")) {
            out.println(USAGE);
            return 0;
        }
        Map<String, String> opts = options(args);
        for (String required : List.of("pods", "nodes", "out")) {
            if (!opts.containsKey(required)) throw new IllegalArgumentException("openb needs --pods FILE --nodes FILE --out DIR (see ./horizon bench --help)");
        }
        long seed = whole(opts, "seed", 42);
        int seeds = (int) whole(opts, "seeds", 1);
        if (seeds < 1) throw new IllegalArgumentException("--seeds must be at least 1 (got " + seeds + ")");
        List<String> names = List.of(opts.getOrDefault("policies", String.join(",", POLICIES.keySet())).split(","));
        for (String n : names) {
            if (!POLICIES.containsKey(n)) throw new IllegalArgumentException("unknown policy '" + n + "'; known: " + String.join(",", POLICIES.keySet()));
        }
        OpenbExperiment experiment = new OpenbExperiment(OpenbTrace.readNodes(Path.of(opts.get("nodes"))),
                OpenbTrace.readPods(Path.of(opts.get("pods"))));
        Map<String, double[]> curves = new LinkedHashMap<>();
        int done = 0;
        for (String name : names) {
            double[] mean = new double[OpenbExperiment.MAX_ARRIVAL_PCT + 1];
            for (int s = 0; s < seeds; s++) {
                double[] c = experiment.run(POLICIES.get(name), seed + s);
                for (int i = 0; i < mean.length; i++) mean[i] += c[i] / seeds;
                err.printf("openb %-10s seed %d  (%d/%d runs)%n", name, seed + s, ++done, names.size() * seeds);
            }
            curves.put(name, mean);
        }
        Path dir = Path.of(opts.get("out"));
        Files.createDirectories(dir);
        JobJson.mapper().writerWithDefaultPrettyPrinter().writeValue(dir.resolve("results.json").toFile(), results(curves));
        printTable(curves, out);
        return 0;
    }

    static ObjectNode results(Map<String, double[]> curves) {
        ObjectNode root = JobJson.mapper().createObjectNode();
        ObjectNode policies = root.putObject("policies");
        curves.forEach((name, c) -> {
            ObjectNode p = policies.putObject(name);
            ObjectNode byArrival = p.putObject("allocationRatioByArrival");
            for (int pct = 10; pct <= OpenbExperiment.MAX_ARRIVAL_PCT; pct += 10) byArrival.put(Integer.toString(pct), round(c[pct]));
            ObjectNode unallocated = p.putObject("unallocatedGpuSharePct");
            unallocated.put("100", round(100 - c[100]));
            unallocated.put("130", round(100 - c[130]));
        });
        return root;
    }

    private static void printTable(Map<String, double[]> curves, PrintStream out) {
        double[] fgd = curves.get("fgd");
        out.println("policy      unalloc@100  unalloc@130   vs FGD@100  vs FGD@130   (unallocated GPU share, % of capacity)");
        curves.forEach((name, c) -> out.printf("%-11s %10.2f%% %11.2f%% %12s %11s%n", name, 100 - c[100], 100 - c[130],
                fgd == null ? "-" : String.format("%.2fx", (100 - c[100]) / (100 - fgd[100])),
                fgd == null ? "-" : String.format("%.2fx", (100 - c[130]) / (100 - fgd[130]))));
    }

    private static double round(double v) {
        return Math.round(v * 100) / 100.0;
    }

    private static Map<String, String> options(List<String> args) {
        Map<String, String> opts = new LinkedHashMap<>();
        List<String> known = List.of("scenario", "pods", "nodes", "out", "seed", "seeds", "policies");
        for (int i = 0; i < args.size(); i += 2) {
            String a = args.get(i);
            if (!a.startsWith("--") || !known.contains(a.substring(2))) {
                throw new IllegalArgumentException("openb: unknown option '" + a + "'; known: --" + String.join(", --", known));
            }
            if (i + 1 >= args.size()) throw new IllegalArgumentException("openb: option " + a + " needs a value");
            opts.put(a.substring(2), args.get(i + 1));
        }
        return opts;
    }

    private static long whole(Map<String, String> opts, String name, long fallback) {
        String v = opts.get(name);
        if (v == null) return fallback;
        try {
            return Long.parseLong(v);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--" + name + " must be a whole number (got '" + v + "')");
        }
    }
}
