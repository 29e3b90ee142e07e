package dev.horizon.service.planning;

import com.fasterxml.jackson.core.JsonProcessingException;
import dev.horizon.allocator.PlanningContext;
import dev.horizon.allocator.actions.InferenceReservation;
import dev.horizon.allocator.model.GpuNode;
import dev.horizon.allocator.model.GpuRef;
import dev.horizon.allocator.model.Placement;
import dev.horizon.allocator.model.PlacementRules;
import dev.horizon.allocator.model.SliceRequest;
import dev.horizon.allocator.moment.ActiveJob;
import dev.horizon.allocator.moment.ClusterMoment;
import dev.horizon.allocator.moment.ContextBuilder;
import dev.horizon.allocator.moment.NodeState;
import dev.horizon.allocator.moment.ServiceState;
import dev.horizon.allocator.moment.Teams;
import dev.horizon.api.JobJson;
import dev.horizon.api.JobSpec;
import dev.horizon.fairshare.BudgetTree;
import dev.horizon.fairshare.TeamUsage;
import dev.horizon.service.fairshare.FairShareWindow;
import dev.horizon.service.fairshare.UsageBooking;
import dev.horizon.service.fairshare.UsageStore;
import dev.horizon.service.fractional.SlicePlanning;
import dev.horizon.service.inference.InferenceStore;
import dev.horizon.service.jobs.JobRow;
import dev.horizon.service.jobs.JobStore;
import dev.horizon.service.jobs.Placements;
import dev.horizon.service.jobs.RunSegments;
import dev.horizon.service.nodes.Gpu;
import dev.horizon.service.nodes.Node;
import dev.horizon.service.plans.PlannerSettings;
import dev.horizon.service.teams.TeamStore;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads one planning moment from the store and hands it to the allocator's one planning input
 * ({@link ContextBuilder#build}), as the simulator does with its world: the planned nodes with their health and GPUs'
 * MIG states, the active jobs with their placement rules from the job JSON and the work they have done (run history),
 * the team tree with each team's usage over the window from the hourly aggregates, and the inference services with the
 * GPUs they hold and their stored demand. Nothing here decides: every rule of what to run lives in the allocator.
 */
@ApplicationScoped
public class MomentReader {
    @Inject
    JobStore jobs;
    @Inject
    TeamStore teams;
    @Inject
    InferenceStore inference;
    @Inject
    UsageStore usage;
    @Inject
    SlicePlanning slices;
    @Inject
    PlannerSettings settings;

    /** An age doubling out of range stops the service as it starts, naming the setting, rather than failing every plan. */
    void refuseBadSettings(@Observes StartupEvent started) {
        settings.ageDoublingSeconds();
    }

    PlanInput build(long now, List<Node> usable, List<JobRow> active, NodesOut nodesOut) {
        SlicePlanning.Prepared prepared = slices.prepare(usable, now * 1000);
        List<NodeState> nodes = new ArrayList<>();
        Map<String, Integer> nodeIndex = new HashMap<>();
        Map<String, int[]> gpuByUuid = new HashMap<>();
        for (int n = 0; n < usable.size(); n++) {
            Node node = usable.get(n);
            nodeIndex.put(node.name(), n);
            for (Gpu g : node.gpus()) gpuByUuid.put(g.uuid(), new int[] {n, g.index()});
            GpuNode shape = new GpuNode(node.name(), node.gpuModel(), node.gpus().size(), node.gpuMemoryMiB(), node.nvlinkDomain());
            NodeState.Health health = node.unhealthy() ? NodeState.Health.UNHEALTHY : node.drained() ? NodeState.Health.DRAINED : NodeState.Health.READY;
            nodes.add(new NodeState(shape, health, prepared.pools().byNode().get(n),
                    prepared.gpus().get(n), prepared.sharingPerNode().get(n)));
        }
        List<ServiceState> services = services(gpuByUuid);
        Jobs js = jobs(now, active, nodes, nodeIndex, services);
        Booked booked = booked(now);
        BudgetTree tree = TeamTree.of(teams.all()).withAgeDoubling(settings.ageDoublingSeconds());
        Teams teamView = tree.teams().isEmpty() ? null : new Teams(tree, booked.window());
        ClusterMoment moment = new ClusterMoment(now, settings.stepSeconds(), settings.horizonSteps(), nodes, js.states(), teamView, withReservations(services, nodes, now),
                jobs.durationEstimator());
        PlanningContext ctx = ContextBuilder.build(moment);
        Map<String, Long> secondsLeft = new HashMap<>();
        ctx.running().forEach(r -> secondsLeft.put(r.id(), r.estimatedEndSeconds() - now));
        ctx.pending().forEach(p -> secondsLeft.put(p.id(), p.estimatedRemainingSeconds()));
        Map<String, Integer> reserved = new LinkedHashMap<>();
        ctx.services().forEach((name, v) -> reserved.put(name, Math.max(v.heldGpus(), v.reservedGpus())));
        Map<String, Double> owedNext = ctx.fairShare() == null ? Map.of() : ctx.fairShare().owedNow();
        PlanInput.Booking booking = new PlanInput.Booking(booked.hourly(), booked.until(), owedNext);
        return new PlanInput(now, moment, usable, ctx.cluster(), js.rows(), js.specs(), ctx, ctx.occupancy().copy(), js.holding(), prepared.pools(),
                js.takenOff(), secondsLeft, reserved, booking, nodesOut);
    }

    /** The active jobs as the moment holds them (running first, then waiting), and those already off their GPUs. */
    private record Jobs(List<ActiveJob> states, Map<String, JobRow> rows, Map<String, JobSpec> specs, Map<String, Placement> holding,
                        List<JobStore.PlanWrite> takenOff) {
    }

    private Jobs jobs(long now, List<JobRow> active, List<NodeState> nodes, Map<String, Integer> nodeIndex, List<ServiceState> services) {
        dev.horizon.allocator.model.Cluster cluster = new dev.horizon.allocator.model.Cluster(nodes.stream().map(NodeState::node).toList());
        java.util.Set<GpuRef> inferenceGpus = new java.util.HashSet<>();
        for (ServiceState s : services) for (Placement p : s.held()) for (Placement.Slice sl : p.slices()) inferenceGpus.add(new GpuRef(sl.node(), sl.firstGpu()));
        Map<String, JobRow> rows = new LinkedHashMap<>();
        Map<String, JobSpec> specs = new HashMap<>();
        Map<String, Placement> holding = new LinkedHashMap<>();
        List<JobStore.PlanWrite> takenOff = new ArrayList<>();
        List<ActiveJob> running = new ArrayList<>(), waiting = new ArrayList<>();
        for (JobRow j : active) {
            JobSpec spec = spec(j);
            rows.put(j.id(), j);
            specs.put(j.id(), spec);
            ActiveJob.Running run = null;
            if (j.state() == dev.horizon.service.jobs.JobState.RUNNING) {
                Placement p = j.placement() == null ? null : Placements.parse(j.placement(), cluster, nodeIndex);
                Gone gone = gone(p, j.placement(), nodes, inferenceGpus, holding.values());
                if (gone != null) {
                    // its processes died with the node or GPU, or its GPUs serve inference now: it waits to be placed elsewhere
                    takenOff.add(Changes.displaced(j, spec.contractOrDefault(), now, gone.why(), gone.endReason()));
                    continue;
                }
                holding.put(j.id(), p);
                run = new ActiveJob.Running(j.startedAt(), p, j.fill());
            }
            ActiveJob state = state(j, spec, new ActiveJob.RunHistory(j.doneGpuSeconds(), 0, j.preemptions(), j.peakGpuMemoryMiB()), run);
            (run == null ? waiting : running).add(state);
        }
        running.addAll(waiting);
        return new Jobs(running, rows, specs, holding, takenOff);
    }

    /**
     * Why a running job's placement no longer holds, and how its run ended: NODE_LOST only where its node or a GPU of it
     * is gone; GPUs an inference service holds now, or another job's, were taken by something other than the plan
     * (EVICTED), on a node that is healthy.
     */
    record Gone(String why, String endReason) {
    }

    /** Why a running job's placement no longer holds, or null when it does. */
    private static Gone gone(Placement p, String stored, List<NodeState> nodes, java.util.Set<GpuRef> inferenceGpus, java.util.Collection<Placement> taken) {
        if (p == null) return new Gone("its node left the cluster or lost GPUs (" + stored + ")", RunSegments.NODE_LOST);
        for (GpuRef g : p.gpus()) {
            if (nodes.get(g.node()).gpus().get(g.gpu()).lost()) {
                return new Gone("GPU " + g.gpu() + " of " + nodes.get(g.node()).node().name() + " fell off the bus (" + stored + ")", RunSegments.NODE_LOST);
            }
            if (inferenceGpus.contains(g)) return new Gone("its GPUs serve an inference service now (" + stored + ")", RunSegments.EVICTED);
        }
        for (Placement other : taken) {
            if (p.overlapsWhole(other)) return new Gone("another job holds its GPUs (" + stored + ")", RunSegments.EVICTED);
        }
        return null;
    }

    /** Each inference service with the GPUs its replicas hold (one placement each) and its stored demand. */
    private List<ServiceState> services(Map<String, int[]> gpuByUuid) {
        List<ServiceState> out = new ArrayList<>();
        for (InferenceStore.Row row : inference.all()) {
            List<Placement> held = new ArrayList<>();
            for (String uuid : row.heldOn()) {
                int[] at = gpuByUuid.get(uuid);
                if (at != null) held.add(new Placement(List.of(new Placement.Slice(at[0], at[1], 1))));
            }
            double[] steps = inference.observedSteps(row.service().name());
            int peak = (int) Math.ceil(java.util.Arrays.stream(steps).max().orElse(0) - 1e-9);
            out.add(new ServiceState(row.service(), held, 0, steps, new double[0], peak));
        }
        return out;
    }

    /** The step's reservation of each service, by the policy's rule on its forecast (what the simulator asks the policy for). */
    private List<ServiceState> withReservations(List<ServiceState> services, List<NodeState> nodes, long now) {
        if (services.isEmpty()) return services;
        Map<String, PlanningContext.ServiceView> views = ContextBuilder.services(new ClusterMoment(now, settings.stepSeconds(), settings.horizonSteps(), nodes, List.of(), null,
                services, jobs.durationEstimator()));
        List<ServiceState> out = new ArrayList<>();
        for (ServiceState s : services) {
            int reserved = Math.max(0, InferenceReservation.path(views.get(s.service().name()), settings.horizonSteps())[0]);
            out.add(new ServiceState(s.service(), s.held(), reserved, s.observedSteps(), s.observedMinutes(), s.historicalPeakGpus()));
        }
        return out;
    }

    /** What this plan books (the stretch since the last one) and each team's usage over the window with it. */
    private record Booked(List<UsageBooking.Hourly> hourly, long until, Map<String, TeamUsage> window) {
    }

    private Booked booked(long now) {
        UsageStore.Ledger ledger = usage.ledger();
        long from = ledger.bookedUntil() < 0 ? now : Math.min(now, ledger.bookedUntil());
        List<UsageBooking.Hourly> hourly = UsageBooking.book(from, now, usage.heldSince(from), ledger.owedNow());
        long fromHour = FairShareWindow.fromHour(now), toHour = FairShareWindow.toHour(now);
        Map<String, TeamUsage> window = new HashMap<>();
        UsageStore.withBooking(usage.totals(fromHour, toHour), hourly, fromHour, toHour)
                .forEach((team, t) -> window.put(team, new TeamUsage(t.used(), t.owed())));
        return new Booked(hourly, Math.max(now, ledger.bookedUntil()), window);
    }

    /** A stored job as a moment holds it: its shape and rules from its job JSON, what it did before, where it runs (null: waiting). */
    public static ActiveJob state(JobRow j, JobSpec spec, ActiveJob.RunHistory history, ActiveJob.Running run) {
        return new ActiveJob(j.id(), j.team(), j.jobClass(), j.priority(), j.gpus(), j.minGpus(), j.submittedAt() / 1000,
                spec.durationEstimateSeconds(), spec.contractOrDefault(), SliceRequest.of(spec.perReplica()), PlacementRules.of(spec), history, run);
    }

    public static JobSpec spec(JobRow j) {
        try {
            return JobJson.mapper().readValue(j.spec(), JobSpec.class);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("job " + j.id() + " holds a spec this service wrote", e);
        }
    }
}
