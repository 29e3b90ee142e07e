package dev.horizon.bench;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.horizon.api.JobJson;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.ToDoubleFunction;

/**
 * `--seeds A..B`: the same window run once per jitter seed (every arrival moved a little, {@link
 * dev.horizon.simulation.Scenario#withArrivalJitter}), and every ratio's mean and 95% interval over the runs, so a
 * margin one preemption can flip shows as one.
 */
final class Repeats {
    /** How far a repeat may move each arrival, either way. */
    static final long ARRIVAL_JITTER_SECONDS = 600;
    private static final int MOST_SEEDS = 50;

    private Repeats() {
    }

    /** The seeds of "A..B" (a single "A" is one seed), or null when the option is absent. */
    static List<Long> seeds(CliArgs a) {
        if (!a.has("seeds")) return null;
        String v = a.get("seeds", "");
        String[] ends = v.split("\\.\\.", -1);
        try {
            long from = Long.parseLong(ends[0].trim()), to = ends.length == 2 ? Long.parseLong(ends[1].trim()) : from;
            if (ends.length > 2 || from < 0 || to < from || to - from >= MOST_SEEDS) throw new NumberFormatException();
            List<Long> out = new ArrayList<>();
            for (long s = from; s <= to; s++) out.add(s);
            return out;
        } catch (NumberFormatException e) {
            throw new CliArgs.UsageException("--seeds must be A..B with 0 <= A <= B and at most " + MOST_SEEDS + " seeds, such as 1..5 (got '" + v + "')");
        }
    }

    /** Per comparison (equalSlo where knobs were calibrated, untuned), each ratio's interval over the runs. */
    static ObjectNode intervals(List<BenchCommand.Outcome> runs) {
        ObjectNode out = JobJson.mapper().createObjectNode();
        Map<String, Function<BenchCommand.Outcome, PeerRatios>> comparisons = new LinkedHashMap<>();
        if (runs.stream().anyMatch(o -> !o.knobs().isEmpty())) comparisons.put("equalSlo", o -> PeerRatios.of(o.results(), o.bound().priorityWeightedOutput()));
        comparisons.put("untuned", o -> PeerRatios.of(o.untuned(), o.bound().priorityWeightedOutput()));
        comparisons.forEach((name, ratios) -> {
            List<PeerRatios> each = runs.stream().map(ratios).toList();
            if (each.contains(null)) return;
            ObjectNode n = out.putObject(name);
            n.set("horizonOverBestPeer", Interval.of(values(each, PeerRatios::horizonOverBestPeer)).json());
            n.set("horizonOverBound", Interval.of(values(each, PeerRatios::horizonOverBound)).json());
            n.set("boundOverBestPeer", Interval.of(values(each, PeerRatios::boundOverBestPeer)).json());
        });
        return out;
    }

    private static List<Double> values(List<PeerRatios> each, ToDoubleFunction<PeerRatios> f) {
        return each.stream().map(r -> f.applyAsDouble(r)).toList();
    }

    /** One line per run, then each ratio's mean and interval. */
    static void print(List<Long> seeds, List<BenchCommand.Outcome> runs, ObjectNode intervals, PrintStream out) {
        for (int i = 0; i < runs.size(); i++) {
            BenchCommand.Outcome o = runs.get(i);
            PeerRatios eq = PeerRatios.of(o.results(), o.bound().priorityWeightedOutput()), un = PeerRatios.of(o.untuned(), o.bound().priorityWeightedOutput());
            out.printf("jitter seed %d: %s%s%n", seeds.get(i), eq == null || o.knobs().isEmpty() ? "" : String.format("equal SLO horizon %.3fx %s (at most %.3fx), %.3f of the bound; ",
                    eq.horizonOverBestPeer(), eq.bestPeer(), eq.boundOverBestPeer(), eq.horizonOverBound()), un == null ? "" : String.format("untuned horizon %.3fx %s, %.3f of the bound",
                    un.horizonOverBestPeer(), un.bestPeer(), un.horizonOverBound()));
        }
        intervals.fields().forEachRemaining(c -> c.getValue().fields().forEachRemaining(r -> out.printf(
                "%s %s over %d runs: mean %.3f, 95%% interval [%.3f, %.3f]; median %.3f, runs %.3f to %.3f%n", c.getKey(), r.getKey(),
                r.getValue().path("n").asInt(), r.getValue().path("mean").asDouble(), r.getValue().path("low").asDouble(), r.getValue().path("high").asDouble(),
                r.getValue().path("median").asDouble(), r.getValue().path("lowest").asDouble(), r.getValue().path("highest").asDouble())));
    }
}
