package dev.horizon.service;

import static dev.horizon.service.Api.ADMIN;
import static dev.horizon.service.Api.as;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.horizon.allocator.PlanningContext;
import dev.horizon.service.agents.CommandExpiry;
import dev.horizon.service.clock.ServiceClock;
import dev.horizon.service.leadership.Leadership;
import dev.horizon.service.nodes.CommandRequest;
import dev.horizon.service.nodes.CommandStore;
import dev.horizon.service.nodes.NodeCommand;
import dev.horizon.service.planning.Planner;
import dev.horizon.service.planning.PlanningPolicy;
import dev.horizon.service.store.Db;
import io.quarkus.arc.ClientProxy;
import io.quarkus.test.junit.QuarkusMock;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** What one turn of the planning loop writes and holds: nothing for jobs with nothing new, and the lease only for its commit. */
@QuarkusTest
@TestProfile(VirtualClockProfile.class)
class PlanLoopTest {
    @Inject
    Planner planner;
    @Inject
    ServiceClock clock;
    @Inject
    Db db;
    @Inject
    PlanningPolicy policy;
    @Inject
    CommandStore commands;
    @Inject
    CommandExpiry expiry;
    @Inject
    Leadership leadership;

    @Test
    void aPlanWithNothingNewWritesNoJobRowEvenAsItsPlannedStartsComeCloser() {
        PlannerTest.cancelEverything();
        Api.budget("loop", 0);
        Api.noBudgets();
        clock.advanceTo(clock.millis() + 60_000);
        List<String> ids = List.of(Api.submit(ADMIN, Api.job("a", "loop", "QUANTIZATION", 8)), Api.submit(ADMIN, Api.job("b", "loop", "QUANTIZATION", 8)),
                Api.submit(ADMIN, Api.job("c", "loop", "QUANTIZATION", 8)));
        Planner.PlanSnapshot first = planner.planNow();
        assertEquals(3, first.jobRowsWritten(), "two starts and one planned start");
        String waiting = ids.stream().filter(id -> "PENDING".equals(as(ADMIN).get("/api/v1/jobs/" + id).then().extract().path("state"))).findFirst()
                .orElseThrow();
        String before = as(ADMIN).get("/api/v1/jobs/" + waiting + "/explanation").then().body("rule", equalTo("planned-start")).extract().path("reason");

        // the next plan sees the two as running work, estimated from their start rather than planned from now
        planner.planNow();
        clock.advanceTo(clock.millis() + 5 * 60_000);
        assertEquals(0, planner.planNow().jobRowsWritten(), "five minutes on, nothing new: no job row is written");
        String after = as(ADMIN).get("/api/v1/jobs/" + waiting + "/explanation").then().body("reason", containsString("planned to start in about"))
                .extract().path("reason");
        assertTrue(!before.equals(after), "the countdown is rendered when read, from the stored time: " + before + " / " + after);
    }

    @Test
    void theLeaseIsRenewedWhileASlowPlanDecides() throws Exception {
        CountDownLatch deciding = new CountDownLatch(1), release = new CountDownLatch(1);
        PlanningPolicy real = ClientProxy.unwrap(policy);
        QuarkusMock.installMockForType(new PlanningPolicy() {
            @Override
            public Outcome decide(PlanningContext ctx) {
                deciding.countDown();
                try {
                    release.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return real.decide(ctx);
            }
        }, PlanningPolicy.class);
        PlannerTest.cancelEverything();
        Api.team("loop", 0.5);
        Api.submit(ADMIN, Api.job("slow", "loop", "QUANTIZATION", 1));
        CompletableFuture<Planner.PlanSnapshot> plan = CompletableFuture.supplyAsync(planner::planNow);
        assertTrue(deciding.await(30, TimeUnit.SECONDS), "the plan reached its decision");
        OffsetDateTime first = leaseExpiry();
        // the lease is renewed every second for four: three renewals while the decision takes its time
        Thread.sleep(3_000);
        OffsetDateTime later = leaseExpiry();
        release.countDown();
        assertTrue(later.isAfter(first.plusSeconds(1)), "the lease was renewed while the plan decided: " + first + " then " + later);
        Planner.PlanSnapshot done = plan.get(30, TimeUnit.SECONDS);
        assertTrue(done.started() >= 1, "and the slow plan still committed, as the leader it still was");
    }

    @Test
    void aCommandNoAgentAnswersWithinItsTimeToLiveIsFailedSayingWhy() {
        NodeCommand queued = commands.insert("node-1", new CommandRequest(null, null, new CommandRequest.Drain("ttl test")), clock.millis(),
                leadership.epoch());
        // the default time-to-live is 300 s: one second short of it the command still waits for its agent
        clock.advanceTo(clock.millis() + 299_000);
        expiry.expire();
        assertEquals(NodeCommand.QUEUED, state(queued).state(), "inside its time-to-live the command waits");
        clock.advanceTo(clock.millis() + 2_000);
        expiry.expire();
        NodeCommand after = state(queued);
        assertEquals(NodeCommand.FAILED, after.state(), "past its time-to-live no agent answered: failed");
        assertTrue(after.error().contains("horizon.agents.command-ttl-seconds"), after.error());
    }

    private NodeCommand state(NodeCommand c) {
        return commands.recent(c.node()).stream().filter(r -> r.id().equals(c.id())).findFirst().orElseThrow();
    }

    private OffsetDateTime leaseExpiry() {
        return db.query("SELECT expires_at FROM leader_lease WHERE name = 'planner'", ps -> { }, rs -> rs.getObject(1, OffsetDateTime.class)).get(0);
    }
}
