package dev.horizon.service.replay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.horizon.allocator.model.Cluster;
import dev.horizon.allocator.model.GpuNode;
import dev.horizon.allocator.model.InferenceService;
import dev.horizon.allocator.model.PlacementRules;
import dev.horizon.allocator.model.SliceRequest;
import dev.horizon.allocator.policy.HorizonPolicy;
import dev.horizon.api.Contract;
import dev.horizon.api.JobClass;
import dev.horizon.fairshare.BudgetTree;
import dev.horizon.service.ReplayProfile;
import dev.horizon.simulation.Scenario;
import dev.horizon.simulation.Segment;
import dev.horizon.simulation.ServiceDemand;
import dev.horizon.simulation.SimJob;
import dev.horizon.simulation.SimResult;
import dev.horizon.simulation.Simulator;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * Issue 15's must-show: on a small scenario (heterogeneous nodes in two NVLink domains, gangs of 4-GPU pods, same-node
 * and A100-only work, time-slicing shares, two teams with budgets, one inference service), every job starts at the same
 * time on the same GPUs when the control plane makes the decisions (replayed through its store on a virtual clock) as
 * when the simulator calls the allocator directly.
 */
@QuarkusTest
@TestProfile(ReplayProfile.class)
class EnginesAgreeTest {
    @Inject
    ServiceEngine engine;

    @Test
    void everyJobStartsAtTheSameTimeOnTheSameGpusThroughTheServiceAsThroughTheSimulator() {
        Scenario scenario = scenario();
        SimResult simulator = new Simulator(scenario, new HorizonPolicy()).run(f -> { });
        SimResult service = new Simulator(scenario, engine.replaying(scenario)).run(f -> { });

        Map<String, List<String>> expected = runs(simulator), actual = runs(service);
        assertTrue(expected.values().stream().filter(r -> !r.isEmpty()).count() >= 25, "most jobs ran: " + expected);
        assertTrue(simulator.metrics().preemptions() > 0, "the scenario makes the policy preempt, so that path is compared too");
        for (String job : expected.keySet()) assertEquals(expected.get(job), actual.get(job), "job " + job + " ran differently through the service");
        assertEquals(expected.keySet(), actual.keySet());
        assertEquals(simulator.audit(), service.audit(), "the audit finds the same in both runs");
        assertEquals(simulator.metrics().priorityWeightedOutput(), service.metrics().priorityWeightedOutput(), 1e-6);
    }

    @Test
    void aScenarioWhoseBudgetsAgeWorkIsRefusedByAControlPlaneThatDoesNot() {
        Scenario plain = scenario();
        Scenario aged = plain.withBudgets(plain.budgets().withAgeDoubling(12 * 3600), plain.description());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> engine.replaying(aged));
        assertTrue(e.getMessage().contains("ages waiting work every 12 h (0: never) and this control plane every 0 h: run the replay with"
                + " HORIZON_PLANNER_AGE_DOUBLING_HOURS=12"), e.getMessage());
    }

    /** Per job, each run as start, end, GPUs and whether it ran as fill. */
    static Map<String, List<String>> runs(SimResult r) {
        Map<String, List<String>> out = new TreeMap<>();
        for (Segment s : r.segments()) {
            List<String> runs = out.computeIfAbsent(s.jobId(), k -> new ArrayList<>());
            if (s.started()) runs.add(s.startSeconds() + "-" + s.endSeconds() + " " + s.nodes() + (s.fill() ? " fill" : ""));
        }
        return out;
    }

    static Scenario scenario() {
        Cluster cluster = new Cluster(List.of(new GpuNode("node-0", "H100-80GB", 8, 81_559, "nvl-a"), new GpuNode("node-1", "H100-80GB", 8, 81_559, "nvl-a"),
                new GpuNode("node-2", "A100-80GB", 8, 81_920, "nvl-b")));
        BudgetTree budgets = new BudgetTree(List.of(new BudgetTree.Budget("vision", null, 0.6), new BudgetTree.Budget("speech", null, 0.4)));
        Random rng = new Random(15);
        List<SimJob> jobs = new ArrayList<>();
        for (int i = 0; i < 36; i++) {
            String team = i % 3 == 0 ? "speech" : "vision";
            JobClass cls = List.of(JobClass.TRAINING, JobClass.BATCH_INFERENCE, JobClass.QUANTIZATION).get(i % 3);
            long arrival = 600L * i + rng.nextInt(300);
            long duration = 1800 + 300L * rng.nextInt(18);
            double weight = 1 + rng.nextInt(4);
            // resumable with a short minimum runtime, so fair share and value preemption have work they may take back
            Contract contract = new Contract(600, true, 60);
            SimJob job = switch (i % 6) {
                case 0 -> new SimJob("gang-" + i, team, cls, weight, 8, 8, arrival, duration, null, contract, null,
                        new PlacementRules(Set.of(), 4, true, PlacementRules.Topology.SAME_NVLINK_DOMAIN));
                case 1 -> new SimJob("a100-" + i, team, cls, weight, 4, 4, arrival, duration, null, contract, null,
                        new PlacementRules(Set.of("A100-80GB"), 4, true, PlacementRules.Topology.ANY));
                case 2 -> new SimJob("share-" + i, team, JobClass.BATCH_INFERENCE, weight, 2, 2, arrival, duration, null, contract,
                        SliceRequest.timeSlice(500, 20_000), null);
                case 3 -> new SimJob("pair-" + i, team, cls, weight, 4, 4, arrival, duration, null, contract, null,
                        new PlacementRules(Set.of(), 2, true, PlacementRules.Topology.SAME_NODE));
                default -> new SimJob("one-" + i, team, cls, weight, 1 + rng.nextInt(2), 1, arrival, duration, null, contract, null,
                        new PlacementRules(Set.of(), 1, false, PlacementRules.Topology.ANY));
            };
            jobs.add(job);
        }
        double[] history = new double[7 * 96];
        for (int k = 0; k < history.length; k++) history[k] = 2 + 2 * Math.sin(2 * Math.PI * k / 96);
        int windowSteps = 32;
        double[] window = Arrays.copyOfRange(history, 0, windowSteps);
        ServiceDemand chat = new ServiceDemand(new InferenceService("chat", "vision", 6, 2), history, window);
        List<SimJob> past = List.of(new SimJob("past-0", "vision", JobClass.TRAINING, 1, 4, 4, -7200, 3600, null, Contract.defaultFor(JobClass.TRAINING)));
        return new Scenario("engines-agree", cluster, 900, windowSteps, 96, jobs, List.of(chat), past, Map.of("name", "engines-agree"), budgets, null,
                List.of());
    }
}
