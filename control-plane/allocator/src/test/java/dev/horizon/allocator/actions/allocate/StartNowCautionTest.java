package dev.horizon.allocator.actions.allocate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.horizon.allocator.PlanningContext;
import dev.horizon.allocator.actions.Session;
import dev.horizon.allocator.model.Cluster;
import dev.horizon.allocator.model.Decision;
import dev.horizon.allocator.model.PendingJob;
import dev.horizon.allocator.model.Placement;
import dev.horizon.allocator.model.RunningJob;
import dev.horizon.allocator.placement.Occupancy;
import dev.horizon.allocator.plan.HeuristicPlanner;
import dev.horizon.allocator.policy.HorizonPolicy;
import dev.horizon.api.Contract;
import dev.horizon.api.JobClass;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Work the plan would start in the gap before a more valuable job's planned start is planned there only where the gap
 * holds eight times its estimate (without fair share); otherwise resumable work only borrows the gap as fill.
 */
class StartNowCautionTest {
    private static final long NOW = 36_000;
    private static final Contract RESUMABLE = new Contract(1800, true, 120);
    private static final Contract STARTS_OVER = new Contract(1800, false, 0);
    /** One node of 8 GPUs. */
    private final Cluster cluster = Cluster.homogeneous(8, 8, "H100-80GB", 81_559);

    /** Four GPUs busy for about an hour more, inside their minimum runtime; a whole-node job of value 8 waits for them. */
    private Decision decide(Contract small) {
        return new HorizonPolicy().decide(moment(small));
    }

    private PlanningContext moment(Contract small) {
        Occupancy o = new Occupancy(cluster);
        Placement busy = new Placement(List.of(new Placement.Slice(0, 0, 4)));
        o.occupy(busy);
        List<RunningJob> running = List.of(new RunningJob("busy", "t", JobClass.TRAINING, 1, 4, 0, NOW - 600, NOW + 3600, RESUMABLE, busy, false));
        List<PendingJob> pending = List.of(job("whole-node", 8, 8, 3600, RESUMABLE), job("small", 1, 4, 1800, small));
        return new PlanningContext(NOW, 900, 16, cluster, o, running, pending, Map.of(), null);
    }

    private static PendingJob job(String id, double weight, int gpus, long estimate, Contract contract) {
        return PendingJob.builder().id(id).team("t").jobClass(JobClass.TRAINING).weight(weight).gpus(gpus).arrivalSeconds(NOW - 60)
                .estimatedRemainingSeconds(estimate).contract(contract).build();
    }

    /** Whether the job started, and as fill (null: it did not start). */
    private static Boolean startedAsFill(Decision d, String id) {
        return d.starts().stream().filter(s -> s.jobId().equals(id)).findFirst().map(Decision.Start::fill).orElse(null);
    }

    @Test
    void workThatWouldOutliveTheGapBeforeMoreValuableWorkByItsCautiousRunIsNotPlannedThere() {
        Decision d = decide(STARTS_OVER);
        assertNull(startedAsFill(d, "small"), "its 30-min estimate fits the hour before the whole-node job's step, eight of them do not");
        String reason = d.waitReasons().get("small");
        assertTrue(reason.startsWith("planned to start in about 2.0 h when 4 GPUs free up"), reason);
        assertEquals(NOW + 7200, d.plannedStarts().get("small"), "told when its cautious run first fits, after the whole-node job's hour,"
                + " not the gap's next step, where it would be held again");
        assertTrue(reason.contains("its GPUs are free now for its estimated 30 min run, but higher-value work is planned on them within 8 times that"),
                "the GPUs it sees idle are explained: " + reason);
        assertEquals(Boolean.TRUE, startedAsFill(decide(RESUMABLE), "small"),
                "resumable, it borrows the gap as fill the whole-node job takes back, where planned it would stand protected for its minimum runtime");
    }

    @Test
    void aPriceWeighsAStartNowAgainstThePlansStartNotTheLaterOneTheJobIsTold() {
        Session session = Session.open(moment(STARTS_OVER));
        new Allocate(0.99, new HeuristicPlanner()::plan).run(session);
        assertEquals(NOW + 7200, session.decision().plannedStarts().get("small"));
        assertEquals(NOW + 900, session.planStartOf("small"), "value preemption and consolidation price against the plan's start, the gap's next"
                + " step: priced against the later start, value preemption started held jobs more often and lost output (Session.planStartOf)");
    }
}
