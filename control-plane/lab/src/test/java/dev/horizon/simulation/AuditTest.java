package dev.horizon.simulation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.horizon.allocator.PlanningContext;
import dev.horizon.allocator.SchedulingPolicy;
import dev.horizon.allocator.UnmetDemandCost;
import dev.horizon.allocator.actions.reclaim.Reclaim;
import dev.horizon.allocator.model.Cluster;
import dev.horizon.allocator.model.Decision;
import dev.horizon.allocator.model.GpuNode;
import dev.horizon.allocator.model.GpuShare;
import dev.horizon.allocator.model.InferenceService;
import dev.horizon.allocator.model.Placement;
import dev.horizon.allocator.model.PlacementRules;
import dev.horizon.allocator.model.RunningJob;
import dev.horizon.allocator.model.SliceRequest;
import dev.horizon.allocator.policy.HorizonPolicy;
import dev.horizon.api.Contract;
import dev.horizon.api.JobClass;
import dev.horizon.fairshare.BudgetTree;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/** Each of the audit's rules, broken on purpose by a policy written to break it, and its exemptions. */
class AuditTest {
    private static final Cluster EIGHT = Cluster.homogeneous(8, 8, "H100-80GB", 81_559);
    private static final Contract HALF_HOUR = new Contract(1800, true, 60);

    private static Scenario scenario(Cluster cluster, List<SimJob> jobs, List<ServiceDemand> services, List<Scenario.NodeDrain> drains) {
        return new Scenario("t", cluster, 900, 8, 8, jobs, services, List.of(), Map.of(), null, null, drains);
    }

    private static SimJob job(String id, int gpus, Contract c) {
        return new SimJob(id, "t", JobClass.TRAINING, 1, gpus, gpus, 0, 7200, null, c);
    }

    /** A policy that commits whatever {@code rogue} decides, reserving for inference but holding nothing (lending all when {@code lends}). */
    private static SchedulingPolicy rogue(boolean lends, int reserve, Function<PlanningContext, Decision> rogue) {
        return new SchedulingPolicy() {
            public String name() {
                return "rogue";
            }

            public Map<String, Integer> inferenceReservation(PlanningContext ctx) {
                return Map.of("svc", reserve);
            }

            public boolean lendsReservation() {
                return lends;
            }

            public Decision decide(PlanningContext ctx) {
                return rogue.apply(ctx);
            }

            public Map<String, Integer> inferenceTargets(long now, Map<String, PlanningContext.ServiceView> services) {
                return Map.of("svc", 0);
            }

            public List<RunningJob> inferenceVictims(List<RunningJob> running, int gpus, long now, UnmetDemandCost cost) {
                return Reclaim.victims(running, gpus, now, cost);
            }
        };
    }

    /** Starts every waiting job on the first free block, as fill or not. */
    private static Decision startAll(PlanningContext ctx, boolean fill) {
        Decision d = new Decision();
        ctx.pending().forEach(j -> {
            Placement p = ctx.occupancy().findBlock(j.gpus());
            if (p == null) return;
            ctx.occupancy().occupy(p);
            d.start(j.id(), p, fill);
        });
        return d;
    }

    private static int count(SimResult r, Audit.Kind kind) {
        return r.audit().byKind().getOrDefault(kind.key, 0);
    }

    @Test
    void workPreemptedInsideItsMinimumRuntimeIsAViolationButFillIsCountedApart() {
        Function<Boolean, SchedulingPolicy> preemptAtFirstStep = fill -> rogue(true, 0, ctx -> {
            if (ctx.now() == 900 && !ctx.running().isEmpty()) {
                Decision d = new Decision();
                d.preempt("a");
                return d;
            }
            return ctx.now() < 900 ? startAll(ctx, fill) : new Decision();
        });
        Scenario s = scenario(EIGHT, List.of(job("a", 2, HALF_HOUR)), List.of(), List.of());
        SimResult protectedWork = new Simulator(s, preemptAtFirstStep.apply(false)).run(f -> { });
        assertEquals(1, count(protectedWork, Audit.Kind.PREEMPTED_INSIDE_MIN_RUNTIME), protectedWork.audit().toString());
        SimResult fill = new Simulator(s, preemptAtFirstStep.apply(true)).run(f -> { });
        assertTrue(fill.audit().clean(), fill.audit().toString());
        assertEquals(1, fill.audit().exempt().get(Audit.FILL_PREEMPTED_BY_POLICY));
    }

