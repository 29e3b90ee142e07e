package dev.horizon.service.planning;

import dev.horizon.allocator.Cluster;
import dev.horizon.allocator.GpuNode;
import dev.horizon.allocator.policy.HorizonPolicy;
import dev.horizon.allocator.Occupancy;
import dev.horizon.allocator.PendingJob;
import dev.horizon.allocator.Placement;
import dev.horizon.allocator.PlacementRules;
import dev.horizon.allocator.PlanningContext;
import dev.horizon.allocator.RunningJob;
import dev.horizon.allocator.SliceRequest;
import dev.horizon.api.Contract;
import dev.horizon.api.JobJson;
import dev.horizon.api.JobSpec;
import dev.horizon.fairshare.BudgetTree;
import dev.horizon.fairshare.Entitlements;
import dev.horizon.fairshare.FairShareView;
import dev.horizon.service.fairshare.FairShareWindow;
import dev.horizon.service.fairshare.UsageBooking;
import dev.horizon.service.fairshare.UsageStore;
import dev.horizon.service.fractional.SlicePlanning;
import dev.horizon.service.inference.InferenceStore;
import dev.horizon.service.jobs.JobRow;
import dev.horizon.service.jobs.JobState;
import dev.horizon.service.jobs.JobStore;
import dev.horizon.service.jobs.Placements;
import dev.horizon.service.nodes.Gpu;
import dev.horizon.service.nodes.Node;
import dev.horizon.service.teams.TeamStore;
import com.fasterxml.jackson.core.JsonProcessingException;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Builds one planning moment from the store: the planned nodes (drained ones held out of new work), the active jobs
 * with their placement rules from the job JSON (GPU models, replica width, gang, topology) and what they have done so
 * far, the inference services with their forecasts, and fair share from the stored team tree and the hourly aggregates.
 * Nothing here decides: every rule of what to run lives in the allocator.
 */
@ApplicationScoped
public class ContextBuilder {
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
    @ConfigProperty(name = "horizon.planner.step-seconds")
    long stepSeconds;
    @ConfigProperty(name = "horizon.planner.horizon-steps")
    int horizonSteps;

    PlanInput build(long now, List<Node> usable, List<JobRow> active) {
        List<GpuNode> gpuNodes = usable.stream().map(n -> new GpuNode(n.name(), n.gpuModel(), n.gpus().size(), n.gpuMemoryMiB(), n.nvlinkDomain()))
                .toList();
        Cluster cluster = new Cluster(gpuNodes);
        Map<String, Integer> nodeIndex = new HashMap<>();
        for (int i = 0; i < gpuNodes.size(); i++) nodeIndex.put(gpuNodes.get(i).name(), i);
        Occupancy world = new Occupancy(cluster);
        for (int i = 0; i < usable.size(); i++) {
            if (usable.get(i).drained()) world.drain(i);
        }
        SlicePlanning.Pools pools = slices.prepare(usable, world, now * 1000);
        JobEstimates estimates = new JobEstimates(jobs.durationEstimator());
        Map<String, JobRow> rows = new LinkedHashMap<>();
        Map<String, JobSpec> specs = new HashMap<>();
        Map<String, Placement> holding = new LinkedHashMap<>();
        List<JobStore.PlanWrite> takenOff = new ArrayList<>();
        List<RunningJob> running = new ArrayList<>();
        List<PendingJob> pending = new ArrayList<>();
        for (JobRow j : active) {
            JobSpec spec = spec(j);
            rows.put(j.id(), j);
            specs.put(j.id(), spec);
            if (j.state() == JobState.RUNNING) {
                Placement p = j.placement() == null ? null : Placements.parse(j.placement(), cluster, nodeIndex);
                String gone = p == null || !world.isFree(p) ? "its node left the cluster or lost GPUs (" + j.placement() + ")" : lostGpu(p, usable, j.placement());
                if (gone != null) {
                    // its processes died with the node or GPU; it waits to be placed elsewhere
                    takenOff.add(Changes.displaced(j, spec.contractOrDefault(), now, gone));
                    continue;
                }
                world.occupy(p);
                holding.put(j.id(), p);
                long left = estimates.running(j, spec, p.gpus(), now);
                running.add(new RunningJob(j.id(), j.team(), j.jobClass(), j.priority(), p.gpus(), j.submittedAt() / 1000, j.startedAt(), now + left,
                        spec.contractOrDefault(), p, j.fill(), PlacementRules.of(spec)));
            } else {
                pending.add(new PendingJob(j.id(), j.team(), j.jobClass(), j.priority(), j.gpus(), j.minGpus(), j.submittedAt() / 1000,
                        estimates.waiting(j, spec), spec.contractOrDefault(), SliceRequest.of(spec.perReplica()), PlacementRules.of(spec)));
            }
        }
        Map<String, PlanningContext.ServiceView> services = serviceViews();
        Map<String, Integer> reserved = new TreeMap<>();
        services.forEach((name, v) -> reserved.put(name, Math.max(v.heldGpus(), HorizonPolicy.reservationPath(v, horizonSteps)[0])));
        int inferenceHeld = services.values().stream().mapToInt(PlanningContext.ServiceView::heldGpus).sum();
        FairShare fs = fairShare(now, cluster.totalGpus() - inferenceHeld, active, specs);
        PlanningContext ctx = new PlanningContext(now, stepSeconds, horizonSteps, cluster, world.copy(), running, pending, services, fs.view());
        return new PlanInput(now, usable, cluster, rows, specs, ctx, world, holding, pools, takenOff, reserved, fs.booking());
    }

