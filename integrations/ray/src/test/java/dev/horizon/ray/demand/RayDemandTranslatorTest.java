package dev.horizon.ray.demand;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.horizon.api.GpuShape;
import dev.horizon.api.JobClass;
import dev.horizon.api.JobSource;
import dev.horizon.api.JobSpec;
import dev.horizon.kit.manifest.Accelerators;
import dev.horizon.ray.translate.FractionalGpuPolicy;
import dev.horizon.ray.translate.NoGpuRequestedException;
import dev.horizon.ray.translate.RayTranslationException;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Pending demand in the shapes Ray's autoscaler reports it: resource bundles of doubles, 0.001 of accelerator_type. */
class RayDemandTranslatorTest {
    private static final DemandOwner OWNER = new DemandOwner("llm-actors", "nlp", JobClass.BATCH_INFERENCE, new JobSource("RayCluster", "nlp", "c1"));
    private static final RayDemandTranslator TIME_SLICING = new RayDemandTranslator(new FractionalGpuPolicy.TimeSlicing(81920),
            RayDemandTranslator.DEFAULT_ACCELERATOR_MODELS);
    private static final RayDemandTranslator MIG = new RayDemandTranslator(new FractionalGpuPolicy.Mig("H100-80GB"),
            RayDemandTranslator.DEFAULT_ACCELERATOR_MODELS);

    @Test
    void halfGpuActorsBecomeTimeSliceSharesWithTheirPartOfTheMemory() {
        JobSpec job = TIME_SLICING.tasks(OWNER, Map.of("CPU", 1.0, "GPU", 0.5, "memory", 4.0e9), 3);
        assertEquals(new GpuShape(null, null, 500, 40960, null), job.perReplica());
        assertEquals(3, job.replicaCount());
        assertFalse(job.gangOrDefault(), "independent actors start one by one");
        assertTrue(job.problems().isEmpty());
    }

    @Test
    void aThirdOfAGpuRoundsDownSoThreeThirdsShareOneGpu() {
        GpuShape shape = TIME_SLICING.tasks(OWNER, Map.of("GPU", 1.0 / 3), 1).perReplica();
        assertEquals(333, shape.gpuMilli());
        assertEquals(27306, shape.memoryMiB());
        assertTrue(3 * shape.gpuMilli() <= 1000 && 3 * shape.memoryMiB() <= 81920, "Ray packs three 1/3-GPU actors on one GPU; so must Horizon");
    }

    @Test
    void underMigAFractionGetsTheSmallestProfileWhoseComputeCoversIt() {
        assertEquals("1g.10gb", MIG.tasks(OWNER, Map.of("GPU", 0.1), 1).perReplica().migProfile());
        assertEquals("2g.20gb", MIG.tasks(OWNER, Map.of("GPU", 0.25), 1).perReplica().migProfile());
        // 3 of 7 slices is 0.43, short of a half: the half needs 4 slices
        assertEquals("4g.40gb", MIG.tasks(OWNER, Map.of("GPU", 0.5), 1).perReplica().migProfile());
        assertEquals("7g.80gb", MIG.tasks(OWNER, Map.of("GPU", 0.75), 1).perReplica().migProfile());
    }

    @Test
    void migOnAnotherModelThanTheAskedAcceleratorIsRefusedNamingTheField() {
        RayTranslationException e = assertThrows(RayTranslationException.class,
                () -> MIG.tasks(OWNER, Map.of("GPU", 0.5, "accelerator_type:A100", 0.001), 1));
        assertTrue(e.getMessage().startsWith("shape: asks for [A100-40GB, A100-80GB]"), e.getMessage());
    }

    @Test
    void acceleratorTypeBecomesHorizonsGpuModels() {
        JobSpec job = TIME_SLICING.tasks(OWNER, Map.of("GPU", 2.0, "accelerator_type:A100-80G", 0.001, "CPU", 8.0), 2);
        assertEquals(new GpuShape(2, null, null, null, List.of("A100-80GB")), job.perReplica());
        RayTranslationException e = assertThrows(RayTranslationException.class,
                () -> TIME_SLICING.tasks(OWNER, Map.of("GPU", 1.0, "accelerator_type:B200", 0.001), 1));
        assertTrue(e.getMessage().startsWith("shape[accelerator_type:B200]: Horizon knows no GPU model"), e.getMessage());
    }

