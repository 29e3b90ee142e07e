package dev.horizon.kubeflow.batch;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.horizon.kit.crd.SchemaReleases;
import dev.horizon.kit.crd.StructuralSchema;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.EnumMap;
import java.util.Map;

/**
 * Structural schemas of the batch kinds, cut as the Kubeflow CRDs' are: what Horizon reads is typed (the pod
 * templates' containers, resources and nodeSelector, the counts and modes that make the gang), and unknown fields are
 * refused where the whole shape is listed here (Job, Pod template, JobSet) as the API server refuses them. A Volcano
 * Job's spec and tasks are left open beyond the fields read, and a pod spec beyond containers and nodeSelector: the
 * API server checks those when the workload is created.
 */
public final class BatchSchemas {
    private static final String QUANTITIES = "{\"type\":\"object\",\"additionalProperties\":{\"x-kubernetes-int-or-string\":true}}";
    private static final String CONTAINER = """
            {"type":"object","x-kubernetes-preserve-unknown-fields":true,"required":["name"],"properties":{
              "name":{"type":"string"},"image":{"type":"string"},
              "resources":{"type":"object","properties":{"limits":%s,"requests":%s,"claims":{"type":"array"}}}}}""".formatted(QUANTITIES, QUANTITIES);
    private static final String POD_SPEC = """
            {"type":"object","x-kubernetes-preserve-unknown-fields":true,"required":["containers"],"properties":{
              "containers":{"type":"array","items":%s},"initContainers":{"type":"array","items":%s},
              "nodeSelector":{"type":"object","additionalProperties":{"type":"string"}},"priorityClassName":{"type":"string"},
              "affinity":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}""".formatted(CONTAINER, CONTAINER);
    private static final String POD_TEMPLATE = "{\"type\":\"object\",\"properties\":{\"metadata\":{\"type\":\"object\"},\"spec\":" + POD_SPEC + "}}";
    private static final String OPEN = "{\"type\":\"object\",\"x-kubernetes-preserve-unknown-fields\":true}";
    private static final String INT = "{\"type\":\"integer\",\"minimum\":0}";
    private static final String JOB_SPEC = """
            {"type":"object","required":["template"],"properties":{
              "parallelism":%2$s,"completions":%2$s,"completionMode":{"type":"string","enum":["NonIndexed","Indexed"]},
              "suspend":{"type":"boolean"},"backoffLimit":%2$s,"backoffLimitPerIndex":%2$s,"maxFailedIndexes":%2$s,
              "activeDeadlineSeconds":%2$s,"ttlSecondsAfterFinished":%2$s,"podFailurePolicy":%3$s,"successPolicy":%3$s,"selector":%3$s,
              "manualSelector":{"type":"boolean"},"podReplacementPolicy":{"type":"string"},"managedBy":{"type":"string"},
              "template":%1$s}}""".formatted(POD_TEMPLATE, INT, OPEN);
    private static final Map<BatchKind, String> SPECS = Map.of(
            BatchKind.JOB, JOB_SPEC,
            BatchKind.POD, POD_SPEC,
            BatchKind.JOB_SET, """
                    {"type":"object","required":["replicatedJobs"],"properties":{
                      "replicatedJobs":{"type":"array","minItems":1,"items":{"type":"object","required":["name","template"],"properties":{
                        "name":{"type":"string"},"groupName":{"type":"string"},"replicas":%2$s,"dependsOn":{"type":"array"},
                        "template":{"type":"object","properties":{"metadata":{"type":"object"},"spec":%1$s}}}}},
                      "startupPolicy":{"type":"object","properties":{"startupPolicyOrder":{"type":"string","enum":["AnyOrder","InOrder"]}}},
                      "suspend":{"type":"boolean"},"network":%3$s,"successPolicy":%3$s,"failurePolicy":%3$s,"coordinator":%3$s,
                      "managedBy":{"type":"string"},"ttlSecondsAfterFinished":%2$s}}""".formatted(JOB_SPEC, INT, OPEN),
            BatchKind.VOLCANO_JOB, """
                    {"type":"object","x-kubernetes-preserve-unknown-fields":true,"properties":{
                      "minAvailable":%2$s,"queue":{"type":"string"},"schedulerName":{"type":"string"},"priorityClassName":{"type":"string"},
                      "tasks":{"type":"array","items":{"type":"object","x-kubernetes-preserve-unknown-fields":true,"properties":{
                        "name":{"type":"string"},"replicas":%2$s,"minAvailable":%2$s,"template":%1$s}}}}}""".formatted(POD_TEMPLATE, INT));
    private static final Map<BatchKind, SchemaReleases> SCHEMAS = new EnumMap<>(BatchKind.class);

    private BatchSchemas() {
    }

    static synchronized SchemaReleases of(BatchKind kind) {
        return SCHEMAS.computeIfAbsent(kind, k -> withSpec(k.apiVersion() + " " + k.kind(), SPECS.get(k)));
    }

    /**
     * The schema of an object whose spec has the given schema (JSON, in which {@code %1$s} stands for a pod template's
     * and {@code %2$s} for an open object's), named {@code what} in refusals.
     */
    public static SchemaReleases withSpec(String what, String specSchema) {
        return SchemaReleases.single(what, new StructuralSchema(parse(
                "{\"type\":\"object\",\"required\":[\"spec\"],\"properties\":{\"apiVersion\":{\"type\":\"string\"},\"kind\":{\"type\":\"string\"},"
                        + "\"metadata\":{\"type\":\"object\"},\"spec\":" + specSchema.formatted(POD_TEMPLATE, OPEN) + ",\"status\":" + OPEN + "}}")));
    }

    private static com.fasterxml.jackson.databind.JsonNode parse(String json) {
        try {
            return new ObjectMapper().readTree(json);
        } catch (IOException e) {
            throw new UncheckedIOException("a batch schema is not JSON; the build is broken", e);
        }
    }
}