    private record FairShare(FairShareView view, PlanInput.Booking booking) {
    }

    /**
     * Books the time since the last plan (what each team's run segments held, what it was owed), then fair share as of
     * now: each team's occupancy / owed over the window and what it is owed now, by Ai2's entitlement on the stored tree
     * over the GPUs its jobs ask for. No team with a share: no fair share view, and jobs weigh their priority.
     */
    private FairShare fairShare(long now, double capacity, List<JobRow> active, Map<String, JobSpec> specs) {
        UsageStore.Ledger ledger = usage.ledger();
        long from = ledger.bookedUntil() < 0 ? now : Math.min(now, ledger.bookedUntil());
        List<UsageBooking.Hourly> hourly = UsageBooking.book(from, now, usage.heldSince(from), ledger.owedNow());
        BudgetTree tree = TeamTree.of(teams.all());
        Map<String, Double> asked = new HashMap<>();
        for (JobRow j : active) asked.merge(j.team(), specs.get(j.id()).totalGpus(), Double::sum);
        Map<String, Double> owedNow = tree.teams().isEmpty() ? Map.of() : Entitlements.owed(tree, Math.max(0, capacity), asked);
        PlanInput.Booking booking = new PlanInput.Booking(hourly, Math.max(now, ledger.bookedUntil()), owedNow);
        if (tree.teams().isEmpty()) return new FairShare(null, booking);
        long fromHour = FairShareWindow.fromHour(now), toHour = FairShareWindow.toHour(now);
        Map<String, UsageStore.Totals> totals = UsageStore.withBooking(usage.totals(fromHour, toHour), hourly, fromHour, toHour);
        return new FairShare(new FairShareView(tree, owedNow, FairShareWindow.ratios(tree.teams(), totals)), booking);
    }

    /** The first GPU of the placement its agent reported lost, as a reason; null when none is. */
    private static String lostGpu(Placement p, List<Node> usable, String stored) {
        for (Placement.Slice s : p.slices()) {
            Node node = usable.get(s.node());
            for (int i = s.firstGpu(); i < s.firstGpu() + s.count(); i++) {
                Gpu gpu = node.gpus().get(i);
                if (Node.LOST.equals(gpu.health())) return "GPU " + gpu.uuid() + " on " + node.name() + " fell off the bus (" + stored + ")";
            }
        }
        return null;
    }

    /**
     * Each inference service with its forecast over the horizon. Its held GPUs are what its agents last reported
     * serving (0 until they do); they are also its standing reservation, since nothing else reserves for it.
     */
    private Map<String, PlanningContext.ServiceView> serviceViews() {
        Map<String, PlanningContext.ServiceView> views = new TreeMap<>();
        for (InferenceStore.Row row : inference.all()) {
            InferenceStore.Demand d = inference.demand(row.service().name());
            views.put(row.service().name(), new PlanningContext.ServiceView(row.service(), row.heldGpus(), row.heldGpus(),
                    d.forecaster().forecast(horizonSteps), (int) Math.ceil(d.peak())));
        }
        return views;
    }

    static JobSpec spec(JobRow j) {
        try {
            return JobJson.mapper().readValue(j.spec(), JobSpec.class);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("job " + j.id() + " holds a spec this service wrote", e);
        }
    }
}
