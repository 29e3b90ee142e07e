package dev.horizon.service.replay;

import dev.horizon.allocator.PlanningContext;
import dev.horizon.allocator.SchedulingPolicy;
import dev.horizon.allocator.UnmetDemandCost;
import dev.horizon.allocator.model.Cluster;
import dev.horizon.allocator.model.Decision;
import dev.horizon.allocator.model.GpuRef;
import dev.horizon.allocator.model.Placement;
import dev.horizon.allocator.model.RunningJob;
import dev.horizon.allocator.policy.HorizonPolicy;
import dev.horizon.service.clock.ServiceClock;
import dev.horizon.service.inference.InferenceStore;
import dev.horizon.service.jobs.JobRow;
import dev.horizon.service.jobs.JobState;
import dev.horizon.service.jobs.JobStore;
import dev.horizon.service.jobs.JobSubmissions;
import dev.horizon.service.jobs.Placements;
import dev.horizon.service.jobs.WaitReasons;
import dev.horizon.service.planning.Planner;
import dev.horizon.service.web.ApiException;
import dev.horizon.simulation.Scenario;
import dev.horizon.simulation.ServiceDemand;
import dev.horizon.simulation.SimJob;
import dev.horizon.simulation.WorldEvents;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Horizon's decisions in a bench run made by the real control plane: the simulator stays the world and tells this engine
 * what happens (jobs arrive through the same code as {@code POST /api/v1/jobs}, end through the agents' outcome path,
 * inference replicas are reported on their GPUs as agents report them), and each decision the simulator asks for is a
 * plan of the service's own loop at that virtual moment, read back from the store it committed to. Sizing inference
 * replicas is the serving system's business in both engines (Horizon's rule, on the world's view); the reservation per
 * step is the service's own, from its stored demand.
 */
@ApplicationScoped
public class ServiceEngine implements SchedulingPolicy, WorldEvents {
    @Inject
    ServiceClock clock;
    @Inject
    JobSubmissions submissions;
    @Inject
    JobStore jobs;
    @Inject
    InferenceStore inference;
    @Inject
    Planner planner;
    @Inject
    ScenarioStore setUp;

    private final HorizonPolicy serving = new HorizonPolicy();
    private Scenario scenario;
    private Map<String, Integer> nodeIndex;
    /** What the simulator holds as running after the last decision: job id -> fill. */
    private final Map<String, Boolean> running = new HashMap<>();
    /** Jobs the service refused at submission (a shape the cluster can never hold): the simulator keeps them waiting. */
    private final Set<String> refused = new HashSet<>();
    /** What each service's agents last reported holding, so an unchanged minute reports nothing. */
    private final Map<String, List<String>> heldReported = new HashMap<>();
    private int stepReported;

    /** Loads the scenario's cluster, teams, services and history into the (empty) store; the clock stands at its time 0. */
    public ServiceEngine replaying(Scenario s) {
        setUp.load(s);
        scenario = s;
        running.clear();
        refused.clear();
        heldReported.clear();
        stepReported = 0;
        nodeIndex = new HashMap<>();
        for (int i = 0; i < s.cluster().nodes().size(); i++) nodeIndex.put(s.cluster().nodes().get(i).name(), i);
        return this;
    }

    @Override
    public String name() {
        return "horizon";
    }

    @Override
    public void arrived(SimJob job, long t) {
        at(t);
        try {
            submissions.submitAs(ScenarioJobs.spec(job, scenario.cluster()), job.id());
        } catch (ApiException e) {
            refused.add(job.id());
        }
    }

    @Override
    public void finished(String jobId, long t) {
        at(t);
        running.remove(jobId);
        submissions.outcome(row(jobId), JobState.SUCCEEDED);
    }

    @Override
    public void preemptedByWorld(String jobId, long t) {
        at(t);
        running.remove(jobId);
        submissions.evicted(row(jobId));
    }

    @Override
    public void drained(int node, long t) {
        at(t);
        setUp.drain(scenario.cluster().nodes().get(node).name(), t);
    }

    @Override
    public void inferenceHeld(String service, List<Placement> held, long t) {
        at(t);
        List<String> uuids = new ArrayList<>();
        for (Placement p : held) {
            for (GpuRef g : p.gpus()) uuids.add(ScenarioStore.gpuUuid(scenario.cluster().nodes().get(g.node()).name(), g.gpu()));
        }
        if (!uuids.equals(heldReported.put(service, uuids))) inference.setHeld(service, uuids);
    }

    /** The service's own reservation for the step starting now, after its agents reported the demand of the step that ended. */
    @Override
    public Map<String, Integer> inferenceReservation(PlanningContext ctx) {
        at(ctx.now());
        int k = (int) (ctx.now() / scenario.stepSeconds());
        for (; stepReported < k; stepReported++) {
            for (ServiceDemand s : scenario.services()) inference.report(s.service().name(), List.of(s.window()[stepReported]), null);
        }
        return planner.inferenceReservation();
    }

    @Override
    public boolean lendsReservation() {
        return serving.lendsReservation();
    }

    @Override
    public double unmetInferencePenalty() {
        return serving.unmetInferencePenalty();
    }

    @Override
    public Map<String, Integer> inferenceTargets(long now, Map<String, PlanningContext.ServiceView> services) {
        return serving.inferenceTargets(now, services);
    }

    @Override
    public List<RunningJob> inferenceVictims(List<RunningJob> runningJobs, int gpusNeeded, long now, UnmetDemandCost cost) {
        return serving.inferenceVictims(runningJobs, gpusNeeded, now, cost);
    }

    /** One plan of the service at the simulator's moment, read back as the starts, preemptions and promotions it committed. */
    @Override
    public Decision decide(PlanningContext ctx) {
        at(ctx.now());
        Planner.PlanSnapshot plan = planner.planNow();
        Decision d = new Decision();
        // the nodes the service's plan held for a wide job, which the world's inference keeps off as the adapters' does
        d.holdForWideJob(plan == null ? List.of() : plan.nodesHeldForWideJob().stream().map(nodeIndex::get).toList());
        Cluster cluster = scenario.cluster();
        Set<String> stillRunning = new HashSet<>();
        for (JobRow j : jobs.active()) {
            String id = j.id();
            if (j.state() == JobState.RUNNING) {
                stillRunning.add(id);
                Boolean wasFill = running.get(id);
                if (wasFill == null) d.start(id, Placements.parse(j.placement(), cluster, nodeIndex), j.fill());
                else if (wasFill && !j.fill()) d.promote(id);
                running.put(id, j.fill());
            } else {
                d.waiting(id, WaitReasons.shown(j.reason(), j.plannedStart(), ctx.now()));
            }
        }
        for (String id : new ArrayList<>(running.keySet())) {
            if (stillRunning.contains(id)) continue;
            d.preempt(id);
            running.remove(id);
        }
        refused.forEach(id -> d.waiting(id, "refused at submission: no node or NVLink domain of the cluster can ever hold it"));
        return d;
    }

    private void at(long t) {
        clock.advanceTo(t * 1000);
    }

    private JobRow row(String simId) {
        return jobs.find(simId).orElseThrow(() -> new IllegalStateException("the replay lost job " + simId));
    }
}
