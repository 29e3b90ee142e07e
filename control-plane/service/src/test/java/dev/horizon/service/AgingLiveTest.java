package dev.horizon.service;

import static dev.horizon.service.Api.ADMIN;
import static dev.horizon.service.Api.as;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.horizon.service.clock.ServiceClock;
import dev.horizon.service.planning.Planner;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** horizon.planner.age-doubling-hours reaches the plan: work that waited ranks higher in its team's budget. */
@QuarkusTest
@TestProfile(AgingLiveTest.AgingProfile.class)
class AgingLiveTest {
    /** A virtual clock on a store of its own, ageing waiting work every hour. */
    public static class AgingProfile implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("quarkus.datasource.jdbc.url", "jdbc:h2:mem:aging;DB_CLOSE_DELAY=-1", "horizon.clock", "virtual",
                    "horizon.nodes", "8xH100-80GB,8xA100-80GB", "horizon.planner.age-doubling-hours", "1");
        }
    }

    @Inject
    Planner planner;
    @Inject
    ServiceClock clock;

    @Test
    void aJobThatWaitedAnHourTakesItsTeamsRoomAheadOfItsTeamsNewerWorkOfAHigherPriority() {
        Api.budget("vision", 0.5);
        Api.budget("speech", 0.5);
        long t0 = clock.millis() + 3_600_000;
        clock.advanceTo(t0);
        Api.submit(ADMIN, job("speech-run", "speech", 1));
        String urgent = Api.submit(ADMIN, job("vision-urgent", "vision", 4));
        String low = Api.submit(ADMIN, job("vision-low", "vision", 1));
        planner.planNow();
        assertEquals(List.of("RUNNING", "PENDING"), List.of(state(urgent), state(low)), "vision's 8 owed GPUs go to its priority-4 job");

        clock.advanceTo(t0 + 7_140_000);
        String newer = Api.submit(ADMIN, job("vision-newer", "vision", 2));
        clock.advanceTo(t0 + 7_200_000);
        as(ADMIN).body("{\"state\":\"SUCCEEDED\"}").post("/api/v1/jobs/" + urgent + "/outcome").then().statusCode(200);
        planner.planNow();
        // two hours waited rank the priority-1 job as vision's most urgent waiting work, priority 2, where the older goes first;
        // without ageing the newer priority-2 job would take the room
        assertEquals(List.of("RUNNING", "PENDING"), List.of(state(low), state(newer)));
        String reason = as(ADMIN).get("/api/v1/jobs/" + newer).then().extract().path("reason");
        assertTrue(reason.endsWith("waiting moves it up: each 60 min waited doubles the priority its team's budget ranks it by, up to its team's"
                + " most urgent work, where its own priority (2) is already"), reason);
    }

    private static String job(String name, String team, int priority) {
        return "{\"name\":\"" + name + "\",\"team\":\"" + team + "\",\"class\":\"TRAINING\",\"priority\":" + priority
                + ",\"perReplica\":{\"gpus\":8},\"durationEstimateSeconds\":86400}";
    }

    private static String state(String id) {
        return as(ADMIN).get("/api/v1/jobs/" + id).then().extract().path("state");
    }
}
