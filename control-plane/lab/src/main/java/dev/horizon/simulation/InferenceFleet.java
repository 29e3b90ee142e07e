package dev.horizon.simulation;

import dev.horizon.allocator.model.Placement;
import dev.horizon.allocator.moment.ServiceState;
import dev.horizon.allocator.placement.Occupancy;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The inference services of one run, minute by minute: the GPUs each holds and from when each serves, the demand
 * observed so far per minute and per step (what policies may size and forecast from), and the per-minute score. A service
 * gains or loses at most its swap cap in GPUs within a planning step; a GPU taken back from batch work serves only
 * after the reclaim grace period, GPUs that were free serve at once.
 */
final class InferenceFleet {
    /** Minutes of observed demand a policy is shown: a day covers every autoscaler's window and a daily profile. */
    static final int OBSERVED_MINUTES_SHOWN = 1440;
    private static final int SECONDS = ServiceDemand.SECONDS_PER_MINUTE;

    /** Takes GPUs back from batch work for a service; returns how many it freed. */
    interface Reclaimer {
        int takeBack(ServiceDemand service, int gpus, long t);
    }

    private record Held(Placement gpu, long readyAt) {
    }

    private static final class Service {
        final ServiceDemand demand;
        final int historicalPeak;
        final List<Held> held = new ArrayList<>();
        final double[] observed;
        int observedCount;
        /** Per-step demand observed: the history, then the window's steps that have ended. */
        final double[] observedSteps;
        int observedStepCount;
        int reservation;
        int heldAtStepStart;

        Service(ServiceDemand demand) {
            this.demand = demand;
            this.historicalPeak = (int) Math.ceil(Math.max(0, Arrays.stream(demand.history()).max().orElse(0)) - 1e-9);
            this.observed = Arrays.copyOf(demand.historyMinutes(), demand.historyMinutes().length + demand.windowMinutes().length);
            this.observedCount = demand.historyMinutes().length;
            this.observedSteps = Arrays.copyOf(demand.history(), demand.history().length + demand.window().length);
            this.observedStepCount = demand.history().length;
        }
    }

    private final Scenario scenario;
    private final Occupancy occupancy;
    private final long reclaimSeconds;
    private final Map<String, Service> services = new LinkedHashMap<>();
    private final List<RtMinute> minutes = new ArrayList<>();
    private Map<String, double[]> shownMinutes = Map.of();
    private boolean[] heldForWideJob;

    InferenceFleet(Scenario scenario, Occupancy occupancy, long reclaimSeconds) {
        this.scenario = scenario;
        this.occupancy = occupancy;
        this.reclaimSeconds = reclaimSeconds;
        for (ServiceDemand s : scenario.services()) {
            if (s.windowMinutes().length < scenario.windowMinutes()) {
                throw new IllegalArgumentException("service " + s.service().name() + " has " + s.windowMinutes().length
                        + " minutes of demand; the window needs " + scenario.windowMinutes());
            }
            services.put(s.service().name(), new Service(s));
        }
        refreshShown();
    }

    /**
     * The nodes the policy's last decision held for a wide job (null: none): the serving system places replicas off them
     * first and lets those on them go first, as the adapters' serving GPUs do with the plan's.
     */
    void heldForWideJob(boolean[] nodes) {
        heldForWideJob = nodes;
    }

    boolean isEmpty() {
        return services.isEmpty();
    }

    /** A new planning step k begins: step k-1's demand is observed, and the swap cap counts from here. */
    void stepBegins(int k) {
        for (Service s : services.values()) {
            if (k > 0) s.observedSteps[s.observedStepCount++] = s.demand.window()[k - 1];
            s.heldAtStepStart = s.held.size();
        }
    }

    void reserve(Map<String, Integer> wanted) {
        services.forEach((name, s) -> s.reservation = Math.max(0, wanted.getOrDefault(name, 0)));
    }

    int held(String name) {
        return services.get(name).held.size();
    }

    int totalHeld() {
        return services.values().stream().mapToInt(s -> s.held.size()).sum();
    }

    /** GPUs each service keeps from protected work: the larger of its reservation and what it holds. */
    int claimed() {
        return services.values().stream().mapToInt(s -> Math.max(s.reservation, s.held.size())).sum();
    }

