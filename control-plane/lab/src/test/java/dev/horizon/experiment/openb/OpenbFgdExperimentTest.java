package dev.horizon.experiment.openb;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.LongStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The must-show on the Alibaba openb traces: Horizon leaves less GPU capacity unallocated than FGD's published
 * figures, and our FGD lands within 1.5 points of them, so the comparison is fair. On the default list the margin is
 * a few tenths of a point, within the spread between seeds, so the claim is checked as stated: the mean of seeds 1-10.
 * On gpuspec33 Horizon is ahead by 0.4 points at 130% and several at 100%, so two seeds suffice and keep the test
 * fast (the 10-seed averages come from `./horizon bench --scenario openb --seed 1 --seeds 10`). Seeds run in
 * parallel; each run has its own policy and node state. Needs ../shared/traces beside the checkout; skipped without it.
 */
class OpenbFgdExperimentTest {
    static Path traces() {
        Path dir = Path.of("").toAbsolutePath();
        while (dir != null && !Files.exists(dir.resolve("mvnw"))) dir = dir.getParent();
        return dir == null ? Path.of("/nonexistent") : dir.resolveSibling("shared").resolve("traces").resolve("alibaba-gpu-v2023");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"default, 10, 4.77, 4.61", "gpuspec33, 2, 12.16, 5.45"})
    void horizonBeatsPublishedFgdAndOurFgdMatchesIt(String variant, int seeds, double fgdAt100, double fgdAt130) throws Exception {
        Path dir = traces();
        Path pods = dir.resolve("openb_pod_list_" + variant + ".csv");
        assumeTrue(Files.isRegularFile(pods), "needs ../shared/traces");
        OpenbExperiment experiment = new OpenbExperiment(OpenbTrace.readNodes(dir.resolve("openb_node_list_gpu_node.csv")), OpenbTrace.readPods(pods));
        double[] horizon = meanUnallocated(experiment, OpenbBenchCommand.POLICIES.get("horizon"), seeds);
        double[] fgd = meanUnallocated(experiment, OpenbBenchCommand.POLICIES.get("fgd"), seeds);
        String summary = String.format("%s, seeds 1-%d: horizon %.2f/%.2f, our fgd %.2f/%.2f, published fgd %.2f/%.2f", variant, seeds,
                horizon[0], horizon[1], fgd[0], fgd[1], fgdAt100, fgdAt130);
        assertTrue(horizon[0] < fgdAt100 && horizon[1] < fgdAt130, summary);
        assertTrue(Math.abs(fgd[0] - fgdAt100) <= 1.5 && Math.abs(fgd[1] - fgdAt130) <= 1.5, summary);
    }

    /** Mean unallocated share at 100% and 130% arrival over seeds 1..seeds. */
    private static double[] meanUnallocated(OpenbExperiment experiment, PolicyFactory policy, int seeds) {
        List<double[]> curves = LongStream.rangeClosed(1, seeds).parallel().mapToObj(seed -> experiment.run(policy, seed)).toList();
        return new double[] {curves.stream().mapToDouble(c -> 100 - c[100]).average().orElseThrow(),
                curves.stream().mapToDouble(c -> 100 - c[130]).average().orElseThrow()};
    }
}
