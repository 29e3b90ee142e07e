package dev.horizon.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** The model names the agent registers must be the ones jobs and node selection's table pin by. */
class GpuModelsTest {
    @Test
    void productsNamedWithTheirMemoryKeepIt() {
        assertEquals("H100-80GB", GpuModels.horizonName("NVIDIA H100 80GB HBM3", 81_559));
        assertEquals("A100-80GB", GpuModels.horizonName("NVIDIA A100-SXM4-80GB", 81_920));
        assertEquals("V100-32GB", GpuModels.horizonName("Tesla V100-SXM2-32GB", 32_768));
    }

    @Test
    void productsNamedWithoutMemoryTakeTheirMarketedSizeNotTheirTotalMemory() {
        assertEquals("L4-24GB", GpuModels.horizonName("NVIDIA L4", 23_034));
        assertEquals("T4-16GB", GpuModels.horizonName("Tesla T4", 15_360));
        assertEquals("L40S-48GB", GpuModels.horizonName("NVIDIA L40S", 46_068));
        assertEquals("A10G-24GB", GpuModels.horizonName("NVIDIA A10G", 23_028));
        assertEquals("H200-141GB", GpuModels.horizonName("NVIDIA H200", 143_771));
    }

    @Test
    void anUnknownProductIsNamedFromItsTotalMemory() {
        assertEquals("X1-48GB", GpuModels.horizonName("NVIDIA X1", 49_140));
    }
}
