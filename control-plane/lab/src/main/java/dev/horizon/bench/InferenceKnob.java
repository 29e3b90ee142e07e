package dev.horizon.bench;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.horizon.allocator.SchedulingPolicy;
import dev.horizon.allocator.policy.HorizonPolicy;
import dev.horizon.api.JobJson;
import dev.horizon.baseline.HpaSettings;
import dev.horizon.baseline.KaiPolicy;
import dev.horizon.baseline.KueuePolicy;
import dev.horizon.baseline.ServedBy;
import dev.horizon.baseline.SlurmPolicy;
import java.util.ArrayList;
import java.util.List;

/**
 * The one setting of a run that trades GPUs held by inference for its service level: the serving autoscaler's. For kai,
 * kueue and slurm a HorizontalPodAutoscaler's target utilization and scale-down stabilization, what clusters under them
 * run. For horizon its burst sizing's price of a missed minute, or the same HPA settings: sizing replicas is the serving
 * system's business (the control plane reserves and lends GPUs; it never sizes replicas), so a cluster under Horizon can
 * run the HPA the peers run, and at an equal service level Horizon is not held to an autoscaler that costs more. On four
 * of five fresh Philly days the burst sizing's cheapest price to meet 0.99 was its top one, 1024, holding more GPU-hours
 * than the HPA at 0.5 (docs/bench.md). The peers are not offered the burst sizing: it grows and shrinks by the minute,
 * which under a scheduler that lends nothing preempts batch work at every growth (tried: Slurm-like lost 14-16% on two
 * wide-gangs days). Policies without a knob (fifo, backfill, priority hold inference at its peak; Horizon's variants size
 * it as Horizon's default does) are run as they are.
 */
sealed interface InferenceKnob {
    /** Target utilizations and stabilization windows tried for an HPA, from the Kubernetes defaults outwards. */
    double[] HPA_TARGETS = {0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2};
    long[] HPA_STABILIZATION_SECONDS = {300, 900, 1800};
    /** Prices of a missed minute (GPU-minutes) tried for the burst sizing: about 1.5x apart, so SLO and GPUs held move in small steps. */
    double[] MISS_PRICES = {16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512, 1024};

    /** A HorizontalPodAutoscaler of these settings sizes the policy's services. */
    record Hpa(String policy, HpaSettings settings) implements InferenceKnob {
        @Override
        public SchedulingPolicy create() {
            return switch (policy) {
                case "kai" -> new KaiPolicy(settings);
                case "kueue" -> new KueuePolicy(settings);
                case "slurm" -> new SlurmPolicy(settings);
                default -> ServedBy.hpa(new HorizonPolicy(), settings);
            };
        }

        @Override
        public ObjectNode json() {
            return JobJson.mapper().createObjectNode().put("hpaTargetUtilization", settings.targetUtilization())
                    .put("hpaScaleDownStabilizationSeconds", settings.scaleDownStabilizationSeconds());
        }

        @Override
        public boolean isDefault() {
            return !policy.equals("horizon") && settings.equals(HpaSettings.DEFAULT);
        }
    }

    /** Horizon's price of a missed minute: the GPU-minutes its burst sizing holds to avoid one. */
    record MissPrice(double gpuMinutes) implements InferenceKnob {
        @Override
        public SchedulingPolicy create() {
            return new HorizonPolicy(gpuMinutes);
        }

        @Override
        public ObjectNode json() {
            return JobJson.mapper().createObjectNode().put("missedMinuteGpuMinutes", gpuMinutes);
        }

        @Override
        public boolean isDefault() {
            return gpuMinutes == HorizonPolicy.DEFAULT_INFERENCE_MISS_PRICE;
        }
    }

    /** The policy, fresh, with this setting. */
    SchedulingPolicy create();

    ObjectNode json();

    /** Whether this is the setting the policy has when nobody calibrates it. */
    boolean isDefault();

    /** Every setting tried for the policy, Horizon's burst sizing before its HPA (a tie in GPU-hours keeps its own); empty when it has no knob. */
    static List<InferenceKnob> candidates(String policy) {
        List<InferenceKnob> out = new ArrayList<>();
        switch (policy) {
            case "kai", "kueue", "slurm" -> hpaSettings(policy, out);
            case "horizon" -> {
                for (double p : MISS_PRICES) out.add(new MissPrice(p));
                hpaSettings(policy, out);
            }
            default -> {
            }
        }
        return out;
    }

    private static void hpaSettings(String policy, List<InferenceKnob> out) {
        for (double t : HPA_TARGETS) for (long s : HPA_STABILIZATION_SECONDS) out.add(new Hpa(policy, new HpaSettings(t, s)));
    }
}
