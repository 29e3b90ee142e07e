package dev.horizon.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.horizon.trace.DemoDayScenario;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The day the demo replays and the day `./horizon bench --scenario demo-day` runs are one: the adapters' translation of
 * the day's PyTorchJobs and RayClusters gives exactly the job JSON the bench writes for them without the adapters.
 */
class DemoDayTranslationTest {
    @Test
    void theAdaptersTranslateEveryManifestOfTheDayAsTheBenchWritesIt() throws Exception {
        for (Path traces : List.of(Path.of("../../../shared/traces"), Path.of("no-traces-here"))) {
            DemoDayScenario.Day demo = DemoDayScenario.build(3, traces, new Workloads());
            DemoDayScenario.Day bench = DemoDayScenario.build(3, traces, DemoDayScenario.AS_TRANSLATED);
            assertTrue(demo.submissions().stream().anyMatch(s -> s.via().startsWith("PyTorchJob")), "the day has PyTorchJobs");
            assertEquals(demo.submissions().size(), bench.submissions().size());
            for (int i = 0; i < demo.submissions().size(); i++) {
                assertEquals(demo.submissions().get(i).spec(), bench.submissions().get(i).spec(), demo.submissions().get(i).via());
            }
            assertEquals(demo.scenario().jobs(), bench.scenario().jobs(), "the simulator's jobs");
        }
    }
}
