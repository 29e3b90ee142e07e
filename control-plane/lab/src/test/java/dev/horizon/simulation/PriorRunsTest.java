package dev.horizon.simulation;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.horizon.allocator.eta.StartBands;
import dev.horizon.allocator.model.Cluster;
import dev.horizon.api.Contract;
import dev.horizon.api.JobClass;
import dev.horizon.bench.BenchPolicies;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The runs that ended the day before a window are what the bench's bands know of a sweep's past, as the service's store knows them. */
class PriorRunsTest {
    private static final Cluster ONE_GPU = Cluster.homogeneous(1, 1, "H100-80GB", 81_559);

    private static SimJob job(String id, long arrival, long duration) {
        return new SimJob(id, "t", JobClass.TRAINING, 1, 1, 1, arrival, duration, null, Contract.defaultFor(JobClass.TRAINING));
    }

    /** The median start of the sweep's job waiting at time 0 behind its sibling, the other siblings' runs placed at sweepArrival. */
    private static long waitingJobsMedian(long sweepArrival) {
        List<SimJob> history = new ArrayList<>();
        for (int i = 0; i < 20; i++) history.add(job("long-ago-" + i, -5 * 86_400L + 3600L * i, 4 * 3600));
        // six siblings of the sweep that arrived before the window and ran 400 s each
        for (int i = 0; i < 6; i++) history.add(job("sibling-" + i, sweepArrival, 400));
        List<SimJob> jobs = List.of(job("running", 0, 400), job("waiting", 0, 400));
        Scenario s = new Scenario("prior-runs", ONE_GPU, 900, 8, 32, jobs, List.of(), history, Map.of(), null, null, List.of(), List.of());
        EtaCalibration calibration = new EtaCalibration(BenchPolicies.create("horizon"), StartBands.SAMPLES, s.priorArrivals());
        new Simulator(s, BenchPolicies.create("horizon")).observedBy(calibration).run(f -> { });
        EtaCalibration.Recorded waiting = calibration.recorded().get("waiting");
        assertNotNull(waiting, "the second job waits at time 0 and gets a band: " + calibration.recorded().keySet());
        return waiting.raw().p50At() == null ? Long.MAX_VALUE : waiting.raw().p50At();
    }

    @Test
    void siblingsThatEndedBeforeTheWindowSayTheSweepRunsShort() {
        long sweep = waitingJobsMedian(-500);
        assertTrue(sweep <= 1800, "six of the sweep ran 400 s just before the window, the team's runs 4 h: the running sibling ends soon (P50 " + sweep + " s)");
        // the same runs a week earlier are no sweep of the jobs waiting now (and older than the day a control plane remembers)
        long unrelated = waitingJobsMedian(-7 * 86_400L);
        assertTrue(unrelated > 3 * 3600, "with no sibling known, the team's 4 h runs decide (P50 " + unrelated + " s)");
    }
}
