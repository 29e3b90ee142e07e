package dev.horizon.kubeflow.batch;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.horizon.api.JobClass;
import dev.horizon.api.JobSource;
import dev.horizon.api.JobSpec;
import dev.horizon.kit.manifest.GpuLimits;
import dev.horizon.kit.manifest.Manifests;
import dev.horizon.kit.manifest.NodeSelection;
import dev.horizon.kit.manifest.Translation;
import dev.horizon.kubeflow.translate.GpuAsk;
import dev.horizon.kubeflow.translate.NoGpuRequestedException;
import dev.horizon.kubeflow.translate.TranslationException;
import dev.horizon.kubeflow.translate.TranslationOptions;
import dev.horizon.kubeflow.translate.Translator;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Turns one batch workload (Job, Pod, JobSet, Volcano Job) into the scheduler job its GPU pods ask for, by the rules
 * the Kubeflow jobs follow: the GPU pods of every group are the replicas of one job of one GPU shape, pods without
 * GPUs run beside them, the team comes from the same queue rule, the GPU models from the pods' node selection.
 */
public final class BatchTranslator {
    private final TranslationOptions options;

    public BatchTranslator(TranslationOptions options) {
        this.options = options;
    }

    public Translation translate(JsonNode document) {
        BatchKind kind = BatchKind.of(document).orElseThrow(() -> new TranslationException(Manifests.describe(document) + ": not a "
                + BatchKind.READ.what()));
        ObjectNode manifest = (ObjectNode) document;
        List<String> warnings = new ArrayList<>(BatchSchemas.of(kind).check(manifest));
        String name = Manifests.nameOrPrefix(manifest);
        if (name.isEmpty()) throw new TranslationException("metadata.name: is required (or metadata.generateName)");
        Optional.ofNullable(Manifests.generateNameWarning(manifest)).ifPresent(warnings::add);
        PodGroups groups = PodGroups.of(kind, manifest);
        GpuPods gpu = gpuPods(manifest, groups);
        gpu.pods().forEach((path, pod) -> warnings.addAll(GpuLimits.requestsWithoutLimits(pod, path)));
        NodeSelection selection = NodeSelection.ofAll(gpu.pods(), options.gpuModels());
        warnings.addAll(selection.warnings());
        if (kind == BatchKind.JOB && groups.gang()) indexedInWaves(manifest.path("spec")).ifPresent(warnings::add);
        Integer min = groups.minAvailable() == null ? null : Math.max(1, groups.minAvailable() - gpu.otherPods());
        String namespace = Manifests.namespace(manifest, options.defaultNamespace());
        JobSpec spec = new JobSpec(name, options.teams().team(manifest, namespace), Manifests.jobClass(manifest, JobClass.TRAINING),
                priority(manifest, gpu), gpu.count(), min != null && min < gpu.count() ? min : null,
                gpu.ask().shape().onModels(selection.models().orElse(null)), groups.gang(), null, Translator.durationEstimate(manifest), null,
                new JobSource(kind.sourceKind(), namespace, name));
        List<String> problems = spec.problems();
        if (!problems.isEmpty()) throw new TranslationException("the scheduler job would be invalid: " + String.join("; ", problems));
        return new Translation(List.of(spec), warnings);
    }

    /** The GPU pods of every group: their count and shape, their pod specs by path; the pods without GPUs, counted. */
    private record GpuPods(int count, GpuAsk ask, Map<String, JsonNode> pods, int otherPods) {
    }

    private static GpuPods gpuPods(JsonNode manifest, PodGroups groups) {
        int count = 0;
        int other = 0;
        GpuAsk shape = null;
        String shapeFrom = null;
        Map<String, JsonNode> pods = new LinkedHashMap<>();
        for (PodGroups.Group group : groups.groups()) {
            JsonNode podSpec = group.template().path("spec");
            GpuAsk ask = GpuAsk.ofPod(podSpec, group.podSpecPath());
            if (!ask.any() || group.pods() == 0) {
                other += group.pods();
                continue;
            }
            if (shape != null && !shape.equals(ask)) {
                throw new TranslationException(group.podSpecPath() + ": asks for " + ask.describe() + " per pod but " + shapeFrom + " asks for "
                        + shape.describe() + "; Horizon plans one GPU shape per job, so give every GPU pod the same limits");
            }
            shape = ask;
            shapeFrom = group.podSpecPath();
            count += group.pods();
            pods.put(group.podSpecPath(), podSpec);
        }
        if (shape == null) throw noGpu(manifest, groups);
        return new GpuPods(count, shape, pods, other);
    }

    /**
     * A workload whose pods ask for GPUs through their own DRA ResourceClaims is refused for that reason: Horizon plans
     * nvidia.com limits and writes the claims on the planned devices itself. Any other is CPU work.
     */
    private static TranslationException noGpu(JsonNode manifest, PodGroups groups) {
        for (PodGroups.Group group : groups.groups()) {
            JsonNode claims = group.template().path("spec").path("resourceClaims");
            if (claims.isArray() && !claims.isEmpty()) {
                return new TranslationException(Manifests.describe(manifest) + " asks for devices through its own DRA ResourceClaims ("
                        + group.podSpecPath() + ".resourceClaims); Horizon plans pods that ask for nvidia.com/gpu or nvidia.com/mig-<profile>"
                        + " limits and writes the claims on the planned devices itself, so ask for the GPUs as limits");
            }
        }
        return new NoGpuRequestedException(Manifests.describe(manifest));
    }

    /** An indexed Job with more completions than parallelism runs its indexes in waves; each wave is the gang planned. */
    private static Optional<String> indexedInWaves(JsonNode spec) {
        int pods = PodGroups.jobPods(spec);
        if (!spec.has("completions") || spec.path("completions").asInt() <= pods) return Optional.empty();
        return Optional.of("spec.completions: " + spec.path("completions").asInt() + " indexes run " + pods + " at a time; Horizon plans the "
                + pods + " pods of a wave as one gang, and the Job keeps its GPUs until the last index completes");
    }

    /** The Horizon priority of the pods' priority class (a Volcano Job's spec.priorityClassName), through --priority-class. */
    private Integer priority(JsonNode manifest, GpuPods gpu) {
        String priorityClass = manifest.path("spec").path("priorityClassName").asText(null);
        if (priorityClass == null) {
            priorityClass = gpu.pods().values().stream().map(p -> p.path("priorityClassName").asText(null)).filter(c -> c != null).findFirst().orElse(null);
        }
        return priorityClass == null ? null : options.priorityClasses().get(priorityClass);
    }
}
