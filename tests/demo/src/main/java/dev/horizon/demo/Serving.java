package dev.horizon.demo;

import com.fasterxml.jackson.databind.JsonNode;
import dev.horizon.allocator.PlanningContext;
import dev.horizon.allocator.UnmetDemandCost;
import dev.horizon.allocator.model.Cluster;
import dev.horizon.allocator.model.GpuNode;
import dev.horizon.allocator.model.InferenceService;
import dev.horizon.allocator.model.Placement;
import dev.horizon.allocator.model.RunningJob;
import dev.horizon.allocator.placement.Occupancy;
import dev.horizon.allocator.policy.HorizonPolicy;
import dev.horizon.simulation.ServiceDemand;
import dev.horizon.trace.DemoDayScenario;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The inference service's autoscaler and request traffic, which the world plays: each minute it observes the minute
 * before, sizes the service for the next one by Horizon's rule (from observed minutes only, within the swap cap per
 * step), takes free whole GPUs first and, when none are left, takes GPUs back from batch work (fill first, never work
 * inside its minimum runtime), and says which GPUs serve. It scores each minute: met when the GPUs serving cover the
 * demand (GPUs taken from batch work serve after a grace of half a minute, as the simulator's reclaim does).
 */
final class Serving {
    /** Minutes of demand a sizing rule may look back over: a day, as the simulator shows policies. */
    private static final int MINUTES_SHOWN = 1440;
    private static final double GRACE_SHARE = 0.5;
    private static final HorizonPolicy HORIZON = new HorizonPolicy();

    /** A GPU of the cluster as the control plane lists it. */
    record Gpu(String node, int index, String uuid, boolean migOn) {
    }

    /** What a minute changed: GPUs taken back from these jobs (evicted), and whether the set of GPUs serving changed. */
    record Resize(List<Runs.Job> victims, boolean changed) {
    }

    private final ServiceDemand demand;
    private final double[] observed;
    private int observedCount;
    private final LinkedHashSet<String> held = new LinkedHashSet<>();
    private int heldAtStepStart;
    private int minutesMet;
    private int minutesScored;
    private double servedGpuSeconds;

    Serving(ServiceDemand demand) {
        this.demand = demand;
        this.observed = new double[demand.historyMinutes().length + demand.windowMinutes().length];
        System.arraycopy(demand.historyMinutes(), 0, observed, 0, demand.historyMinutes().length);
        observedCount = demand.historyMinutes().length;
    }

    InferenceService service() {
        return demand.service();
    }

    List<String> held() {
        return List.copyOf(held);
    }

    /** The demand of step k of the day, as agents report it: its busiest minute. */
    double stepDemand(int k) {
        return demand.window()[k];
    }

    /**
     * Minute m begins at t: the minute before is observed, the service is sized for this one, and the minute is scored.
     * gpus: the cluster's GPUs; running: the jobs holding GPUs now.
     */
    Resize minute(int m, long t, List<Gpu> gpus, List<Runs.Job> running) {
        if (m > 0) observed[observedCount++] = demand.windowMinutes()[m - 1];
        if (t % DemoDayScenario.STEP_SECONDS == 0) heldAtStepStart = held.size();
        int target = target(t, m == 0 || t < DemoDayScenario.STEP_SECONDS);
        List<String> before = List.copyOf(held);
        while (held.size() > target) held.remove(before.get(held.size() - 1));
        int fromBatch = 0;
        List<Runs.Job> victims = List.of();
        if (target > held.size()) {
            List<String> free = free(gpus, running);
            int more = target - held.size();
            if (more > free.size()) {
                victims = victims(running, more - free.size(), t);
                for (Runs.Job v : victims) {
                    List<String> taken = uuidsOf(v.run.placement(), gpus);
                    free.addAll(taken);
                    fromBatch += taken.size();
                }
            }
            free.stream().limit(more).forEach(held::add);
        }
        score(m, fromBatch);
        return new Resize(victims, !before.equals(List.copyOf(held)));
    }

    /** Horizon's size for the minute from the minutes observed, held within the swap cap of the step's start (the first step uncapped). */
    private int target(long t, boolean uncapped) {
        double[] shown = Arrays.copyOfRange(observed, Math.max(0, observedCount - MINUTES_SHOWN), observedCount);
        PlanningContext.ServiceView view = new PlanningContext.ServiceView(demand.service(), held.size(), 0, new double[0], 0, shown);
        int target = Math.max(0, HORIZON.inferenceTargets(t, Map.of(demand.service().name(), view)).getOrDefault(demand.service().name(), 0));
        if (uncapped) return target;
        int cap = Math.max(1, demand.service().swapCapGpus());
        return Math.max(heldAtStepStart - cap, Math.min(target, heldAtStepStart + cap));
    }

    /**
     * Whole GPUs nothing holds (no job, no MIG layout, not serving already), in the order the simulator's services take
     * them ({@link Occupancy#findSingles}: the fullest node first, so emptier nodes stay whole for gangs). Taking the
     * emptiest node first put the service on the one node that can hold an 8-GPU job, which then waited through the
     * quiet hours on a nearly idle cluster while the same day in the simulator started it on arrival.
     */
    List<String> free(List<Gpu> gpus, List<Runs.Job> running) {
        Set<String> busy = new HashSet<>(held);
        for (Runs.Job j : running) busy.addAll(uuidsOf(j.run.placement(), gpus));
        List<String> nodeNames = gpus.stream().map(Gpu::node).distinct().toList();
        Cluster cluster = new Cluster(nodeNames.stream()
                .map(n -> new GpuNode(n, "", (int) gpus.stream().filter(g -> g.node().equals(n)).count(), 0, null)).toList());
        Occupancy occupancy = new Occupancy(cluster);
        for (Gpu g : gpus) {
            if (g.migOn() || busy.contains(g.uuid())) occupancy.occupy(new Placement(List.of(new Placement.Slice(nodeNames.indexOf(g.node()), g.index(), 1))));
        }
        Placement order = occupancy.findSingles(occupancy.totalFree());
        List<String> free = new ArrayList<>();
        for (Placement.Slice s : order.slices()) {
            for (Gpu g : gpus) if (g.node().equals(nodeNames.get(s.node())) && g.index() == s.firstGpu()) free.add(g.uuid());
        }
        return free;
    }

    /** Horizon's choice of the batch work that gives GPUs back: whole-GPU runs only, cheapest loss first. */
    private List<Runs.Job> victims(List<Runs.Job> running, int gpusNeeded, long t) {
        List<RunningJob> candidates = new ArrayList<>();
        Map<String, Runs.Job> byId = new java.util.HashMap<>();
        for (Runs.Job j : running) {
            if (j.run.placement().contains(":")) continue; // a MIG instance or a share frees no whole GPU
            byId.put(j.id, j);
            candidates.add(new RunningJob(j.id, j.truth.team(), j.truth.jobClass(), j.truth.weight(), j.run.units(), j.truth.arrivalSeconds(),
                    j.run.start(), j.endsAt(), j.truth.contract(), new Placement(List.of(new Placement.Slice(0, 0, j.run.units()))), j.run.fill()));
        }
        UnmetDemandCost cost = new UnmetDemandCost(HORIZON.unmetInferencePenalty(), demand.service().weightPerGpuHour(), DemoDayScenario.STEP_SECONDS);
        return HORIZON.inferenceVictims(candidates, gpusNeeded, t, cost).stream().map(r -> byId.get(r.id())).toList();
    }

    private void score(int m, int fromBatch) {
        double d = demand.windowMinutes()[m];
        double serving = held.size() - GRACE_SHARE * fromBatch;
        minutesScored++;
        if (serving + 1e-9 >= d) minutesMet++;
        servedGpuSeconds += Math.min(serving, d) * 60;
    }

    /** Share of the minutes so far whose demand the GPUs serving covered. */
    double sloAttainment() {
        return minutesScored == 0 ? 1 : (double) minutesMet / minutesScored;
    }

    double servedGpuSeconds() {
        return servedGpuSeconds;
    }

    /** The uuids of the whole GPUs a stored placement holds ("node-h100[0-3]"). */
    static List<String> uuidsOf(String placement, List<Gpu> gpus) {
        List<String> out = new ArrayList<>();
        for (String part : placement.split("\\+")) {
            java.util.regex.Matcher m = java.util.regex.Pattern.compile("(.+)\\[(\\d+)-(\\d+)(?::[^\\]]+)?\\]").matcher(part);
            if (!m.matches()) continue;
            for (int i = Integer.parseInt(m.group(2)); i <= Integer.parseInt(m.group(3)); i++) {
                for (Gpu g : gpus) if (g.node().equals(m.group(1)) && g.index() == i) out.add(g.uuid());
            }
        }
        return out;
    }

    /** The cluster's GPUs from GET /api/v1/nodes. */
    static List<Gpu> gpus(JsonNode nodes) {
        List<Gpu> out = new ArrayList<>();
        for (JsonNode n : nodes) {
            for (JsonNode g : n.get("gpus")) out.add(new Gpu(n.get("name").asText(), g.get("index").asInt(), g.get("uuid").asText(), g.get("migDevices").size() > 0));
        }
        return out;
    }
}
