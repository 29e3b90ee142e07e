package dev.horizon.bench;

import dev.horizon.simulation.RtMinute;
import dev.horizon.simulation.Scenario;
import dev.horizon.simulation.ServiceDemand;
import dev.horizon.simulation.SimJob;
import dev.horizon.simulation.SimResult;
import dev.horizon.simulation.Simulator;
import dev.horizon.trace.ScenarioOptions;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Sets each policy's inference knob to the same service level before the window, on the day before it only: every
 * setting the policy has ({@link InferenceKnob#candidates}) sizes the services over the last day of their history
 * (seeing, as in the window, only the minutes already over), and the cheapest setting (fewest GPU-hours held) whose
 * per-minute SLO there met the target is the one the window runs with; when none met it, the one that came closest. The
 * window's own demand is never seen. The day before carries the batch work submitted over it (the scenario's prior
 * arrivals), so a setting is judged as the window will run it: growing onto GPUs that batch work holds, and waiting for
 * lent GPUs to come back.
 */
public final class SloCalibration {
    static final double DEFAULT_TARGET = 0.99;
    private static final int MINUTES_PER_DAY = 1440;

    private SloCalibration() {
    }

    /** The setting chosen, and what it gave on the day before: per-minute SLO, GPU-hours held, whether it met the target. */
    public record Choice(InferenceKnob knob, double dayBeforeRtSloAttainment, double dayBeforeGpuHours, boolean metTarget, int settingsTried) {
    }

    /** The policy's setting for the window at the target, or null when it has no knob or the scenario no day before. */
    static Choice calibrate(Scenario window, String policy, double target) {
        List<InferenceKnob> candidates = InferenceKnob.candidates(policy);
        Scenario dayBefore = dayBefore(window);
        if (candidates.isEmpty() || dayBefore == null) return null;
        Choice best = null;
        for (InferenceKnob knob : candidates) {
            SimResult r = new Simulator(dayBefore, knob.create()).run(f -> { });
            double held = r.rtMinutes().stream().mapToDouble(RtMinute::heldGpus).sum() / 60.0;
            double slo = r.metrics().rtSloAttainment();
            Choice c = new Choice(knob, slo, held, slo >= target - 1e-12, candidates.size());
            if (best == null || better(c, best)) best = c;
        }
        return best;
    }

    /** Meeting the target first; among those that meet it the fewest GPU-hours; among those that miss it the highest SLO. */
    private static boolean better(Choice a, Choice b) {
        if (a.metTarget() != b.metTarget()) return a.metTarget();
        if (a.metTarget()) return a.dayBeforeGpuHours() < b.dayBeforeGpuHours() - 1e-9;
        return a.dayBeforeRtSloAttainment() > b.dayBeforeRtSloAttainment() + 1e-12;
    }

    /**
     * The day before the window as a scenario of its own: the same cluster, budgets, MIG policy and start layouts and the
     * same services, the last day of each service's history as its window and what came before as its history, and as
     * its jobs the window's prior arrivals (submitted over the day before), moved a day on. It starts with no work
     * running, as the window does. Null when a service has less than a day of history, or there is no service.
     */
    static Scenario dayBefore(Scenario window) {
        if (window.services().isEmpty()) return null;
        List<ServiceDemand> services = new ArrayList<>();
        for (ServiceDemand d : window.services()) {
            double[] minutes = d.historyMinutes();
            if (minutes.length < MINUTES_PER_DAY) return null;
            int split = minutes.length - MINUTES_PER_DAY;
            services.add(ServiceDemand.perMinute(d.service(), Arrays.copyOfRange(minutes, 0, split), Arrays.copyOfRange(minutes, split, minutes.length),
                    (int) (window.stepSeconds() / ServiceDemand.SECONDS_PER_MINUTE)));
        }
        Map<String, Object> info = new LinkedHashMap<>();
        info.put("name", window.name() + " (the day before the window)");
        int steps = (int) (MINUTES_PER_DAY * ServiceDemand.SECONDS_PER_MINUTE / window.stepSeconds());
        List<SimJob> jobs = new ArrayList<>();
        for (SimJob j : window.priorArrivals()) {
            long arrival = j.arrivalSeconds() + MINUTES_PER_DAY * ServiceDemand.SECONDS_PER_MINUTE;
            if (arrival >= 0) jobs.add(j.arrivingAt(arrival));
        }
        jobs.sort(Comparator.comparingLong(SimJob::arrivalSeconds).thenComparing(SimJob::id));
        info.put("jobs", jobs.size());
        return new Scenario(window.name() + "-day-before", window.cluster(), window.stepSeconds(), steps, ScenarioOptions.HORIZON_STEPS, jobs,
                services, window.historyJobs(), info, window.budgets(), window.migPolicy(), List.of(), List.of(), window.startLayouts());
    }
}