    @Test
    void inferenceTakingProtectedWorkInsideItsMinimumRuntimeIsAViolation() {
        double[] demand = {0, 4, 4, 4, 4, 4, 4, 4};
        ServiceDemand svc = new ServiceDemand(new InferenceService("svc", "s", 4, 8), new double[96], demand);
        Scenario s = scenario(EIGHT, List.of(job("a", 8, HALF_HOUR)), List.of(svc), List.of());
        SimResult r = new Simulator(s, new RogueInference(false)).run(f -> { });
        assertEquals(1, count(r, Audit.Kind.PREEMPTED_INSIDE_MIN_RUNTIME), r.audit().toString());
        SimResult fill = new Simulator(s, new RogueInference(true)).run(f -> { });
        assertTrue(fill.audit().clean(), fill.audit().toString());
        assertEquals(1, fill.audit().exempt().get(Audit.FILL_RECLAIMED_BY_INFERENCE), fill.audit().toString());
    }

    /** Sizes inference from the demand of the minute to come (never observed) and hands it any running work. */
    private static final class RogueInference implements SchedulingPolicy {
        private final boolean fill;

        RogueInference(boolean fill) {
            this.fill = fill;
        }

        public String name() {
            return "rogue";
        }

        public Map<String, Integer> inferenceReservation(PlanningContext ctx) {
            return Map.of("svc", 0);
        }

        public boolean lendsReservation() {
            return true;
        }

        public Decision decide(PlanningContext ctx) {
            return startAll(ctx, fill);
        }

        public Map<String, Integer> inferenceTargets(long now, Map<String, PlanningContext.ServiceView> services) {
            return Map.of("svc", now >= 900 ? 4 : 0);
        }

        public List<RunningJob> inferenceVictims(List<RunningJob> running, int gpus, long now, UnmetDemandCost cost) {
            return running;
        }
    }

    @Test
    void fillThatCannotResumeOrFromAPolicyThatDoesNotLendIsAViolation() {
        Scenario s = scenario(EIGHT, List.of(job("q", 1, new Contract(0, false, 0)), job("r", 1, HALF_HOUR)), List.of(), List.of());
        SimResult lending = new Simulator(s, rogue(true, 0, ctx -> startAll(ctx, true))).run(f -> { });
        assertEquals(1, count(lending, Audit.Kind.NON_RESUMABLE_FILL), lending.audit().toString());
        SimResult notLending = new Simulator(s, rogue(false, 0, ctx -> startAll(ctx, true))).run(f -> { });
        assertEquals(2, count(notLending, Audit.Kind.FILL_WITHOUT_LENDING), notLending.audit().toString());
    }

    @Test
    void protectedWorkInsideTheInferenceReservationIsAViolation() {
        ServiceDemand svc = new ServiceDemand(new InferenceService("svc", "s", 4, 8), new double[96], new double[8]);
        Scenario s = scenario(EIGHT, List.of(job("a", 4, HALF_HOUR), job("b", 2, HALF_HOUR)), List.of(svc), List.of());
        SimResult within = new Simulator(s, rogue(true, 2, ctx -> startAll(ctx, false))).run(f -> { });
        assertTrue(within.audit().clean(), "6 protected beside a reservation of 2: " + within.audit());
        SimResult inside = new Simulator(s, rogue(true, 4, ctx -> startAll(ctx, false))).run(f -> { });
        assertEquals(1, count(inside, Audit.Kind.PROTECTED_IN_RESERVATION), inside.audit().toString());
    }

    @Test
    void workStartedOnADrainedNodeIsAViolation() {
        Cluster two = Cluster.homogeneous(16, 8, "H100-80GB", 81_559);
        Scenario s = scenario(two, List.of(job("a", 2, HALF_HOUR)), List.of(), List.of(new Scenario.NodeDrain(0, 0)));
        SimResult onDrained = new Simulator(s, rogue(false, 0, ctx -> {
            Decision d = new Decision();
            ctx.pending().forEach(j -> d.start(j.id(), new Placement(List.of(new Placement.Slice(0, 0, 2))), false));
            return d;
        })).run(f -> { });
        assertEquals(1, count(onDrained, Audit.Kind.ON_DRAINED_NODE), onDrained.audit().toString());
        SimResult kept = new Simulator(s, rogue(false, 0, ctx -> startAll(ctx, false))).run(f -> { });
        assertTrue(kept.audit().clean(), "findBlock never picks a drained node: " + kept.audit());
    }

