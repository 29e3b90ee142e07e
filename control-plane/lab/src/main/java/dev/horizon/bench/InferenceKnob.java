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
 * scale-down stabilization (kai, kueue, slurm), or the share of observed minutes Horizon's sizing covers. Policies
 * without one (fifo, backfill, priority hold inference at its peak; Horizon's variants size it as Horizon's default
 * does) have none and are run as they are.
 */
sealed interface InferenceKnob {
    /** Target utilizations and stabilization windows tried for an HPA, from the Kubernetes defaults outwards. */
    double[] HPA_TARGETS = {0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2};
    long[] HPA_STABILIZATION_SECONDS = {300, 900, 1800};
    /** Coverages tried for Horizon's burst margin. */
    double[] COVERAGES = {0.95, 0.98, 0.99, 0.995, 0.998, 0.999, 0.9995};

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

    /** Horizon's coverage: the share of the minutes it has seen that its inference sizing would have covered. */
    record Coverage(double coverage) implements InferenceKnob {
        @Override
        public SchedulingPolicy create() {
            return new HorizonPolicy(coverage);
        }

        @Override
        public ObjectNode json() {
            return JobJson.mapper().createObjectNode().put("coverage", coverage);
        }

        @Override
        public boolean isDefault() {
            return coverage == HorizonPolicy.DEFAULT_INFERENCE_COVERAGE;
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
                for (double c : COVERAGES) out.add(new Coverage(c));
            }
            default -> {
            }
        }
        return out;
    }
}
