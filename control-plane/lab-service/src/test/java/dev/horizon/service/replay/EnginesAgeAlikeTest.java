package dev.horizon.service.replay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import dev.horizon.allocator.policy.HorizonPolicy;
import dev.horizon.service.ReplayProfile;
import dev.horizon.simulation.Scenario;
import dev.horizon.simulation.Simulator;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Budgets that age waiting work decide alike through both engines: the setting reaches the service's plans as the simulator's. */
@QuarkusTest
@TestProfile(EnginesAgeAlikeTest.AgeingStore.class)
class EnginesAgeAlikeTest {
    /** A store of its own (a replay needs an empty one), ageing waiting work every hour. */
    public static class AgeingStore extends ReplayProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            Map<String, String> out = new HashMap<>(super.getConfigOverrides());
            out.put("quarkus.datasource.jdbc.url", "jdbc:h2:mem:replay-ageing;DB_CLOSE_DELAY=-1");
            out.put("horizon.planner.age-doubling-hours", "1");
            return out;
        }
    }

    @Inject
    ServiceEngine engine;

    @Test
    void ageingChangesTheScheduleAndBothEnginesRunTheSameOne() {
        Scenario plain = EnginesAgreeTest.scenario();
        Scenario aged = plain.withBudgets(plain.budgets().withAgeDoubling(3600), plain.description());
        Map<String, List<String>> expected = EnginesAgreeTest.runs(new Simulator(aged, new HorizonPolicy()).run(f -> { }));
        assertNotEquals(EnginesAgreeTest.runs(new Simulator(plain, new HorizonPolicy()).run(f -> { })), expected,
                "an hour's ageing moves some job in this scenario, so the comparison reaches the rule");
        assertEquals(expected, EnginesAgreeTest.runs(new Simulator(aged, engine.replaying(aged)).run(f -> { })));
    }
}
