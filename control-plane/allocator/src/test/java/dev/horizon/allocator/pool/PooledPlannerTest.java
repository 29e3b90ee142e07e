package dev.horizon.allocator.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.horizon.allocator.PlanningContext;
import dev.horizon.allocator.model.Cluster;
import dev.horizon.allocator.model.Decision;
import dev.horizon.allocator.model.GpuNode;
import dev.horizon.allocator.model.InferenceService;
import dev.horizon.allocator.model.PendingJob;
import dev.horizon.allocator.model.Placement;
import dev.horizon.allocator.model.RunningJob;
import dev.horizon.allocator.placement.Occupancy;
import dev.horizon.allocator.policy.HorizonPolicy;
import dev.horizon.api.Contract;
import dev.horizon.api.JobClass;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class PooledPlannerTest {
    static final long NOW = 36_000;
    private static final Contract RESUMABLE = new Contract(1800, true, 120);
    private final PooledPlanner planner = new PooledPlanner(HorizonPolicy::new, 2);

    @AfterEach
    void close() {
        planner.close();
    }

    /** Nodes given as MODELxGPUS, in order. */
    private static Cluster cluster(String... nodes) {
        List<GpuNode> out = new ArrayList<>();
        for (String n : nodes) {
            String[] p = n.split("x");
            out.add(new GpuNode("node-" + out.size(), p[0], Integer.parseInt(p[1]), 40_000, "nvl-" + out.size()));
        }
        return new Cluster(out);
    }

    private static PendingJob job(String id, double weight, int gpus, long seconds) {
        return PendingJob.builder().id(id).team("t").jobClass(JobClass.TRAINING).weight(weight).gpus(gpus).arrivalSeconds(NOW - 60)
                .estimatedRemainingSeconds(seconds).contract(RESUMABLE).build();
    }

    private static PlanningContext ctx(Cluster c, List<PendingJob> pending) {
        return new PlanningContext(NOW, 900, 32, c, new Occupancy(c), List.of(), pending, Map.of());
    }

    private static PlanningContext copy(PlanningContext ctx) {
        return new PlanningContext(ctx.now(), ctx.stepSeconds(), ctx.horizonSteps(), ctx.cluster(), ctx.occupancy().copy(), ctx.running(),
                ctx.pending(), ctx.services(), ctx.fairShare());
    }

    private static Map<String, Decision.Start> startsById(Decision d) {
        Map<String, Decision.Start> out = new LinkedHashMap<>();
        d.starts().forEach(s -> out.put(s.jobId(), s));
        return out;
    }

    private static void assertSameDecision(Decision joint, Decision pooled) {
        assertEquals(startsById(joint), startsById(pooled));
        assertEquals(Set.copyOf(joint.preemptions()), Set.copyOf(pooled.preemptions()));
        assertEquals(Set.copyOf(joint.promotions()), Set.copyOf(pooled.promotions()));
        assertEquals(joint.waitReasons(), pooled.waitReasons());
        assertEquals(joint.waitRules(), pooled.waitRules());
        assertEquals(joint.plannedStarts(), pooled.plannedStarts());
        assertEquals(joint.planObjective(), pooled.planObjective(), 1e-6 * Math.abs(joint.planObjective()));
    }

    @Test
    void workThatAcceptsTwoModelsKeepsTheirPoolsTogether() {
        Cluster c = cluster("H100x8", "A100x8", "L40Sx4", "A100x8", "L4x4");
        PlanningContext ctx = ctx(c, List.of(job("h", 1, 8, 3600), job("a-or-l40s", 1, 4, 3600), job("l4", 1, 1, 3600)));
        PoolConstraints pinned = new PoolConstraints(
                Map.of("h", Set.of("H100"), "a-or-l40s", Set.of("A100", "L40S"), "l4", Set.of("L4")), Map.of());
        PoolPartition p = PoolPartition.of(ctx, pinned);
        assertEquals(List.of(List.of("H100"), List.of("A100", "L40S"), List.of("L4")), p.groups().stream().map(PoolPartition.Group::models).toList());
        assertEquals(List.of(1, 2, 3), java.util.Arrays.stream(p.groups().get(1).nodes()).boxed().toList(), "both A100 nodes and the L40S node");
        assertEquals(Set.of("a-or-l40s"), p.groups().get(1).pending());

        // a job that accepts any model ties every pool to every other
        List<PendingJob> withAny = new ArrayList<>(ctx.pending());
        withAny.add(job("anywhere", 1, 1, 3600));
        PoolPartition all = PoolPartition.of(ctx(c, withAny), pinned);
        assertEquals(1, all.groups().size());
        assertEquals(5, all.groups().get(0).nodes().length);

        // so does a running job spanning two pools, and an inference service accepting two models
        Occupancy o = new Occupancy(c);
        Placement span = new Placement(List.of(new Placement.Slice(0, 0, 8), new Placement.Slice(4, 0, 4)));
        o.occupy(span);
        RunningJob wide = new RunningJob("wide", "t", JobClass.TRAINING, 1, 12, NOW - 600, NOW - 600, NOW + 3600, RESUMABLE, span, false);
        InferenceService svc = new InferenceService("svc", "serving", 4, 2);
        PlanningContext tied = new PlanningContext(NOW, 900, 32, c, o, List.of(wide), ctx.pending(),
                Map.of("svc", new PlanningContext.ServiceView(svc, 0, 0, new double[32], 1)));
        PoolPartition t = PoolPartition.of(tied, new PoolConstraints(pinned.jobModels(), Map.of("svc", Set.of("L40S", "L4"))));
        assertEquals(List.of(List.of("H100", "A100", "L40S", "L4")), t.groups().stream().map(PoolPartition.Group::models).toList());
    }

    @Test
    void jobsNoPoolCanTakeWaitWithTheReason() {
        Cluster c = cluster("H100x8", "L4x4");
        PlanningContext ctx = ctx(c, List.of(job("b200", 1, 1, 3600), job("big-l4", 1, 8, 3600), job("ok", 1, 4, 3600)));
        PoolConstraints pinned = new PoolConstraints(Map.of("b200", Set.of("B200"), "big-l4", Set.of("L4"), "ok", Set.of("L4")), Map.of());
        Decision d = planner.decide(ctx, pinned).decision();
        assertTrue(d.waitReasons().get("b200").contains("no node pool has a GPU model it accepts [B200]; the pools are H100 (8 GPUs), L4 (4 GPUs)"),
                d.waitReasons().get("b200"));
        assertTrue(d.waitReasons().get("big-l4").contains("its pools L4 (4 GPUs) hold fewer GPUs than the 8 it needs at least"),
                d.waitReasons().get("big-l4"));
        assertEquals(List.of("ok"), d.starts().stream().map(Decision.Start::jobId).toList());
        assertEquals(1, d.starts().get(0).placement().slices().get(0).node(), "on the L4 node");
        assertFalse(ctx.occupancy().isFree(d.starts().get(0).placement()), "the start is applied to the whole cluster's occupancy");
    }

    /**
     * Where the joint plan already keeps every job on its own pool, planning the pools apart decides
     * exactly the same: same starts on the same GPUs, same waits with the same reasons, same objective.
     * (The H100 jobs are whole nodes wide: a narrower one would best-fit onto a 4-GPU L4 node.)
     */
    @Test
    void independentPoolsDecideWhatTheJointPlanDecidesWhenItStaysInPool() {
        Cluster c = cluster("H100x8", "H100x8", "L4x4", "L4x4", "L4x4", "L4x4");
        List<PendingJob> jobs = List.of(job("h8", 8, 8, 3600), job("h8b", 4, 8, 3600), job("h8-later", 1, 8, 3600),
                job("l4a", 8, 4, 8 * 3600), job("l4b", 4, 4, 8 * 3600), job("l2a", 4, 2, 8 * 3600), job("l2b", 2, 2, 8 * 3600),
                job("l1a", 2, 1, 8 * 3600), job("l1b", 1, 1, 8 * 3600));
        Map<String, Set<String>> models = new LinkedHashMap<>();
        jobs.forEach(j -> models.put(j.id(), Set.of(j.id().startsWith("h") ? "H100" : "L4")));
        // running work on the second L4 node (node 3): the pooled plan sees it as its group's node 1
        Occupancy o = new Occupancy(c);
        Placement held = new Placement(List.of(new Placement.Slice(3, 2, 2)));
        o.occupy(held);
        RunningJob l4run = new RunningJob("l4-running", "t", JobClass.TRAINING, 9, 2, NOW - 600, NOW - 600, NOW + 8 * 3600, RESUMABLE, held, false);
        PlanningContext ctx = new PlanningContext(NOW, 900, 32, c, o, List.of(l4run), jobs, Map.of());
        Decision joint = new HorizonPolicy().decide(copy(ctx));
        for (Decision.Start s : joint.starts()) {
            String model = c.nodes().get(s.placement().slices().get(0).node()).gpuModel();
            assertTrue(models.get(s.jobId()).contains(model), "precondition: the joint plan put " + s.jobId() + " on its own pool");
        }
        PooledPlanner.Result pooled = planner.decide(copy(ctx), new PoolConstraints(models, Map.of()));
        assertEquals(2, pooled.groups().size());
        assertTrue(joint.waitReasons().get("h8-later").startsWith("planned to start in about"), joint.waitReasons().get("h8-later"));
        assertSameDecision(joint, pooled.decision());
    }

    /**
     * How the two differ: the joint plan has no notion of GPU models, so when one pool is full it
     * starts that pool's jobs on another pool's idle GPUs; the pooled plan keeps them waiting for their
     * own model.
     */
    @Test
    void theJointPlanSpillsAnOverloadedPoolOntoAnotherModelAndThePooledPlanDoesNot() {
        Cluster c = cluster("H100x8", "L4x4", "L4x4");
        List<PendingJob> jobs = List.of(job("h4", 8, 4, 3600), job("l4a", 4, 4, 3600), job("l4b", 4, 4, 3600), job("l4c", 2, 4, 3600));
        Map<String, Set<String>> models = Map.of("h4", Set.of("H100"), "l4a", Set.of("L4"), "l4b", Set.of("L4"), "l4c", Set.of("L4"));
        PlanningContext ctx = ctx(c, jobs);
        Decision joint = new HorizonPolicy().decide(copy(ctx));
        assertEquals(0, startsById(joint).get("l4c").placement().slices().get(0).node(), "joint: the third L4 job runs on the H100 node");
        Decision pooled = planner.decide(copy(ctx), new PoolConstraints(models, Map.of())).decision();
        assertFalse(startsById(pooled).containsKey("l4c"));
        assertTrue(pooled.waitReasons().get("l4c").startsWith("planned to start in about 60 min"), pooled.waitReasons().get("l4c"));
    }

    /** With every pool in one group the pooled planner is the joint plan, on a busy moment with running work, fill and inference. */
    @Test
    void oneGroupIsExactlyTheJointDecision() {
        Random rng = new Random(7);
        Cluster c = cluster("H100x8", "A100x8", "H100x8", "A100x4", "H100x8", "L4x4");
        Occupancy o = new Occupancy(c);
        List<RunningJob> running = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            Placement p = o.findBlock(1 << rng.nextInt(3));
            if (p == null) break;
            o.occupy(p);
            running.add(new RunningJob("run-" + i, "t", JobClass.TRAINING, 1 + rng.nextInt(3), p.gpuCount(), NOW - 7200, NOW - 7200,
                    NOW + 1800 + rng.nextInt(7200), RESUMABLE, p, i % 3 == 0));
        }
        o.occupy(o.findBlock(1)); // an inference replica: busy without a running job
        o.drain(2); // an unhealthy node: its work leaves, nothing new lands there
        List<PendingJob> pending = new ArrayList<>();
        for (int i = 0; i < 30; i++) pending.add(job("job-" + i, 1 + rng.nextInt(8), 1 << rng.nextInt(4), 600 + rng.nextInt(6 * 3600)));
        double[] forecast = new double[32];
        for (int t = 0; t < 32; t++) forecast[t] = 1 + t / 8.0;
        InferenceService svc = new InferenceService("svc", "serving", 4, 2);
        PlanningContext ctx = new PlanningContext(NOW, 900, 32, c, o, running, pending,
                Map.of("svc", new PlanningContext.ServiceView(svc, 1, 1, forecast, 5)));
        Decision joint = new HorizonPolicy().decide(copy(ctx));
        PooledPlanner.Result pooled = planner.decide(copy(ctx), PoolConstraints.none());
        assertEquals(1, pooled.groups().size());
        assertFalse(joint.starts().isEmpty());
        assertSameDecision(joint, pooled.decision());
        // and the group's own view of the moment (busy GPUs, drains, running work, services) plans the same
        PlanningContext whole = copy(ctx);
        PoolPartition.Group all = PoolPartition.of(whole, PoolConstraints.none()).groups().get(0);
        assertSameDecision(joint, new HorizonPolicy().decide(PooledPlanner.restrict(whole, all)));
    }
}
