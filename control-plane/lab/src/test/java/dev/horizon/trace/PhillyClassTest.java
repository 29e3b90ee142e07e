package dev.horizon.trace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.horizon.api.JobClass;
import dev.horizon.simulation.Scenario;
import dev.horizon.simulation.SimJob;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** A Philly job's class tells the duration estimator nothing the simulator alone knows: it comes from GPU count and seed. */
class PhillyClassTest {
    @Test
    void multiGpuJobsTrainAndOneGpuJobsTrainAtTheLogsOdds() {
        Random rng = new Random(7);
        int training = 0, n = 20_000;
        for (int i = 0; i < n; i++) {
            assertEquals(JobClass.TRAINING, Scenarios.phillyClass(2 + i % 8, rng));
            if (Scenarios.phillyClass(1, rng) == JobClass.TRAINING) training++;
        }
        assertEquals(0.21, training / (double) n, 0.01);
    }

    @Test
    void aOneGpuJobsClassDoesNotFollowItsTrueDuration() throws Exception {
        Path traces = dev.horizon.bench.PhillyBenchTest.traces();
        assumeTrue(Files.isRegularFile(traces.resolve("philly-via-pollux/philly.csv")), "needs ../shared/traces");
        Scenario s = Scenarios.build("philly", new ScenarioOptions(1, null, null, 1.5, 0.4, 0, traces));
        long longNotTraining = 0, shortTraining = 0;
        for (SimJob j : s.jobs()) {
            if (j.gpus() != 1) continue;
            if (j.trueDurationSeconds() > 3600 && j.jobClass() != JobClass.TRAINING) longNotTraining++;
            if (j.trueDurationSeconds() <= 3600 && j.jobClass() == JobClass.TRAINING) shortTraining++;
        }
        assertTrue(longNotTraining > 0 && shortTraining > 0, "long jobs that are not training: " + longNotTraining + ", short training: " + shortTraining);
    }
}
