package dev.horizon.service;

import static dev.horizon.service.Api.ADMIN;
import static dev.horizon.service.Api.as;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.horizon.service.clock.ServiceClock;
import dev.horizon.service.planning.Planner;
import dev.horizon.service.store.Db;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Fair share from the run history: what a team held is charged to it, whatever became of the job afterwards. */
@QuarkusTest
@TestProfile(VirtualClockProfile.class)
class FairShareLiveTest {
    @Inject
    Planner planner;
    @Inject
    ServiceClock clock;
    @Inject
    Db db;

    @Test
    void aTeamPreemptedTwiceIsChargedForTheGpuTimeItHeldBeforeEachPreemption() {
        PlannerTest.cancelEverything();
        Api.noBudgets();
        Api.budget("steady", 0.5);
        Api.budget("debuggers", 0.5);
        long t0 = clock.millis() + 3_600_000;
        at(t0);
        String resumable = ",\"contract\":{\"minRuntimeSeconds\":0,\"resumable\":true,\"checkpointCostSeconds\":0}";
        List<String> steady = List.of(Api.submit(ADMIN, training("steady-1", resumable)), Api.submit(ADMIN, training("steady-2", resumable)));
        planner.planNow();
        assertEquals(List.of("RUNNING", "RUNNING"), steady.stream().map(FairShareLiveTest::state).toList(), "alone, steady is owed all 16 GPUs");

        // a small debug job takes a GPU at once, from the steady work its contract leaves preemptible: one whole job goes
        at(t0 + 1_000_000);
        String debug = Api.submit(ADMIN, "{\"name\":\"d1\",\"team\":\"debuggers\",\"class\":\"DEBUG\",\"perReplica\":{\"gpus\":1},\"durationEstimateSeconds\":600}");
        assertEquals(1, planner.planNow().preempted(), "the debug job preempted one steady job");
        String taken = steady.stream().filter(id -> state(id).equals("PENDING")).findFirst().orElseThrow();
        String told = as(ADMIN).get("/api/v1/jobs/" + taken + "/explanation").then().statusCode(200).extract().path("lastPreemption");
        assertTrue(told.contains(" for " + debug + " (1 GPU, weight "), "the preempted job is told which job took its GPUs and why: " + told);
        at(t0 + 1_500_000);
        as(ADMIN).body("{\"state\":\"SUCCEEDED\"}").post("/api/v1/jobs/" + debug + "/outcome").then().statusCode(200);
        planner.planNow();
        assertEquals(List.of("RUNNING", "RUNNING"), steady.stream().map(FairShareLiveTest::state).toList(), "the preempted job runs again");

        // the second time its GPUs are taken back between plans (an agent reports the job evicted); the next plan books it
        at(t0 + 2_500_000);
        as(ADMIN).body("{\"state\":\"EVICTED\"}").post("/api/v1/jobs/" + steady.get(1) + "/outcome").then().statusCode(200);
        at(t0 + 3_000_000);
        Api.submit(ADMIN, "{\"name\":\"d2\",\"team\":\"debuggers\",\"class\":\"DEBUG\",\"perReplica\":{\"gpus\":1},\"durationEstimateSeconds\":600}");
        planner.planNow();

        // 0-1000 s both jobs; 1000-1500 one; 1500-2500 both; 2500-3000 one: 8 GPUs each (what the plan at 3000 s does is booked later)
        double held = 8.0 * (2 * 1000 + 500 + 2 * 1000 + 500);
        assertEquals(held, usedBy("steady"), 1e-6, "charged for every second each job held its GPUs, before each preemption too");
        assertEquals(List.of("EVICTED", "PREEMPTED"), db.query("SELECT end_reason FROM run_segments WHERE team = 'steady' AND end_reason IN"
                + " ('PREEMPTED', 'EVICTED') ORDER BY end_reason", ps -> { }, rs -> rs.getString(1)), "one run ended by the plan's preemption, one by the eviction");
        int preemptions = steady.stream().mapToInt(id -> as(ADMIN).get("/api/v1/jobs/" + id).then().extract().path("preemptions")).sum();
        assertEquals(2, preemptions);
    }

    private void at(long millis) {
        clock.advanceTo(millis);
    }

    private double usedBy(String team) {
        return db.query("SELECT COALESCE(SUM(used_gpu_seconds), 0) FROM team_usage_hourly WHERE team = ?", ps -> ps.setString(1, team),
                rs -> rs.getDouble(1)).get(0);
    }

    private static String training(String name, String contract) {
        return "{\"name\":\"" + name + "\",\"team\":\"steady\",\"class\":\"TRAINING\",\"perReplica\":{\"gpus\":8},\"durationEstimateSeconds\":86400"
                + contract + "}";
    }

    private static String state(String id) {
        return as(ADMIN).get("/api/v1/jobs/" + id).then().extract().path("state");
    }
}
