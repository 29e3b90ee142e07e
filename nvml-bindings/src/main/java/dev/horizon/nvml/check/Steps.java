package dev.horizon.nvml.check;

import dev.horizon.nvml.error.NvmlException;
import dev.horizon.nvml.error.NvmlNotSupportedException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The check's named steps, run one after the other: a step that fails is written down (its error by NVML name) and
 * the next one runs, so one refusing call never hides the others. NOT_SUPPORTED is an answer, not a failure.
 */
final class Steps {
    private final CallLog log;
    private final List<Map<String, Object>> done = new ArrayList<>();
    private final List<String> failed = new ArrayList<>();

    Steps(CallLog log) {
        this.log = log;
    }

    /** Runs the step; its value, or null when it failed. */
    <T> T run(String name, Supplier<T> body) {
        log.begin(name);
        Map<String, Object> step = new LinkedHashMap<>();
        step.put("step", name);
        long start = System.nanoTime();
        T value = null;
        String outcome = "ok";
        String error = null;
        try {
            value = body.get();
        } catch (NvmlNotSupportedException e) {
            outcome = "not supported";
            error = e.getMessage();
        } catch (NvmlException e) {
            outcome = "failed: " + e.errorName();
            error = e.getMessage();
        } catch (RuntimeException e) {
            outcome = "failed: " + e.getClass().getSimpleName();
            error = e.getMessage();
        }
        step.put("outcome", outcome);
        step.put("ms", CallLog.round((System.nanoTime() - start) / 1_000_000.0));
        if (error != null) step.put("error", error);
        step.put("calls", log.calls(name));
        done.add(step);
        if (outcome.startsWith("failed")) failed.add(name + ": " + error);
        return value;
    }

    /** As {@link #run}, for a step that answers nothing; whether it succeeded. */
    boolean act(String name, Runnable body) {
        int before = failed.size();
        run(name, () -> {
            body.run();
            return Boolean.TRUE;
        });
        return failed.size() == before;
    }

    List<Map<String, Object>> done() {
        return done;
    }

    /** "step: error" for each failed step. */
    List<String> failed() {
        return failed;
    }
}
