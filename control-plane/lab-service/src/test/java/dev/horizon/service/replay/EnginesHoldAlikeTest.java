package dev.horizon.service.replay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import dev.horizon.allocator.PlanningContext;
import dev.horizon.allocator.SchedulingPolicy;
import dev.horizon.allocator.UnmetDemandCost;
import dev.horizon.allocator.model.Cluster;
import dev.horizon.allocator.model.Decision;
import dev.horizon.allocator.model.GpuNode;
import dev.horizon.allocator.model.InferenceService;
import dev.horizon.allocator.model.PlacementRules;
import dev.horizon.allocator.model.RunningJob;
import dev.horizon.allocator.policy.HorizonPolicy;
import dev.horizon.api.Contract;
import dev.horizon.api.JobClass;
import dev.horizon.service.ReplayProfile;
import dev.horizon.simulation.Scenario;
import dev.horizon.simulation.ServiceDemand;
import dev.horizon.simulation.SimJob;
import dev.horizon.simulation.SimResult;
import dev.horizon.simulation.Simulator;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Nodes held for a wide job reach the world's serving fleet through the service as through the simulator: the service
 * engine hands the fleet its own plan's held nodes. A store of its own: a replay needs an empty one.
 */
@QuarkusTest
@TestProfile(EnginesHoldAlikeTest.OwnStore.class)
class EnginesHoldAlikeTest {
    public static class OwnStore extends ReplayProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            Map<String, String> out = new HashMap<>(super.getConfigOverrides());
            out.put("quarkus.datasource.jdbc.url", "jdbc:h2:mem:replay-holds;DB_CLOSE_DELAY=-1");
            return out;
        }
    }

    @Inject
    ServiceEngine engine;

    /**
     * Without budgets, a 16-GPU job of weight 8 waits behind small work on four nodes, so nodes are held for it (`WideHold`),
     * and the inference service keeps off them as it grows and shrinks: the service engine hands the world's serving fleet
     * its own plan's held nodes, so every job still runs alike.
     */
    @Test
    void nodesHeldForAWideJobAreKeptFreeOfInferenceAlikeThroughTheService() {
        Scenario scenario = wideHoldScenario();
        SimResult simulator = new Simulator(scenario, new HorizonPolicy()).run(f -> { });
        SimResult heldNodesIgnored = new Simulator(scenario, new HeldNodesDropped(new HorizonPolicy())).run(f -> { });
        assertNotEquals(EnginesAgreeTest.runs(simulator), EnginesAgreeTest.runs(heldNodesIgnored), "the scenario is one where the held nodes move inference, so the comparison covers them");
        SimResult service = new Simulator(scenario, engine.replaying(scenario)).run(f -> { });
        assertEquals(EnginesAgreeTest.runs(simulator), EnginesAgreeTest.runs(service));
        assertEquals(simulator.metrics().priorityWeightedOutput(), service.metrics().priorityWeightedOutput(), 1e-6);
    }

    /** Horizon's decisions with the nodes held for a wide job left out, as a serving system that ignored them would see them. */
    private record HeldNodesDropped(HorizonPolicy policy) implements SchedulingPolicy {
        @Override
        public String name() {
            return policy.name();
        }

        @Override
        public Decision decide(PlanningContext ctx) {
            Decision d = policy.decide(ctx);
            d.holdForWideJob(List.of());
            return d;
        }

        @Override
        public Map<String, Integer> inferenceReservation(PlanningContext ctx) {
            return policy.inferenceReservation(ctx);
        }

        @Override
        public boolean lendsReservation() {
            return policy.lendsReservation();
        }

        @Override
        public Map<String, Integer> inferenceTargets(long now, Map<String, PlanningContext.ServiceView> services) {
            return policy.inferenceTargets(now, services);
        }

        @Override
        public double unmetInferencePenalty() {
            return policy.unmetInferencePenalty();
        }

        @Override
        public List<RunningJob> inferenceVictims(List<RunningJob> running, int gpusNeeded, long now, UnmetDemandCost cost) {
            return policy.inferenceVictims(running, gpusNeeded, now, cost);
        }
    }

    /** Four nodes of 8 H100s, small work every 5 minutes, three 16-GPU jobs of weight 8, an inference service swinging 0.5-5.5 GPUs. */
    static Scenario wideHoldScenario() {
        List<GpuNode> nodes = new ArrayList<>();
        for (int n = 0; n < 4; n++) nodes.add(new GpuNode("node-" + n, "H100-80GB", 8, 81_559, null));
        Random rng = new Random(3);
        Contract resumable = new Contract(1800, true, 120);
        List<SimJob> jobs = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            jobs.add(new SimJob("wide-" + i, "t", JobClass.TRAINING, 8, 16, 16, 3600 + 7200L * i, 4 * 3600, null, resumable, null,
                    new PlacementRules(Set.of(), 8, true, PlacementRules.Topology.ANY)));
        }
        for (int i = 0; i < 96; i++) {
            jobs.add(new SimJob("small-" + i, "t", JobClass.TRAINING, 1 + rng.nextInt(2), 1 + rng.nextInt(2), 1, 300L * i, 3600 + 900L * rng.nextInt(9), null,
                    resumable, null, new PlacementRules(Set.of(), 1, false, PlacementRules.Topology.ANY)));
        }
        double[] history = new double[7 * 96];
        for (int k = 0; k < history.length; k++) history[k] = 3 + 2.5 * Math.sin(2 * Math.PI * k / 32);
        int windowSteps = 32;
        ServiceDemand chat = new ServiceDemand(new InferenceService("chat", "t", 10, 2), history, Arrays.copyOfRange(history, 0, windowSteps));
        return new Scenario("wide-hold", new Cluster(nodes), 900, windowSteps, 96, jobs, List.of(chat), List.of(), Map.of("name", "wide-hold"), null, null,
                List.of());
    }
}
