package dev.horizon.service.planning;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.horizon.service.leadership.Leadership;
import dev.horizon.service.leadership.NotLeaderException;
import dev.horizon.service.store.Db;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

@QuarkusTest
class PlanStoreTest {
    /** Long before any real plan of the test run, so these points sort first and are removed after; a minute starts there. */
    private static final long PAST = 1_000_000_020L;

    @Inject
    PlanStore plans;
    @Inject
    Leadership leadership;
    @Inject
    Db db;
    @Inject
    Planner planner;

    /** Takes the test's points out and puts a real plan back as the current one, for the tests that follow. */
    @AfterEach
    void removePoints() {
        db.update("DELETE FROM plan_history WHERE planned_at < ?", ps -> ps.setLong(1, PAST * 2));
        planner.planNow();
    }

    @Test
    void plansWithinAMinuteShareAPointAndTheHistoryKeepsADay() {
        long epoch = leadership.epoch();
        db.update("DELETE FROM plan_history", ps -> { });
        record(PAST, 3, epoch);
        record(PAST + 30, 4, epoch);
        assertEquals(List.of(4), busy(), "a plan in the same minute replaces its point");
        record(PAST + 91, 5, epoch);
        assertEquals(List.of(4, 5), busy(), "a plan in the next minute adds one");
        assertEquals(PAST + 91, plans.current().orElseThrow().now(), "the last plan is the current one");
        for (int i = 2; i <= PlanStore.MAX_POINTS; i++) record(PAST + 91 + i * 60L, i, epoch);
        List<Integer> kept = busy();
        assertEquals(PlanStore.MAX_POINTS, kept.size(), "the history is bounded");
        assertEquals(5, kept.get(0), "the oldest point went first");
        assertEquals(PlanStore.MAX_POINTS, kept.get(kept.size() - 1));
    }

    @Test
    void aPlannerThatRunsEveryTwentySecondsLeavesOnePointAMinute() {
        long epoch = leadership.epoch();
        db.update("DELETE FROM plan_history", ps -> { });
        for (int i = 0; i < 9; i++) record(PAST + 20L * i, i, epoch);
        assertEquals(List.of(2, 5, 8), busy(), "each minute's last plan");
    }

    @Test
    void theNodesHeldForAWideJobAreStoredWithThePlanForEveryReplicaToRead() {
        Planner.PlanSnapshot plan = new Planner.PlanSnapshot(PAST + 3, 900, 96, List.of("node-0", "node-1"), 16, 4, 1.5, 0, 0, Map.of(), Map.of(), "heuristic",
                List.of(), null, 0, List.of("node-1"));
        plans.record(plan, new PlanHistory.Point(PAST + 3, 16, 4, 0, 0, 0, 0, 0), leadership.epoch());
        assertEquals(List.of("node-1"), plans.current().orElseThrow().nodesHeldForWideJob(), "what the adapters' serving GPUs keep off");
        assertEquals(List.of(), new Planner.PlanSnapshot(0, 900, 96, List.of(), 0, 0, 0, 0, 0, Map.of(), Map.of(), "none", List.of(), null, 0, null)
                .nodesHeldForWideJob(), "a snapshot stored before the field existed reads as none held");
    }

    @Test
    void aReplicaThatNoLongerLeadsStoresNoPlan() {
        long epoch = leadership.epoch();
        assertThrows(NotLeaderException.class, () -> record(PAST, 1, epoch + 1));
        assertEquals(List.of(), db.query("SELECT busy_gpus FROM plan_history WHERE planned_at = ?", ps -> ps.setLong(1, PAST), rs -> rs.getInt(1)));
    }

    private void record(long at, int busyGpus, long epoch) {
        Planner.PlanSnapshot plan = new Planner.PlanSnapshot(at, 900, 96, List.of("node-0"), 8, busyGpus, 1.5, 0, 0, Map.of("job-1", 600L), Map.of("chat", 2), "heuristic",
                List.of(), null, 0, List.of());
        plans.record(plan, new PlanHistory.Point(at, 8, busyGpus, 0, 0, 0, 0, 0), epoch);
    }

    private List<Integer> busy() {
        return plans.history().stream().filter(p -> p.at() < PAST * 2).map(PlanHistory.Point::busyGpus).toList();
    }
}
