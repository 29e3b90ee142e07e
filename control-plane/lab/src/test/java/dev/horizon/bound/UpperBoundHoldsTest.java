package dev.horizon.bound;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.horizon.allocator.PlanningContext;
import dev.horizon.allocator.SchedulingPolicy;
import dev.horizon.allocator.UnmetDemandCost;
import dev.horizon.allocator.model.Cluster;
import dev.horizon.allocator.model.Decision;
import dev.horizon.allocator.model.InferenceService;
import dev.horizon.allocator.model.PendingJob;
import dev.horizon.allocator.model.Placement;
import dev.horizon.allocator.model.RunningJob;
import dev.horizon.allocator.placement.NodeOrder;
import dev.horizon.api.Contract;
import dev.horizon.api.JobClass;
import dev.horizon.bench.BenchPolicies;
import dev.horizon.simulation.Scenario;
import dev.horizon.simulation.ServiceDemand;
import dev.horizon.simulation.SimJob;
import dev.horizon.simulation.SimResult;
import dev.horizon.simulation.Simulator;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The fluid bound bounds the metrics as they are defined, for any policy: on many small random scenarios (work heavier
 * and lighter than inference, bursty per-minute demand) no policy's priority-weighted output or utilization is above it,
 * not even one that starves inference to run heavier batch work.
 */
class UpperBoundHoldsTest {
    private static final int SCENARIOS = 12;

    @Test
    void noPolicyBeatsTheBoundOnSmallRandomScenarios() {
        Random rng = new Random(42);
        for (int i = 0; i < SCENARIOS; i++) {
            Scenario s = randomScenario(rng, i);
            FluidUpperBound.Bound bound = FluidUpperBound.of(s);
            List<SchedulingPolicy> policies = new ArrayList<>();
            BenchPolicies.NAMES.forEach(name -> {
                if (!name.equals("legacy") && !name.equals("quota")) policies.add(BenchPolicies.create(name));
            });
            policies.add(new InferenceStarver());
            for (SchedulingPolicy p : policies) {
                SimResult r = new Simulator(s, p).run(f -> { });
                String at = "scenario " + i + ", " + p.name();
                assertTrue(r.metrics().priorityWeightedOutput() <= bound.priorityWeightedOutput() * (1 + 1e-9) + 1e-6,
                        at + ": output " + r.metrics().priorityWeightedOutput() + " above the bound " + bound.priorityWeightedOutput());
                assertTrue(r.metrics().utilization() <= bound.utilization() + 1e-9,
                        at + ": utilization " + r.metrics().utilization() + " above the bound " + bound.utilization());
            }
        }
    }

    @Test
    void batchWorkHeavierThanInferenceMayTakeItsGpuTimeInTheBound() {
        Cluster two = Cluster.homogeneous(2, 2, "H100-80GB", 81_559);
        double[] demand = new double[4];
        java.util.Arrays.fill(demand, 2.0);
        SimJob heavy = new SimJob("heavy", "t", JobClass.TRAINING, 8, 2, 2, 0, 3600, null, Contract.defaultFor(JobClass.TRAINING));
        Scenario s = new Scenario("t", two, 900, 4, 4, List.of(heavy), List.of(new ServiceDemand(new InferenceService("i", "s", 4, 2), new double[0], demand)),
                List.of(), Map.of());
        assertEquals(8 * 2 * 1.0, FluidUpperBound.of(s).priorityWeightedOutput(), 1e-6, "an hour of 2 GPUs at weight 8, not inference at 4");
        SimResult starved = new Simulator(s, new InferenceStarver()).run(f -> { });
        assertEquals(16, starved.metrics().priorityWeightedOutput(), 1e-6, "a policy that starves inference reaches it");
    }

    private static Scenario randomScenario(Random rng, int i) {
        int perNode = rng.nextBoolean() ? 4 : 8;
        int gpus = perNode * (1 + rng.nextInt(2));
        int steps = 24;
        Cluster cluster = Cluster.homogeneous(gpus, perNode, "H100-80GB", 81_559);
        double[] history = new double[96 * 15], window = new double[steps * 15];
        double level = rng.nextDouble() * gpus * 0.4;
        for (int m = 0; m < history.length; m++) history[m] = Math.max(0, level * (0.5 + rng.nextGaussian() * 0.5));
        for (int m = 0; m < window.length; m++) window[m] = rng.nextDouble() < 0.1 ? level * 3 * rng.nextDouble() : Math.max(0, level * (0.5 + rng.nextGaussian() * 0.5));
        ServiceDemand svc = ServiceDemand.perMinute(new InferenceService("svc", "serving", 4, Math.max(2, gpus / 4)), history, window, 15);
        List<SimJob> jobs = new ArrayList<>();
        double[] weights = {1, 2, 4, 8, 16};
        for (int j = 0; j < 6 + rng.nextInt(20); j++) {
            int width = 1 << rng.nextInt(Integer.numberOfTrailingZeros(gpus));
            JobClass cls = rng.nextInt(4) == 0 ? JobClass.QUANTIZATION : JobClass.TRAINING;
            Contract c = cls == JobClass.QUANTIZATION ? new Contract(0, false, 0) : new Contract(rng.nextInt(3) * 900, true, rng.nextInt(300));
            jobs.add(new SimJob("j" + j, "team-" + rng.nextInt(3), cls, weights[rng.nextInt(weights.length)], width, width,
                    (long) (rng.nextDouble() * steps * 900 * 0.8), 600 + rng.nextInt(6 * 3600), null, c));
        }
        jobs.sort(Comparator.comparingLong(SimJob::arrivalSeconds).thenComparing(SimJob::id));
        return new Scenario("random-" + i, cluster, 900, steps, steps, jobs, List.of(svc), List.of(), Map.of());
    }

    /** Holds no GPU for inference and runs the heaviest work first: no SLO, but the most batch output it can get. */
    private static final class InferenceStarver implements SchedulingPolicy {
        public String name() {
            return "starver";
        }

        public Map<String, Integer> inferenceReservation(PlanningContext ctx) {
            return Map.of();
        }

        public boolean lendsReservation() {
            return false;
        }

        public Map<String, Integer> inferenceTargets(long now, Map<String, PlanningContext.ServiceView> services) {
            return Map.of();
        }

        public List<RunningJob> inferenceVictims(List<RunningJob> running, int gpus, long now, UnmetDemandCost cost) {
            return List.of();
        }

        public Decision decide(PlanningContext ctx) {
            Decision d = new Decision();
            List<PendingJob> queue = new ArrayList<>(ctx.pending());
            queue.sort(Comparator.comparingDouble(PendingJob::weight).reversed().thenComparing(PendingJob::id));
            for (PendingJob j : queue) {
                Placement p = ctx.occupancy().findBlock(j.gpus(), j.rules(), NodeOrder.BEST_FIT);
                if (p == null) continue;
                ctx.occupancy().occupy(p);
                d.start(j.id(), p, false);
            }
            return d;
        }
    }
}
