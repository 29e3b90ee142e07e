package dev.horizon.nvml.check;

import dev.horizon.nvml.NvmlCallObserver;
import dev.horizon.nvml.error.NvmlError;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Every NVML call the check makes, grouped by the step that made it: the call's NVML name, its answer, how often it
 * gave that answer and how long it took. The check runs on one thread.
 */
final class CallLog implements NvmlCallObserver {
    private static final double NANOS_PER_MS = 1_000_000.0;

    /** One NVML function with one answer inside one step. */
    private static final class Tally {
        final String function;
        final int returnCode;
        int count;
        long totalNanos;
        long maxNanos;

        Tally(String function, int returnCode) {
            this.function = function;
            this.returnCode = returnCode;
        }
    }

    private final Map<String, Map<String, Tally>> bySteps = new LinkedHashMap<>();
    private String step = "nvmlInit";

    /** Calls from now on belong to {@code name}. */
    void begin(String name) {
        step = name;
        bySteps.computeIfAbsent(name, k -> new LinkedHashMap<>());
    }

    @Override
    public void called(String function, int returnCode, long nanos) {
        Tally t = bySteps.computeIfAbsent(step, k -> new LinkedHashMap<>())
                .computeIfAbsent(function + "=" + returnCode, k -> new Tally(function, returnCode));
        t.count++;
        t.totalNanos += nanos;
        t.maxNanos = Math.max(t.maxNanos, nanos);
    }

    /** The step's calls as the report shows them, in the order they were first made. */
    List<Map<String, Object>> calls(String stepName) {
        List<Map<String, Object>> out = new ArrayList<>();
        for (Tally t : bySteps.getOrDefault(stepName, Map.of()).values()) {
            Map<String, Object> call = new LinkedHashMap<>();
            call.put("function", t.function);
            call.put("result", resultName(t.returnCode));
            call.put("count", t.count);
            call.put("totalMs", round(t.totalNanos / NANOS_PER_MS));
            call.put("maxMs", round(t.maxNanos / NANOS_PER_MS));
            out.add(call);
        }
        return out;
    }

    /** "function=result" -> how many calls answered so, over every step, for the calls that did not succeed. */
    Map<String, Integer> unsuccessful() {
        Map<String, Integer> out = new LinkedHashMap<>();
        bySteps.values().forEach(step -> step.values().stream().filter(t -> t.returnCode != NvmlError.SUCCESS.code())
                .forEach(t -> out.merge(t.function + " " + resultName(t.returnCode), t.count, Integer::sum)));
        return out;
    }

    int total() {
        return bySteps.values().stream().flatMap(s -> s.values().stream()).mapToInt(t -> t.count).sum();
    }

    static String resultName(int returnCode) {
        return NvmlError.isKnown(returnCode) ? NvmlError.of(returnCode).constantName() : "NVML return code " + returnCode;
    }

    static double round(double ms) {
        return Math.round(ms * 1000) / 1000.0;
    }
}
