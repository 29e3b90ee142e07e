package dev.horizon.kit.manifest;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class AcceleratorsTest {
    @Test
    void otherVendorsAcceleratorsAreRecognisedByTheWordsOfTheirResourceNames() {
        for (String other : List.of("google.com/tpu", "amd.com/gpu", "gpu.intel.com/i915", "aws.amazon.com/neuroncore", "habana.ai/gaudi",
                "xilinx.com/fpga-xilinx_u30", "TPU", "TPU-v4-16-head", "nvidia.com/gpu.shared")) {
            assertTrue(Accelerators.isOther(other), other);
        }
    }

    @Test
    void nvidiasOwnResourcesAndOrdinaryOnesAreNot() {
        for (String fine : List.of("nvidia.com/gpu", "nvidia.com/mig-1g.10gb", "cpu", "memory", "ephemeral-storage", "hugepages-2Mi",
                "example.com/output-bandwidth", "accelerator_type:H100", "resource1")) {
            assertFalse(Accelerators.isOther(fine), fine);
        }
    }
}
