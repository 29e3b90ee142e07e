package dev.horizon.kubeflow.serving;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
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
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Turns a model-serving workload into the real-time inference job its GPU pods ask for (class realtime-inference, no
 * gang: a partial set of replicas already serves), by the rules the other kinds follow for GPUs, team and node
 * selection. The job says what the workload asks for as written (a KServe InferenceService between its minReplicas and
 * maxReplicas); in the cluster the inference scaler ({@link dev.horizon.kit.InferenceScaler}) runs it as an inference
 * service, sizing its replicas from the forecast, and reads its GPU shape from this job.
 */
public final class ServingTranslator {
    /** The label that opts a Deployment or StatefulSet in: most Deployments with GPUs are not Horizon's to plan. */
    public static final String INFERENCE_LABEL = "horizon.dev/inference";
    /** KServe's predictor fields that name a model server's container (a framework, or the model spec). */
    private static final List<String> KSERVE_SERVERS = List.of("model", "sklearn", "xgboost", "tensorflow", "pytorch", "triton", "onnx",
            "huggingface", "lightgbm", "paddle", "pmml");

    private final TranslationOptions options;

    public ServingTranslator(TranslationOptions options) {
        this.options = options;
    }

    public Translation translate(JsonNode manifest) {
        ServingKind kind = ServingKind.of(manifest).orElseThrow(() -> new TranslationException(Manifests.describe(manifest) + ": not a "
                + ServingKind.READ.what()));
        List<String> warnings = new ArrayList<>(kind.schema().check(manifest));
        String name = Manifests.nameOrPrefix(manifest);
        if (name.isEmpty()) throw new TranslationException("metadata.name: is required (or metadata.generateName)");
        Optional.ofNullable(Manifests.generateNameWarning(manifest)).ifPresent(warnings::add);
        JsonNode spec = manifest.path("spec");
        Replicas replicas = switch (kind) {
            case DEPLOYMENT, STATEFUL_SET -> optedIn(kind, manifest);
            case LEADER_WORKER_SET -> leaderWorkerSet(spec, warnings);
            case INFERENCE_SERVICE -> inferenceService(spec);
            case LLM_INFERENCE_SERVICE -> llmInferenceService(spec);
        };
        GpuAsk ask = null;
        for (Map.Entry<String, JsonNode> pod : replicas.pods().entrySet()) {
            GpuAsk one = GpuAsk.ofPod(pod.getValue(), pod.getKey());
            if (!one.any()) continue;
            if (ask != null && !ask.equals(one)) {
                throw new TranslationException(pod.getKey() + ": asks for " + one.describe() + " per pod but another pod asks for " + ask.describe()
                        + "; Horizon plans one GPU shape per service, so give its GPU pods the same limits");
            }
            ask = one;
            warnings.addAll(GpuLimits.requestsWithoutLimits(pod.getValue(), pod.getKey()));
        }
        if (ask == null) throw new NoGpuRequestedException(Manifests.describe(manifest));
        NodeSelection selection = NodeSelection.ofAll(replicas.pods(), options.gpuModels());
        warnings.addAll(selection.warnings());
        String namespace = Manifests.namespace(manifest, options.defaultNamespace());
        JobSpec job = new JobSpec(name, options.teams().team(manifest, namespace), Manifests.jobClass(manifest, JobClass.REALTIME_INFERENCE), null,
                replicas.count(), replicas.min(), ask.shape().onModels(selection.models().orElse(null)), false, null, null, null,
                new JobSource(kind.kind(), namespace, name));
        List<String> problems = job.problems();
        if (!problems.isEmpty()) throw new TranslationException("the scheduler job would be invalid: " + String.join("; ", problems));
        return new Translation(List.of(job), warnings);
    }

    /** The pods to plan, the fewest that serve (null: all), and their pod specs by path. */
    private record Replicas(int count, Integer min, Map<String, JsonNode> pods) {
    }

