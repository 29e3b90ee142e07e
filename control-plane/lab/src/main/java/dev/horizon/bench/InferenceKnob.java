package dev.horizon.bench;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.horizon.allocator.SchedulingPolicy;
import dev.horizon.allocator.policy.HorizonPolicy;
import dev.horizon.api.JobJson;
import dev.horizon.baseline.HpaSettings;
import dev.horizon.baseline.KaiPolicy;
import dev.horizon.baseline.KueuePolicy;
import dev.horizon.baseline.SlurmPolicy;
import java.util.ArrayList;
import java.util.List;

/**
 * The one setting of a policy that trades GPUs held by inference for its service level: the HPA's target utilization and
 * scale-down stabilization (kai, kueue, slurm), or the GPU-minutes Horizon's sizing holds to avoid a missed minute. Policies
 * without one (fifo, backfill, priority hold inference at its peak; Horizon's variants size it as Horizon's default
 * does) have none and are run as they are.
 */
sealed interface InferenceKnob {
    /** Target utilizations and stabilization windows tried for an HPA, from the Kubernetes defaults outwards. */
    double[] HPA_TARGETS = {0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2};
    long[] HPA_STABILIZATION_SECONDS = {300, 900, 1800};
    /** Prices of a missed minute (GPU-minutes) tried for Horizon's sizing: about 1.5x apart, so SLO and GPUs held move in small steps. */
    double[] MISS_PRICES = {16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512, 1024};

    /** A HorizontalPodAutoscaler's settings for kai, kueue or slurm. */
    record Hpa(String policy, HpaSettings settings) implements InferenceKnob {
        @Override
        public SchedulingPolicy create() {
            return switch (policy) {
                case "kai" -> new KaiPolicy(settings);
                case "kueue" -> new KueuePolicy(settings);
                default -> new SlurmPolicy(settings);
            };
        }

        @Override
        public ObjectNode json() {
            return JobJson.mapper().createObjectNode().put("hpaTargetUtilization", settings.targetUtilization())
                    .put("hpaScaleDownStabilizationSeconds", settings.scaleDownStabilizationSeconds());
        }

        @Override
        public boolean isDefault() {
            return settings.equals(HpaSettings.DEFAULT);
        }
    }

    /** Horizon's price of a missed minute: the GPU-minutes its inference sizing holds to avoid one. */
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

    /** Every setting tried for the policy; empty when it has no knob. */
    static List<InferenceKnob> candidates(String policy) {
        List<InferenceKnob> out = new ArrayList<>();
        switch (policy) {
            case "kai", "kueue", "slurm" -> {
                for (double t : HPA_TARGETS) for (long s : HPA_STABILIZATION_SECONDS) out.add(new Hpa(policy, new HpaSettings(t, s)));
            }
            case "horizon" -> {
                for (double p : MISS_PRICES) out.add(new MissPrice(p));
            }
            default -> {
            }
        }
        return out;
    }
}