    @Test
    void aWrongGpuModelOrABrokenTopologyIsAViolation() {
        Cluster mixed = new Cluster(List.of(new GpuNode("h", "H100-80GB", 4, 81_559, "nvl-0"), new GpuNode("a", "A100-80GB", 4, 81_920, "nvl-1")));
        PlacementRules a100 = new PlacementRules(Set.of("A100-80GB"), 2, true, PlacementRules.Topology.SAME_NODE);
        PlacementRules oneNode = new PlacementRules(Set.of(), 4, true, PlacementRules.Topology.SAME_NODE);
        SimJob wantsA100 = new SimJob("a", "t", JobClass.TRAINING, 1, 2, 2, 0, 3600, null, HALF_HOUR, null, a100);
        SimJob wantsOneNode = new SimJob("b", "t", JobClass.TRAINING, 1, 4, 4, 0, 3600, null, HALF_HOUR, null, oneNode);
        Scenario s = scenario(mixed, List.of(wantsA100, wantsOneNode), List.of(), List.of());
        SimResult r = new Simulator(s, rogue(false, 0, ctx -> {
            Decision d = new Decision();
            if (ctx.now() > 0) return d;
            d.start("a", new Placement(List.of(new Placement.Slice(0, 0, 2))), false);
            d.start("b", new Placement(List.of(new Placement.Slice(0, 2, 2), new Placement.Slice(1, 0, 2))), false);
            return d;
        })).run(f -> { });
        assertEquals(1, count(r, Audit.Kind.WRONG_GPU_TYPE), r.audit().toString());
        assertEquals(1, count(r, Audit.Kind.BROKEN_TOPOLOGY), r.audit().toString());
        SimResult byRules = new Simulator(s, rogue(false, 0, ctx -> {
            Decision d = new Decision();
            ctx.pending().forEach(j -> {
                Placement p = ctx.occupancy().findBlock(j.gpus(), j.rules(), dev.horizon.allocator.placement.NodeOrder.BEST_FIT);
                if (p == null) return;
                ctx.occupancy().occupy(p);
                d.start(j.id(), p, false);
            });
            return d;
        })).run(f -> { });
        assertTrue(byRules.audit().clean(), byRules.audit().toString());
    }

    @Test
    void aSliceOnAWrongGpuModelOrFractionalReplicasAcrossNodesAreViolations() {
        Cluster mixed = new Cluster(List.of(new GpuNode("h", "H100-80GB", 4, 81_559, "nvl-0"), new GpuNode("a", "A100-80GB", 4, 81_920, "nvl-1")));
        SliceRequest onA100 = new SliceRequest(null, 500, 10_000, Set.of("A100-80GB"));
        SimJob wantsA100 = new SimJob("s", "t", JobClass.BATCH_INFERENCE, 1, 1, 1, 0, 3600, null, HALF_HOUR, onA100, null);
        SimJob wantsOneNode = new SimJob("p", "t", JobClass.BATCH_INFERENCE, 1, 2, 2, 0, 3600, null, HALF_HOUR, SliceRequest.timeSlice(500, 10_000),
                new PlacementRules(Set.of(), 0, true, PlacementRules.Topology.SAME_NODE));
        Scenario s = scenario(mixed, List.of(wantsA100, wantsOneNode), List.of(), List.of());
        GpuShare half = GpuShare.timeSlice(500, 10_000);
        SimResult r = new Simulator(s, rogue(false, 0, ctx -> {
            Decision d = new Decision();
            if (ctx.now() > 0) return d;
            d.start("s", new Placement(List.of(new Placement.Slice(0, 0, 1, half))), false);
            d.start("p", new Placement(List.of(new Placement.Slice(0, 1, 1, half), new Placement.Slice(1, 0, 1, half))), false);
            return d;
        })).run(f -> { });
        assertEquals(1, count(r, Audit.Kind.WRONG_GPU_TYPE), r.audit().toString());
        assertEquals(1, count(r, Audit.Kind.BROKEN_TOPOLOGY), r.audit().toString());
        SimResult horizon = new Simulator(s, new HorizonPolicy()).run(f -> { });
        assertEquals(2, horizon.segments().stream().filter(Segment::started).count(), "Horizon places both: " + horizon.segments());
        assertTrue(horizon.audit().clean(), horizon.audit().toString());
    }