    @Test
    void strictPackPlacementGroupIsAGangOnOneNode() {
        List<Map<String, Double>> bundles = List.of(Map.of("CPU", 1.0), Map.of("GPU", 1.0, "CPU", 4.0), Map.of("GPU", 1.0, "CPU", 4.0),
                Map.of("GPU", 1.0, "CPU", 4.0), Map.of("GPU", 1.0, "CPU", 4.0));
        JobSpec job = TIME_SLICING.placementGroup(OWNER, bundles, PlacementStrategy.STRICT_PACK);
        assertEquals(4, job.replicaCount(), "the CPU-only bundle is left to Ray");
        assertTrue(job.gangOrDefault());
        assertEquals("same-node", job.topology());
        assertEquals(4.0, job.totalGpus());
    }

    @Test
    void fractionalStrictPackBundlesShareOneNodesGpusByTimeSlicing() {
        JobSpec job = TIME_SLICING.placementGroup(OWNER, List.of(Map.of("GPU", 0.25), Map.of("GPU", 0.25)), PlacementStrategy.STRICT_PACK);
        assertEquals(250, job.perReplica().gpuMilli());
        assertEquals("same-node", job.topology());
        assertEquals(0.5, job.totalGpus());
    }

    @Test
    void packAndSpreadAreGangsAnywhereAndStrictSpreadIsRefused() {
        List<Map<String, Double>> bundles = List.of(Map.of("GPU", 1.0), Map.of("GPU", 1.0));
        for (PlacementStrategy s : List.of(PlacementStrategy.PACK, PlacementStrategy.SPREAD)) {
            JobSpec job = TIME_SLICING.placementGroup(OWNER, bundles, s);
            assertTrue(job.gangOrDefault());
            assertEquals(null, job.topology(), s.name());
        }
        RayTranslationException e = assertThrows(RayTranslationException.class,
                () -> TIME_SLICING.placementGroup(OWNER, bundles, PlacementStrategy.STRICT_SPREAD));
        assertTrue(e.getMessage().startsWith("strategy: STRICT_SPREAD"), e.getMessage());
    }

    @Test
    void bundlesOfDifferentGpuShapesAreRefusedNamingTheBundle() {
        RayTranslationException e = assertThrows(RayTranslationException.class, () -> TIME_SLICING.placementGroup(OWNER,
                List.of(Map.of("GPU", 1.0), Map.of("GPU", 2.0)), PlacementStrategy.PACK));
        assertTrue(e.getMessage().startsWith("bundles[1]: asks for 2 GPUs but an earlier bundle asks for 1 GPU"), e.getMessage());
    }

    @Test
    void noGpuTpusAndFractionsAboveOneAreRefused() {
        assertThrows(NoGpuRequestedException.class, () -> TIME_SLICING.tasks(OWNER, Map.of("CPU", 4.0, "custom_resource", 1.0), 1));
        Accelerators.UnsupportedAcceleratorException tpu = assertThrows(Accelerators.UnsupportedAcceleratorException.class,
                () -> TIME_SLICING.tasks(OWNER, Map.of("TPU", 4.0), 1));
        assertTrue(tpu.getMessage().contains("[TPU]: asks for 'TPU'; Horizon plans NVIDIA GPUs only"), tpu.getMessage());
        RayTranslationException e = assertThrows(RayTranslationException.class, () -> TIME_SLICING.tasks(OWNER, Map.of("GPU", 1.5), 1));
        assertTrue(e.getMessage().startsWith("shape[GPU]: 1.5 is above 1 and not whole"), e.getMessage());
    }

    @Test
    void policiesParseFromTheirCommandLineForm() {
        assertEquals(new FractionalGpuPolicy.TimeSlicing(40960), FractionalGpuPolicy.parse("time-slicing:40960"));
        assertEquals(new FractionalGpuPolicy.Mig("A100-40GB"), FractionalGpuPolicy.parse("mig:A100-40GB"));
        assertThrows(IllegalArgumentException.class, () -> FractionalGpuPolicy.parse("mig:T4"));
    }
}
