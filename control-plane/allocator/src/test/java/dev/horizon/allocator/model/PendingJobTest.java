package dev.horizon.allocator.model;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.horizon.api.Contract;
import dev.horizon.api.JobClass;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class PendingJobTest {
    private static PendingJob.Builder training(int gpus) {
        return PendingJob.builder().id("j").team("t").jobClass(JobClass.TRAINING).weight(1).gpus(gpus)
                .estimatedRemainingSeconds(3600).contract(Contract.defaultFor(JobClass.TRAINING));
    }

    @Test
    void aJobWithoutMinGpusIsRigidAndOneWithItMayStartNarrower() {
        assertEquals(List.of(8), training(8).build().allowedSizes());
        assertEquals(8, training(8).minGpus(4).build().gpus());
        assertEquals(4, training(8).minGpus(4).build().minGpus());
    }

    @Test
    void aSliceWithoutRulesMayGoOnlyOnTheGpuTypesItNamesAndWholeGpusAnywhere() {
        SliceRequest onL4 = new SliceRequest(null, 500, 8_000, Set.of("L4"));
        assertEquals(PlacementRules.ANY.withGpuTypes(Set.of("L4")), training(1).slice(onL4).build().rules());
        assertEquals(PlacementRules.ANY, training(8).build().rules());
    }

    @Test
    void rulesSetByNameWinOverTheSlicesTypes() {
        PlacementRules h100 = PlacementRules.ANY.withGpuTypes(Set.of("H100-80GB"));
        SliceRequest onL4 = new SliceRequest(null, 500, 8_000, Set.of("L4"));
        assertEquals(h100, training(1).slice(onL4).rules(h100).build().rules());
    }
}