    /** Two teams with budgets beside an inference service, gangs and models: h15svc's engines-agree scenario (whole GPUs only). */
    static Scenario fairShareBesideInference(long seed) {
        return fairShareBesideInference(seed, false);
    }

    /** With {@code shares}, every sixth job is two time-slicing replicas of half a GPU (the engines-agree scenario itself). */
    static Scenario fairShareBesideInference(long seed, boolean shares) {
        Cluster cluster = new Cluster(List.of(new GpuNode("node-0", "H100-80GB", 8, 81_559, "nvl-a"), new GpuNode("node-1", "H100-80GB", 8, 81_559, "nvl-a"),
                new GpuNode("node-2", "A100-80GB", 8, 81_920, "nvl-b")));
        BudgetTree budgets = new BudgetTree(List.of(new BudgetTree.Budget("vision", null, 0.6), new BudgetTree.Budget("speech", null, 0.4)));
        java.util.Random rng = new java.util.Random(seed);
        List<SimJob> jobs = new java.util.ArrayList<>();
        for (int i = 0; i < 36; i++) {
            String team = i % 3 == 0 ? "speech" : "vision";
            JobClass cls = List.of(JobClass.TRAINING, JobClass.BATCH_INFERENCE, JobClass.QUANTIZATION).get(i % 3);
            long arrival = 600L * i + rng.nextInt(300);
            long duration = 1800 + 300L * rng.nextInt(18);
            double weight = 1 + rng.nextInt(4);
            Contract contract = new Contract(600, true, 60);
            jobs.add(switch (i % 6) {
                case 0 -> new SimJob("gang-" + i, team, cls, weight, 8, 8, arrival, duration, null, contract, null,
                        new PlacementRules(Set.of(), 4, true, PlacementRules.Topology.SAME_NVLINK_DOMAIN));
                case 1 -> new SimJob("a100-" + i, team, cls, weight, 4, 4, arrival, duration, null, contract, null,
                        new PlacementRules(Set.of("A100-80GB"), 4, true, PlacementRules.Topology.ANY));
                case 2 -> shares ? new SimJob("share-" + i, team, JobClass.BATCH_INFERENCE, weight, 2, 2, arrival, duration, null, contract,
                        SliceRequest.timeSlice(500, 20_000), null) : one(i, team, cls, weight, arrival, duration, contract, rng);
                case 3 -> new SimJob("pair-" + i, team, cls, weight, 4, 4, arrival, duration, null, contract, null,
                        new PlacementRules(Set.of(), 2, true, PlacementRules.Topology.SAME_NODE));
                default -> one(i, team, cls, weight, arrival, duration, contract, rng);
            });
        }
        double[] history = new double[7 * 96];
        for (int k = 0; k < history.length; k++) history[k] = 2 + 2 * Math.sin(2 * Math.PI * k / 96);
        ServiceDemand chat = new ServiceDemand(new InferenceService("chat", "vision", 6, 2), history, java.util.Arrays.copyOfRange(history, 0, 32));
        Scenario s = new Scenario("engines-agree", cluster, 900, 32, 96, jobs, List.of(chat), List.of(), Map.of(), budgets, null, List.of());
        return s;
    }

    private static SimJob one(int i, String team, JobClass cls, double weight, long arrival, long duration, Contract contract, java.util.Random rng) {
        return new SimJob("one-" + i, team, cls, weight, 1 + rng.nextInt(2), 1, arrival, duration, null, contract, null,
                new PlacementRules(Set.of(), 1, false, PlacementRules.Topology.ANY));
    }

    /**
     * Seeds 2 and 6 (and the slices of seed 15) broke it while running work fair share re-weights to fill was left out
     * of the protected room: it stands protected until it is preempted, so a start or promotion beside it entered the
     * reservation.
     */
    @Test
    void horizonUnderFairShareStartsBudgetedWorkAsFillWhereTheReservationHasNoRoomForIt() {
        for (long seed : new long[] {1, 2, 4, 6}) {
            SimResult r = new Simulator(fairShareBesideInference(seed), new HorizonPolicy()).run(f -> { });
            assertTrue(r.audit().clean(), "seed " + seed + ": " + r.audit());
        }
        SimResult withShares = new Simulator(fairShareBesideInference(15, true), new HorizonPolicy()).run(f -> { });
        assertTrue(withShares.audit().clean(), "seed 15 with shares: " + withShares.audit());
    }
}
