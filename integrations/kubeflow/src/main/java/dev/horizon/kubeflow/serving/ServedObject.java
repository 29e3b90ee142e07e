package dev.horizon.kubeflow.serving;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.MissingNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.horizon.api.GpuShape;
import dev.horizon.api.integration.KubeObjects;
import dev.horizon.kit.InferenceScaler;
import dev.horizon.kit.ReplicaShape;
import dev.horizon.kit.ServedWorkload;
import dev.horizon.kit.manifest.ManifestException;
import dev.horizon.kit.manifest.Translation;
import dev.horizon.kubeflow.translate.GpuAsk;
import java.util.ArrayList;
import java.util.List;

/**
 * A model-serving object as the scaler sees it: where its kind keeps the replica count (a LeaderWorkerSet's replicas are
 * groups; a KServe InferenceService's predictor has minReplicas and maxReplicas, and an LLMInferenceService under an
 * autoscaler its spec.scaling's, both written so it runs the count Horizon sized) and its pod specs.
 */
public record ServedObject(ServingKind servingKind, ObjectNode object, ServingTranslator translator) implements ServedWorkload {
    /** LeaderWorkerSet's ask that each group have a topology domain to itself: Horizon holds each group in one NVLink domain. */
    static final String EXCLUSIVE_TOPOLOGY = "leaderworkerset.sigs.k8s.io/exclusive-topology";

    @Override
    public String kind() {
        return servingKind.kind();
    }

    @Override
    public Translation translate() {
        return translator.translate(object);
    }

    @Override
    public ReplicaShape shape(Translation translation) {
        GpuShape perPod = translation.jobs().get(0).perReplica();
        if (perPod.gpus() == null || perPod.migProfile() != null) {
            throw new ManifestException(servingKind.kind() + " " + object.at("/metadata/name").asText() + ": its pods ask for MIG instances or shares of a"
                    + " GPU; Horizon scales inference services of whole GPUs (nvidia.com/gpu)");
        }
        return new ReplicaShape(gpuPodsPerReplica(), perPod.gpus(), servingKind == ServingKind.LEADER_WORKER_SET
                && object.path("metadata").path("annotations").has(EXCLUSIVE_TOPOLOGY));
    }

    /** A LeaderWorkerSet group's pods that ask for GPUs: its workers, and its leader when the leader template asks too. */
    private int gpuPodsPerReplica() {
        if (servingKind != ServingKind.LEADER_WORKER_SET) return 1;
        JsonNode template = object.path("spec").path("leaderWorkerTemplate");
        int size = template.path("size").asInt(1);
        boolean leaderWithoutGpus = template.has("leaderTemplate") && !GpuAsk.ofPod(template.path("leaderTemplate").path("spec"), "").any();
        return Math.max(1, leaderWithoutGpus ? size - 1 : size);
    }

    /** The count written; where an autoscaler's bounds are written instead (KServe), their most. */
    @Override
    public int replicas() {
        JsonNode spec = object.path("spec");
        JsonNode bounds = autoscalerBounds();
        if (bounds.isObject()) return bounds.path("maxReplicas").asInt(bounds.path("minReplicas").asInt(1));
        return spec.path("replicas").asInt(1);
    }

    /** The count; where the kind's autoscaler bounds are written, both bounds, so it runs the count Horizon sized. */
    @Override
    public void replicas(int count) {
        ObjectNode spec = KubeObjects.child(object, "spec");
        if (!autoscalerBounds().isObject()) {
            spec.put("replicas", count);
            return;
        }
        if (count < 1 && servingKind == ServingKind.LLM_INFERENCE_SERVICE) {
            throw new ManifestException("annotation horizon.dev/min-replicas: spec.scaling.minReplicas is at least 1 (KServe refuses 0); raise the"
                    + " annotation to 1 or write spec.replicas instead of spec.scaling");
        }
        ((ObjectNode) autoscalerBounds()).put("minReplicas", count).put("maxReplicas", count);
    }

    /** An InferenceService's predictor (its bounds always), an LLMInferenceService's spec.scaling when written; else none. */
    private JsonNode autoscalerBounds() {
        return switch (servingKind) {
            case INFERENCE_SERVICE -> object.path("spec").path("predictor");
            case LLM_INFERENCE_SERVICE -> object.path("spec").path("scaling");
            default -> MissingNode.getInstance();
        };
    }

    /**
     * Deployment, StatefulSet and LeaderWorkerSet pod templates, an LLMInferenceService's pod labels; KServe labels an
     * InferenceService's predictor pods with the service itself.
     */
    @Override
    public void markPods(String service) {
        ObjectNode spec = KubeObjects.child(object, "spec");
        List<ObjectNode> templates = new ArrayList<>();
        switch (servingKind) {
            case DEPLOYMENT, STATEFUL_SET -> templates.add(KubeObjects.child(spec, "template"));
            case LEADER_WORKER_SET -> {
                ObjectNode template = KubeObjects.child(spec, "leaderWorkerTemplate");
                if (template.has("leaderTemplate")) templates.add(KubeObjects.child(template, "leaderTemplate"));
                templates.add(KubeObjects.child(template, "workerTemplate"));
            }
            case INFERENCE_SERVICE -> {
                return;
            }
            case LLM_INFERENCE_SERVICE -> {
                // spec.labels are the labels KServe puts on the workload's pods
                KubeObjects.child(spec, "labels").put(InferenceScaler.SERVICE, service);
                return;
            }
        }
        templates.forEach(t -> KubeObjects.child(KubeObjects.child(t, "metadata"), "labels").put(InferenceScaler.SERVICE, service));
    }

    @Override
    public List<ObjectNode> podSpecs() {
        ObjectNode spec = KubeObjects.child(object, "spec");
        List<ObjectNode> out = new ArrayList<>();
        switch (servingKind) {
            case DEPLOYMENT, STATEFUL_SET -> out.add(KubeObjects.child(KubeObjects.child(spec, "template"), "spec"));
            case LEADER_WORKER_SET -> {
                ObjectNode template = KubeObjects.child(spec, "leaderWorkerTemplate");
                if (template.has("leaderTemplate")) out.add(KubeObjects.child(KubeObjects.child(template, "leaderTemplate"), "spec"));
                out.add(KubeObjects.child(KubeObjects.child(template, "workerTemplate"), "spec"));
            }
            case INFERENCE_SERVICE -> out.add(KubeObjects.child(spec, "predictor"));
            case LLM_INFERENCE_SERVICE -> out.add(KubeObjects.child(spec, "template"));
        }
        return out;
    }
}
