package dev.horizon.service.eta;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.horizon.allocator.eta.Calibrator;
import dev.horizon.allocator.eta.ExpectedArrivals;
import dev.horizon.allocator.eta.StartBands;
import dev.horizon.allocator.model.Decision;
import dev.horizon.allocator.model.GpuNode;
import dev.horizon.allocator.model.Placement;
import dev.horizon.allocator.moment.ActiveJob;
import dev.horizon.allocator.moment.ClusterMoment;
import dev.horizon.allocator.moment.ContextBuilder;
import dev.horizon.allocator.moment.NodeState;
import dev.horizon.allocator.policy.HorizonPolicy;
import dev.horizon.api.Contract;
import dev.horizon.api.JobClass;
import dev.horizon.forecast.DurationEstimator;
import dev.horizon.service.planning.NodesOut;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * A job that higher-valued work expected to keep arriving holds back past where the futures end has no band, and is told
 * when the queue as it stands would start it were no more work to arrive ahead of it.
 */
class QueueAloneTest {
    private static final long NOW = 36_000;
    private static final Contract TRAINING = Contract.defaultFor(JobClass.TRAINING);

    private static ActiveJob job(String id, int weight, long arrival, ActiveJob.Running run) {
        return new ActiveJob(id, "t", JobClass.TRAINING, weight, 8, 8, arrival, null, TRAINING, null, null, null, run);
    }

    private static DurationEstimator hourLongRuns() {
        DurationEstimator d = new DurationEstimator();
        for (int i = 0; i < 40; i++) d.observe("t", JobClass.TRAINING, 3400 + 10 * i);
        return d;
    }

    @Test
    void aJobHeldBackByTheWorkExpectedToArriveIsToldWhenTheQueueAloneWouldStartIt() {
        ActiveJob running = job("r", 1, NOW - 700, new ActiveJob.Running(NOW - 600, new Placement(List.of(new Placement.Slice(0, 0, 8))), false));
        ClusterMoment m = new ClusterMoment(NOW, 900, 96, List.of(NodeState.ready(new GpuNode("n0", "H100-80GB", 8, 81_559, "rack-a"))),
                List.of(running, job("low", 1, NOW - 60, null), job("urgent", 10, NOW - 30, null)), null, List.of(), hourLongRuns());
        HorizonPolicy policy = new HorizonPolicy();
        Decision decided = policy.decide(ContextBuilder.build(m));
        StartBands.Players players = StartBands.Players.oneAtATime(policy);
        // an hour-long whole-node job of value 8 came every 20 minutes: three times what the node can run
        List<ActiveJob> recent = List.of(job("a1", 8, NOW - 3600, null), job("a2", 8, NOW - 2400, null), job("a3", 8, NOW - 1200, null));
        Set<String> waiting = Set.of("low", "urgent");
        StartBands.Computed computed = StartBands.computedWithQueueAlone(m, decided, players, new ExpectedArrivals(recent, 3600), waiting,
                StartBands.SAMPLES, NOW, StartBands.beyondSteps(StartBands.BEYOND_HOURS, 900), first -> { });
        Map<String, StartBands.Band> raw = computed.bands();
        assertNull(raw.get("low").projected(0.5), "the work expected to arrive keeps the low job waiting in most futures");
        assertEquals(StartBands.QUEUE_ALONE_SAMPLES, computed.alone().get("low").starts().length);

        Map<String, StartTimes.Shown> shown = StartTimes.shownBands(m, new Calibrator(), raw, computed.alone(), waiting, StartBands.BEYOND_HOURS, NodesOut.NONE);
        StartTimes.Shown low = shown.get("low");
        assertNull(low.p50At(), "no band is made up for it: " + low);
        assertNotNull(low.queueAlone().p50At(), "the queue alone starts it: " + low);
        assertTrue(low.queueAlone().said().startsWith("were no more work to arrive ahead of it, it would start by "), low.queueAlone().said());
        assertTrue(low.queueAlone().said().contains("in " + StartBands.MIN_LEFT + " futures with no work arriving"), low.queueAlone().said());
        StartTimes.Shown urgent = shown.get("urgent");
        assertNotNull(urgent.p90At(), "the urgent job, ahead of what arrives, has a band: " + urgent);
        assertNull(urgent.queueAlone(), "a job with a band is not told the queue alone: " + urgent);
    }
}
