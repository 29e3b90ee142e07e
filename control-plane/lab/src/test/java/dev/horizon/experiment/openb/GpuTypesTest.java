package dev.horizon.experiment.openb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.horizon.allocator.fragmentation.WorkloadTask;
import dev.horizon.allocator.model.GpuTypes;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class GpuTypesTest {
    @Test
    void aGpuTypeAbsentFromTheClusterGetsAClearError() {
        GpuTypes.requirePresent(List.of("V100M16", "V100M32"), Set.of("V100M32", "V100M16", "T4"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> GpuTypes.requirePresent(List.of("T4", "H100-80GB"), Set.of("T4", "G2")));
        assertEquals("GPU type 'H100-80GB' is not in the cluster; it has [G2, T4]", e.getMessage());
    }

    @Test
    void anOpenbTaskNamingAnAbsentModelIsRejectedByName() {
        List<OpenbNode> nodes = List.of(new OpenbNode("n0", 64000, 262144, 2, "T4"));
        List<WorkloadTask> pods = List.of(new WorkloadTask("p7", 1000, 1024, 1, 500, Set.of("A10")));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new OpenbExperiment(nodes, pods));
        assertEquals("task p7: GPU type 'A10' is not in the cluster; it has [T4]", e.getMessage());
    }
}
