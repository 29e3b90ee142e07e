package dev.horizon.kubeflow.serving;

import com.fasterxml.jackson.databind.JsonNode;
import dev.horizon.kit.WorkloadKind;
import dev.horizon.kit.crd.SchemaReleases;
import dev.horizon.kit.manifest.KindsRead;
import dev.horizon.kit.manifest.Manifests;
import dev.horizon.kubeflow.batch.BatchSchemas;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;

/**
 * The kinds that serve a model, which Horizon reads as real-time inference: a Deployment or StatefulSet opted in by
 * the {@value ServingTranslator#INFERENCE_LABEL} label, a LeaderWorkerSet (multi-host serving), a KServe
 * InferenceService or LLMInferenceService. Their schemas type what Horizon reads; Deployment's and StatefulSet's specs are strict, the
 * operators' kinds are left open beyond the fields read.
 */
public enum ServingKind {
    DEPLOYMENT("apps", "v1", "Deployment", """
            {"type":"object","required":["template"],"properties":{"replicas":{"type":"integer","minimum":0},"selector":%2$s,"template":%1$s,
              "strategy":%2$s,"minReadySeconds":{"type":"integer"},"revisionHistoryLimit":{"type":"integer"},
              "progressDeadlineSeconds":{"type":"integer"},"paused":{"type":"boolean"}}}"""),
    STATEFUL_SET("apps", "v1", "StatefulSet", """
            {"type":"object","required":["template"],"properties":{"replicas":{"type":"integer","minimum":0},"selector":%2$s,"template":%1$s,
              "serviceName":{"type":"string"},"volumeClaimTemplates":{"type":"array"},"podManagementPolicy":{"type":"string"},
              "updateStrategy":%2$s,"revisionHistoryLimit":{"type":"integer"},"minReadySeconds":{"type":"integer"},
              "persistentVolumeClaimRetentionPolicy":%2$s,"ordinals":%2$s}}"""),
    LEADER_WORKER_SET("leaderworkerset.x-k8s.io", "v1", "LeaderWorkerSet", """
            {"type":"object","x-kubernetes-preserve-unknown-fields":true,"required":["leaderWorkerTemplate"],"properties":{
              "replicas":{"type":"integer","minimum":0},"leaderWorkerTemplate":{"type":"object","x-kubernetes-preserve-unknown-fields":true,
              "required":["workerTemplate"],"properties":{"size":{"type":"integer","minimum":1},"leaderTemplate":%1$s,"workerTemplate":%1$s}}}}"""),
    INFERENCE_SERVICE("serving.kserve.io", "v1beta1", "InferenceService", """
            {"type":"object","x-kubernetes-preserve-unknown-fields":true,"required":["predictor"],"properties":{
              "predictor":{"type":"object","x-kubernetes-preserve-unknown-fields":true,"properties":{
                "minReplicas":{"type":"integer","minimum":0},"maxReplicas":{"type":"integer","minimum":0},
                "nodeSelector":{"type":"object","additionalProperties":{"type":"string"}}}}}}"""),
    /** KServe's generative-AI kind: one workload of spec.replicas pods of spec.template (or spec.scaling's bounds under an autoscaler). */
    LLM_INFERENCE_SERVICE("serving.kserve.io", "v1alpha1", "LLMInferenceService", """
            {"type":"object","x-kubernetes-preserve-unknown-fields":true,"properties":{
              "replicas":{"type":"integer","minimum":0},
              "scaling":{"type":"object","x-kubernetes-preserve-unknown-fields":true,"properties":{
                "minReplicas":{"type":"integer","minimum":1},"maxReplicas":{"type":"integer","minimum":1}}},
              "template":{"type":"object","x-kubernetes-preserve-unknown-fields":true,"properties":{
                "nodeSelector":{"type":"object","additionalProperties":{"type":"string"}}}}}}""");

    public static final KindsRead READ = new KindsRead("model-serving workload",
            Arrays.stream(values()).map(k -> new KindsRead.KindAt(k.apiVersion(), k.kind)).toList());

    private final String group;
    private final String version;
    private final String kind;
    private final String specSchema;
    private SchemaReleases schema;

    ServingKind(String group, String version, String kind, String specSchema) {
        this.group = group;
        this.version = version;
        this.kind = kind;
        this.specSchema = specSchema;
    }

    public static Optional<ServingKind> of(JsonNode manifest) {
        return Arrays.stream(values()).filter(k -> k.apiVersion().equals(Manifests.apiVersion(manifest)) && k.kind.equals(Manifests.kind(manifest)))
                .findFirst();
    }

    public String apiVersion() {
        return group + "/" + version;
    }

    public String kind() {
        return kind;
    }

    /**
     * Whether the object serves a model: a Deployment or StatefulSet only when labelled {@value ServingTranslator#INFERENCE_LABEL}
     * (most are not Horizon's, and the scaler writes nothing on them); every object of the other kinds.
     */
    public boolean serves(JsonNode object) {
        return !(this == DEPLOYMENT || this == STATEFUL_SET) || "true".equals(Manifests.label(object, ServingTranslator.INFERENCE_LABEL));
    }

    /** Where the API server keeps the kind (its plural is its lower-case kind and "s" for each). */
    public ResourceDefinitionContext context() {
        return WorkloadKind.context(group, version, kind, kind.toLowerCase(Locale.ROOT) + "s");
    }

    synchronized SchemaReleases schema() {
        if (schema == null) schema = BatchSchemas.withSpec(apiVersion() + " " + kind, specSchema);
        return schema;
    }
}
