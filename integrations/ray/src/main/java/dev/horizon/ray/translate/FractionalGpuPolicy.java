package dev.horizon.ray.translate;

import dev.horizon.api.GpuShape;
import dev.horizon.api.mig.MigGeometry;
import dev.horizon.api.mig.MigProfile;
import java.util.Comparator;
import java.util.List;

/**
 * The admin's choice of how a fraction of a GPU (Ray's {@code num_gpus=0.5}, KAI's gpu-fraction) becomes something the
 * agent can enforce: Ray's own fractions are logical only, so two actors at 0.5 would otherwise share one GPU with no
 * limit on either.
 */
public sealed interface FractionalGpuPolicy {

    /** The shape one replica asking for {@code fraction} (strictly between 0 and 1) of a GPU gets. */
    GpuShape shareOf(double fraction, List<String> gpuTypes);

    /**
     * Time-slicing: the share gets the fraction of the GPU's time in thousandths and the same fraction of
     * {@code memoryMiBPerGpu} as its memory limit, which the agent guards; both rounded down, as Ray itself packs fractions.
     */
    record TimeSlicing(int memoryMiBPerGpu) implements FractionalGpuPolicy {
        public TimeSlicing {
            if (memoryMiBPerGpu < 1) throw new IllegalArgumentException("time-slicing needs the GPU memory to divide, in MiB (got " + memoryMiBPerGpu + ")");
        }

        @Override
        public GpuShape shareOf(double fraction, List<String> gpuTypes) {
            // rounded down, as Ray packs fractions: shares adding up to one GPU fit its compute and memory
            int milli = Math.max(1, (int) Math.floor(fraction * 1000 + 1e-9));
            int memory = Math.max(1, (int) Math.floor(fraction * memoryMiBPerGpu + 1e-9));
            return new GpuShape(null, null, milli, memory, gpuTypes);
        }
    }

    /**
     * MIG: the smallest profile of {@code gpuModel} whose compute slices (of 7) cover the fraction, the one with less
     * memory first where two have the same compute. A MIG slice is isolated in hardware, unlike a time-slice.
     */
    record Mig(String gpuModel) implements FractionalGpuPolicy {
        public Mig {
            MigGeometry.of(gpuModel);
        }

        @Override
        public GpuShape shareOf(double fraction, List<String> gpuTypes) {
            if (gpuTypes != null && !gpuTypes.contains(gpuModel)) {
                throw new RayTranslationException("asks for " + gpuTypes + " but fractional GPUs are MIG slices of " + gpuModel
                        + " by the admin's policy; drop the accelerator type or ask for whole GPUs");
            }
            MigProfile profile = MigGeometry.of(gpuModel).profiles().stream()
                    .sorted(Comparator.comparingInt(MigProfile::computeSlices).thenComparingInt(MigProfile::memorySlices))
                    .filter(p -> p.gpuFraction() >= fraction - 1e-9)
                    .findFirst()
                    .orElseThrow(() -> new IllegalStateException("the whole-GPU profile of " + gpuModel + " covers any fraction"));
            return new GpuShape(null, profile.name(), null, null, List.of(gpuModel));
        }
    }

    /** "time-slicing:81920" or "mig:H100-80GB", as the command line and configuration give it. */
    public static FractionalGpuPolicy parse(String text) {
        String[] parts = text.split(":", 2);
        if (parts.length == 2 && parts[0].equals("time-slicing") && parts[1].matches("\\d+")) return new TimeSlicing(Integer.parseInt(parts[1]));
        if (parts.length == 2 && parts[0].equals("mig") && MigGeometry.supportsMig(parts[1])) return new Mig(parts[1]);
        throw new IllegalArgumentException("'" + text + "' is not a fractional-GPU policy; use time-slicing:MEMORY_MIB_PER_GPU (such as"
                + " time-slicing:81920) or mig:MODEL with a MIG model (such as mig:H100-80GB)");
    }
}
