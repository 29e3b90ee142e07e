package dev.horizon.service.planning;

import dev.horizon.allocator.model.Decision;
import dev.horizon.allocator.model.GpuNode;
import dev.horizon.allocator.model.GpuRef;
import dev.horizon.allocator.model.PendingJob;
import dev.horizon.allocator.model.Placement;
import dev.horizon.allocator.model.RunningJob;
import dev.horizon.allocator.placement.Feasibility;
import dev.horizon.allocator.placement.Occupancy;
import dev.horizon.allocator.policy.HorizonPolicy;
import dev.horizon.service.fractional.SlicePlanning;
import dev.horizon.service.jobs.JobRow;
import dev.horizon.service.jobs.JobStore.PlanWrite;
import dev.horizon.service.jobs.RunSegments;
import dev.horizon.service.jobs.WaitReasons;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * Turns the policy's decision on one moment into what the store must hold: preempted jobs back to pending (their runs
 * closed), starts (their runs opened, per node), each waiting job's rule, reason, rank and planned start, and the agent
 * commands the slices need. It checks the decision against the same hard rules the simulator checks first: a decision
 * that breaks one is refused whole, never half applied.
 */
@ApplicationScoped
public class DecisionApplier {
    @Inject
    SlicePlanning slices;

    /** The commit, and the GPUs busy after it (a GPU shared by slices counts once). */
    record Applied(PlanCommit commit, int busyGpus) {
    }

    Applied apply(PlanInput in, PlanningPolicy.Outcome outcome) {
        Decision decision = outcome.decision();
        validate(decision, in.context().running(), in.context().pending());
        long now = in.now();
        Occupancy occupancy = in.world();
        Map<String, Placement> holding = new HashMap<>(in.holding());
        List<PlanWrite> writes = new ArrayList<>(in.takenOff());
        for (String id : decision.preemptions()) {
            occupancy.release(holding.remove(id));
            writes.add(Changes.preempted(in.rows().get(id), in.specs().get(id).contractOrDefault(), now, decision.preemptionReasons().get(id)));
        }
        for (String id : decision.promotions()) writes.add(Changes.promoted(in.rows().get(id)));
        Set<String> started = new HashSet<>();
        for (Decision.Start s : decision.starts()) {
            occupancy.occupy(s.placement());
            holding.put(s.jobId(), s.placement());
            started.add(s.jobId());
            JobRow j = in.rows().get(s.jobId());
            String placement = s.placement().describe(in.cluster());
            writes.add(Changes.start(j, placement, s.fill(), now, openings(j, s.placement(), placement, s.fill(), in, now)));
        }
        List<SlicePlanning.Wanted> commands = slices.apply(in.pools(), decision, occupancy, in.usable(), Instant.ofEpochSecond(now));
        writes.addAll(waits(in, decision, started));
        return new Applied(new PlanCommit(writes, commands, in.booking()), busyGpus(holding.values()));
    }

    /** Per node of the placement, the GPUs the job holds there (a slice by its fraction). */
    private static List<RunSegments.Opening> openings(JobRow j, Placement p, String placement, boolean fill, PlanInput in, long now) {
        Map<Integer, Double> byNode = new LinkedHashMap<>();
        for (Placement.Slice s : p.slices()) byNode.merge(s.node(), s.share() == null ? s.count() : s.share().gpuFraction(), Double::sum);
        List<RunSegments.Opening> out = new ArrayList<>();
        byNode.forEach((node, gpus) -> out.add(new RunSegments.Opening(j.id(), j.team(), in.cluster().nodes().get(node).name(), gpus, now,
                placement, fill)));
        return out;
    }

    /** Every job left waiting, in value order: its place in the queue, and the rule, reason and planned start the decision gave it. */
    private static List<PlanWrite> waits(PlanInput in, Decision decision, Set<String> started) {
        List<PendingJob> order = new ArrayList<>(in.context().pending());
        order.sort(HorizonPolicy.VALUE_ORDER);
        List<PlanWrite> out = new ArrayList<>();
        List<GpuNode> up = NodesOut.takingWork(in.moment());
        // one answer per shape, as feasibility depends on nothing else: a node out would otherwise cost each plan a walk
        // over the cluster for every waiting job
        Map<List<Object>, Optional<String>> outByShape = new HashMap<>();
        int rank = 0;
        for (PendingJob j : order) {
            if (started.contains(j.id())) continue;
            rank++;
            // the policy sees no node out of the plan (lost, or awaiting approval), so its reason for a job only they can
            // hold says nothing of them
            String onlyOut = in.nodesOut().nodes().isEmpty() ? null : outByShape.computeIfAbsent(Arrays.asList(j.gpus(), j.minGpus(), j.slice(), j.rules()),
                    shape -> Optional.ofNullable(in.nodesOut().onlyTheyHold(c -> Feasibility.problems(j.gpus(), j.minGpus(), j.slice(), j.rules(), c), up))).orElse(null);
            String reason = Objects.requireNonNullElseGet(onlyOut, () -> decision.waitReasons().getOrDefault(j.id(), WaitReasons.NEXT_PLAN));
            out.add(Changes.waiting(in.rows().get(j.id()), decision.waitRule(j.id()).label(), reason, rank, decision.plannedStarts().get(j.id())));
        }
        return out;
    }

    private static int busyGpus(Iterable<Placement> held) {
        Set<GpuRef> busy = new HashSet<>();
        for (Placement p : held) busy.addAll(p.gpus());
        return busy.size();
    }

    /** The same hard rules the simulator checks. */
    private static void validate(Decision d, List<RunningJob> running, List<PendingJob> pending) {
        Set<String> runningIds = new HashSet<>();
        running.forEach(r -> runningIds.add(r.id()));
        Map<String, PendingJob> waiting = new HashMap<>();
        pending.forEach(p -> waiting.put(p.id(), p));
        for (String id : d.preemptions()) {
            if (!runningIds.contains(id)) throw new IllegalStateException("the policy preempted " + id + ", which is not running");
        }
        for (Decision.Start s : d.starts()) {
            PendingJob j = waiting.get(s.jobId());
            if (j == null) throw new IllegalStateException("the policy started " + s.jobId() + ", which is not waiting");
            int g = s.placement().gpuCount();
            if (g > j.gpus() || g < j.minGpus()) throw new IllegalStateException("the policy gave " + j.id() + " " + g + " GPUs; it asked for " + j.gpus());
        }
    }
}