    private static Replicas optedIn(ServingKind kind, JsonNode manifest) {
        if (!"true".equals(Manifests.label(manifest, INFERENCE_LABEL))) {
            throw new TranslationException(Manifests.describe(manifest) + " is not marked as inference: Horizon plans a " + kind.kind()
                    + " as a real-time inference service when it is labelled " + INFERENCE_LABEL + ": \"true\"; others are left to the default scheduler");
        }
        return new Replicas(manifest.path("spec").path("replicas").asInt(1), null, Map.of("spec.template.spec",
                manifest.path("spec").path("template").path("spec")));
    }

    /**
     * Each group is a leader and size-1 workers; the job counts every pod of every group. A group serves only whole,
     * which one job of one shape does not say: the inference scaler holds each group's GPUs whole ({@link ServedObject}),
     * and the warning says so to whoever reads the job alone.
     */
    private static Replicas leaderWorkerSet(JsonNode spec, List<String> warnings) {
        JsonNode template = spec.path("leaderWorkerTemplate");
        int size = template.path("size").asInt(1);
        int groups = spec.path("replicas").asInt(1);
        Map<String, JsonNode> pods = new LinkedHashMap<>();
        if (template.has("leaderTemplate")) pods.put("spec.leaderWorkerTemplate.leaderTemplate.spec", template.path("leaderTemplate").path("spec"));
        pods.put("spec.leaderWorkerTemplate.workerTemplate.spec", template.path("workerTemplate").path("spec"));
        if (size > 1) {
            warnings.add("spec.leaderWorkerTemplate.size: each of the " + groups + " groups is " + size + " pods that serve only together; the job"
                    + " counts the " + groups * size + " pods, and in the cluster Horizon's inference scaler holds each group's GPUs whole, as one replica");
        }
        return new Replicas(groups * size, null, pods);
    }

    /** The predictor's pod: its model server's container (a framework or model field) and its own containers. */
    private static Replicas inferenceService(JsonNode spec) {
        JsonNode predictor = spec.path("predictor");
        ObjectNode pod = JsonNodeFactory.instance.objectNode();
        pod.set("nodeSelector", predictor.path("nodeSelector"));
        pod.set("affinity", predictor.path("affinity"));
        for (String server : KSERVE_SERVERS) {
            if (predictor.path(server).isObject()) pod.withArray("containers").add(predictor.get(server));
        }
        for (Iterator<JsonNode> it = predictor.path("containers").elements(); it.hasNext(); ) pod.withArray("containers").add(it.next());
        int min = predictor.path("minReplicas").asInt(1);
        int max = predictor.path("maxReplicas").asInt(Math.max(min, 1));
        return new Replicas(Math.max(max, 1), min >= 1 && min < max ? min : null, Map.of("spec.predictor", pod));
    }

    /**
     * One workload of spec.template's pods: spec.replicas of them, or between spec.scaling's bounds when an autoscaler
     * sizes it. A multi-node service (spec.worker: a group of a head and workers) and a disaggregated one (spec.prefill:
     * a second workload of its own size) are refused, naming the field: Horizon sizes one workload of one pod a replica.
     */
    private static Replicas llmInferenceService(JsonNode spec) {
        if (spec.has("worker")) {
            throw new TranslationException("spec.worker: a multi-node LLMInferenceService (a head and workers per replica) is not planned by Horizon"
                    + " yet; serve from spec.template alone, or deploy the group as a LeaderWorkerSet, which Horizon holds whole");
        }
        if (spec.has("prefill")) {
            throw new TranslationException("spec.prefill: a disaggregated LLMInferenceService is two workloads (prefill and decode) of their own"
                    + " sizes; Horizon sizes one workload per service, so deploy them as two LLMInferenceServices");
        }
        JsonNode scaling = spec.path("scaling");
        Map<String, JsonNode> pods = Map.of("spec.template", spec.path("template"));
        if (!scaling.isObject()) return new Replicas(Math.max(1, spec.path("replicas").asInt(1)), null, pods);
        int min = scaling.path("minReplicas").asInt(1);
        int max = scaling.path("maxReplicas").asInt(min);
        return new Replicas(max, min < max ? min : null, pods);
    }
}
