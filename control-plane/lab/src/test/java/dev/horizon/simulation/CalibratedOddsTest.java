package dev.horizon.simulation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.horizon.api.JobClass;
import dev.horizon.allocator.moment.ActiveJob;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The odds a perfectly calibrated band meets a window's targets, given the bursts its jobs came in. */
class CalibratedOddsTest {
    private static ActiveJob job(String id, String team, int gpus, long arrival) {
        return new ActiveJob(id, team, JobClass.TRAINING, 1, gpus, gpus, arrival, null, null, null, null, ActiveJob.RunHistory.NEW, null);
    }

    @Test
    void aBurstIsOneTeamClassAndGpuCountWithArrivalsChainedWithinTenMinutes() {
        List<List<String>> bursts = CalibratedOdds.bursts(List.of(job("a1", "a", 1, 0), job("a2", "a", 1, 500), job("a3", "a", 1, 1000),
                job("a4", "a", 1, 1700), job("a-wide", "a", 4, 100), job("b1", "b", 1, 200)));
        assertEquals(List.of(List.of("a1", "a2", "a3"), List.of("a-wide"), List.of("b1"), List.of("a4")), bursts,
                "a3 is 1,000 s after a1 but 500 s after a2, so it joins; a4 comes 700 s after a3 and starts its own");
    }

    @Test
    void oneLargeSweepCanNeverMeetATargetAndManyLoneJobsAlmostAlwaysDo() {
        CalibratedOdds.Odds oneSweep = CalibratedOdds.of(List.of(300), 0.9, EtaCalibration.TARGET_P90);
        assertEquals(0, oneSweep.within(), "300 jobs that start on time or late as one cover 0 or 1, never 0.85 to 0.95");
        assertTrue(oneSweep.tooLate() > 0.88 && oneSweep.tooLate() < 0.92, "all on time (coverage 1, a band too late) 9 times in 10: " + oneSweep);
        assertEquals(1, oneSweep.tooEarly() + oneSweep.tooLate(), 1e-12);
        double loneJobs = CalibratedOdds.of(Collections.nCopies(1000, 1), 0.9, EtaCalibration.TARGET_P90).within();
        assertTrue(loneJobs > 0.99, "1,000 independent jobs at odds 0.9 cover 0.9 give or take 0.01: " + loneJobs);
        CalibratedOdds.Odds fewSweeps = CalibratedOdds.of(Collections.nCopies(10, 30), 0.5, EtaCalibration.TARGET_P50);
        assertTrue(fewSweeps.within() > 0.6 && fewSweeps.within() < 0.7, "10 sweeps at odds 1/2 land on 4, 5 or 6 of 10 with odds 0.66: " + fewSweeps);
        assertTrue(Math.abs(fewSweeps.tooEarly() - fewSweeps.tooLate()) < 0.05, "and miss either way alike (0.17 each): " + fewSweeps);
        assertTrue(Double.isNaN(CalibratedOdds.of(List.of(0, 0), 0.5, EtaCalibration.TARGET_P50).within()), "no job held to account, no odds");
    }
}