    /** Each service as the moment describes it: what it holds, its reservation, the demand it has shown. */
    List<ServiceState> states() {
        List<ServiceState> out = new ArrayList<>();
        services.forEach((name, s) -> out.add(new ServiceState(s.demand.service(), s.held.stream().map(Held::gpu).toList(), s.reservation,
                Arrays.copyOf(s.observedSteps, s.observedStepCount), shownMinutes.get(name), s.historicalPeak)));
        return out;
    }

    /** Minute m (0-based in the window) is about to start: the minute before it is observed now. */
    void observeMinuteBefore(int m) {
        if (m == 0) return;
        for (Service s : services.values()) s.observed[s.observedCount++] = s.demand.windowMinutes()[m - 1];
        refreshShown();
    }

    private void refreshShown() {
        Map<String, double[]> shown = new LinkedHashMap<>();
        services.forEach((name, s) -> shown.put(name, Arrays.copyOfRange(s.observed, Math.max(0, s.observedCount - OBSERVED_MINUTES_SHOWN), s.observedCount)));
        shownMinutes = shown;
    }

    /**
     * Sizes every service to its target for the minute starting at t (within the swap cap, the first step uncapped),
     * then scores the minute. Returns whether GPUs passed between inference and batch work in either direction.
     */
    boolean resize(int m, long t, boolean firstStep, Map<String, Integer> targets, Reclaimer reclaimer) {
        boolean moved = false;
        for (Map.Entry<String, Service> e : services.entrySet()) {
            Service s = e.getValue();
            int target = Math.max(0, targets.getOrDefault(e.getKey(), 0));
            if (!firstStep) {
                int cap = Math.max(1, s.demand.service().swapCapGpus());
                target = Math.max(s.heldAtStepStart - cap, Math.min(target, s.heldAtStepStart + cap));
            }
            while (s.held.size() > target) {
                occupancy.release(s.held.remove(lastToRelease(s.held, t, heldForWideJob)).gpu());
                moved = true;
            }
            int more = target - s.held.size();
            int free = occupancy.totalFree();
            if (more > free && reclaimer.takeBack(s.demand, more - free, t) > 0) moved = true;
            Placement singles = occupancy.findSingles(Math.min(more, occupancy.totalFree()), heldForWideJob);
            if (singles == null) continue;
            for (int i = 0; i < singles.slices().size(); i++) {
                Placement one = new Placement(List.of(singles.slices().get(i)));
                occupancy.occupy(one);
                s.held.add(new Held(one, i < free ? t : t + reclaimSeconds));
            }
        }
        for (Service s : services.values()) score(s, m, t);
        return moved;
    }

    /** The GPU a shrinking service lets go first: one not serving yet, else the newest on a node held for a wide job, else the newest. */
    private static int lastToRelease(List<Held> held, long t, boolean[] heldForWideJob) {
        for (int i = held.size() - 1; i >= 0; i--) if (held.get(i).readyAt() > t) return i;
        int onHeld = Placement.newestOn(held.stream().map(Held::gpu).toList(), heldForWideJob);
        return onHeld >= 0 ? onHeld : held.size() - 1;
    }

    private void score(Service s, int m, long t) {
        double demand = s.demand.windowMinutes()[m];
        int serving = 0;
        double served = 0;
        for (Held h : s.held) {
            if (h.readyAt() <= t) serving++;
        }
        // GPUs become ready during the minute only as their grace ends; until then the minute is served by those ready
        long[] ready = s.held.stream().mapToLong(h -> Math.max(t, Math.min(t + SECONDS, h.readyAt()))).sorted().toArray();
        for (int i = 0; i < ready.length; i++) {
            long from = ready[i], to = i + 1 < ready.length ? ready[i + 1] : t + SECONDS;
            served += Math.min(i + 1, demand) * (to - from);
        }
        minutes.add(new RtMinute(s.demand.service().name(), t, demand, s.held.size(), serving, served, s.demand.service().weightPerGpuHour()));
    }

    List<RtMinute> minutes() {
        return minutes;
    }
}
