package dev.horizon.simulation;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
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

/** The day before a window's submissions are what the bench's start-time bands expect to keep arriving, as the service's would. */
class PriorArrivalsTest {
    private static final Cluster EIGHT = Cluster.homogeneous(8, 8, "H100-80GB", 81_559);

    private static SimJob job(String id, String team, int weight, long arrival, long duration) {
        return new SimJob(id, team, JobClass.TRAINING, weight, 8, 8, arrival, duration, null, Contract.defaultFor(JobClass.TRAINING));
    }

    /** The low-value job's raw band at time 0, when a day of prior arrivals (or none) came before the window. */
    private static StartBands.Band lowJobsBand(List<SimJob> prior) {
        List<SimJob> jobs = List.of(job("running", "research", 10, 0, 2 * 3600), job("low", "research", 1, 0, 3600));
        // the estimator has seen the team's training run two hours, so the running job is known to end then
        List<SimJob> history = new ArrayList<>();
        for (int i = 0; i < 20; i++) history.add(job("ran-" + i, "research", 1, -86_400, 2 * 3600));
        Scenario s = new Scenario("prior", EIGHT, 900, 8, 32, jobs, List.of(), history, Map.of(), null, null, List.of(), prior);
        EtaCalibration calibration = new EtaCalibration(BenchPolicies.create("horizon"), StartBands.SAMPLES, s.priorArrivals());
        new Simulator(s, BenchPolicies.create("horizon")).observedBy(calibration).run(f -> { });
        EtaCalibration.Recorded low = calibration.recorded().get("low");
        assertNotNull(low, "the low job waits at time 0 and gets a band: " + calibration.recorded().keySet());
        return low.raw();
    }

    @Test
    void higherValueWorkThatKeptArrivingTheDayBeforeIsExpectedToKeepArriving() {
        StartBands.Band quiet = lowJobsBand(List.of());
        List<SimJob> hourly = new ArrayList<>();
        for (int h = 24; h >= 1; h--) hourly.add(job("before-" + h, "product", 10, -h * 3600L, 3 * 3600));
        StartBands.Band busy = lowJobsBand(hourly);
        assertNotNull(quiet.p50At(), "with nothing expected, the low job starts when the running one ends");
        assertTrue(quiet.p50At() <= 2 * 3600 + 900, "quiet: P50 at " + quiet.p50At());
        assertTrue(busy.p50At() == null || busy.p50At() > quiet.p50At() + 3600,
                "a value-10 job an hour the day before is expected ahead of the low job: P50 " + busy.p50At() + " against " + quiet.p50At());
    }

    @Test
    void aPriorArrivalInsideTheWindowIsRefused() {
        List<SimJob> inside = List.of(job("late", "t", 1, 0, 60));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new Scenario("prior", EIGHT, 900, 8, 32, List.of(), List.of(), List.of(), Map.of(), null, null, List.of(), inside));
        assertTrue(e.getMessage().contains("prior arrival late arrives at 0 s"), e.getMessage());
    }
}
