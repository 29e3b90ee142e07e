package dev.horizon.service.replay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.horizon.allocator.model.Cluster;
import dev.horizon.allocator.model.GpuNode;
import dev.horizon.allocator.policy.HorizonPolicy;
import dev.horizon.api.Contract;
import dev.horizon.api.JobClass;
import dev.horizon.service.ReplayProfile;
import dev.horizon.simulation.Scenario;
import dev.horizon.simulation.SimJob;
import dev.horizon.simulation.Simulator;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Jobs alike in all but their ids: the allocator breaks the tie by id, so the service must keep the scenario's ids for
 * its decisions to be the simulator's (with ids of its own, random, the replay started them in an order of its own, and
 * another on the next run). A store of its own: a replay needs an empty one.
 */
@QuarkusTest
@TestProfile(EnginesBreakTiesAlikeTest.OwnStore.class)
class EnginesBreakTiesAlikeTest {
    public static class OwnStore extends ReplayProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            Map<String, String> out = new HashMap<>(super.getConfigOverrides());
            out.put("quarkus.datasource.jdbc.url", "jdbc:h2:mem:replay-ties;DB_CLOSE_DELAY=-1");
            return out;
        }
    }

    @Inject
    ServiceEngine engine;

    @Test
    void equalJobsThatArriveTogetherStartInTheSameOrderThroughTheService() {
        List<SimJob> alike = new ArrayList<>();
        for (int i = 0; i < 6; i++) alike.add(new SimJob("tie-" + i, "vision", JobClass.TRAINING, 1, 8, 8, 0, 1800, null, Contract.defaultFor(JobClass.TRAINING)));
        Scenario scenario = new Scenario("ties", new Cluster(List.of(new GpuNode("node-0", "H100-80GB", 8, 81_559, "nvl-a"))), 900, 16, 96, alike,
                List.of(), List.of(), Map.of("name", "ties"), null, null, List.of());
        Map<String, List<String>> expected = EnginesAgreeTest.runs(new Simulator(scenario, new HorizonPolicy()).run(f -> { }));
        assertTrue(expected.get("tie-0").get(0).startsWith("0-1800 "), "the simulator starts the lowest id first: " + expected);
        assertEquals(expected, EnginesAgreeTest.runs(new Simulator(scenario, engine.replaying(scenario)).run(f -> { })));
    }
}
