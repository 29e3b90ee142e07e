package dev.horizon.kubeflow.translate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.horizon.api.JobSpec;
import dev.horizon.api.cli.CommandRunner.Result;
import dev.horizon.kubeflow.Translate;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Manifests as the API server reads them: ObjectMeta in templates, types it refuses, GPUs in requests only, Argo's
 * parameters; and the GPU model a pod's node selection pins, which becomes gpuTypes.
 */
class ApiServerReadingTest {
    @TempDir
    Path dir;

    private Result translate(String yaml, String... options) {
        return Translate.run(Translate.file(dir, "job.yaml", yaml), options);
    }

    private static String tfJob(String templateMetadata, String podSpecExtra, String resources) {
        return """
                apiVersion: kubeflow.org/v1
                kind: TFJob
                metadata: {name: mnist, namespace: ml}
                spec:
                  tfReplicaSpecs:
                    Worker:
                      replicas: 2
                      template:
                        metadata: %s
                        spec:
                          %s
                          containers: [{name: tensorflow, image: x, resources: %s}]
                """.formatted(templateMetadata, podSpecExtra, resources);
    }

    @Test
    void aTemplateWithCreationTimestampNullAndOtherObjectMetaTranslates() {
        Result result = translate(tfJob("""
                {creationTimestamp: null, generateName: mnist-, labels: {app: mnist},
                ownerReferences: [{apiVersion: v1, kind: ConfigMap, name: owner, uid: "1"}], managedFields: [{manager: kubectl}]}""",
                "restartPolicy: OnFailure", "{limits: {nvidia.com/gpu: 1}}"));
        assertEquals(0, result.exit(), result.err());
        assertEquals(2, Translate.job(result).replicaCount());
    }

    @Test
    void anIntegerWhereTheApiServerWantsAStringIsRefusedNamingTheField() {
        Result selector = translate(tfJob("{}", "nodeSelector: {gpu-count: 8}", "{limits: {nvidia.com/gpu: 1}}"));
        assertEquals(2, selector.exit());
        assertTrue(selector.err().contains("spec.tfReplicaSpecs[Worker].template.spec.nodeSelector[gpu-count]: must be a string, got the number 8"),
                selector.err());
        Result label = translate(tfJob("{labels: {version: 2}}", "restartPolicy: OnFailure", "{limits: {nvidia.com/gpu: 1}}"));
        assertEquals(2, label.exit());
        assertTrue(label.err().contains("template.metadata.labels[version]: must be a string, got the number 2"), label.err());
    }

    @Test
    void gpusInRequestsWithoutLimitsTranslateWithAWarning() {
        Result result = translate(tfJob("{}", "restartPolicy: OnFailure", "{requests: {nvidia.com/gpu: 2}}"));
        assertEquals(2, Translate.job(result).perReplica().gpus());
        assertTrue(result.err().contains("containers[0].resources.requests[nvidia.com/gpu]: GPUs in requests without limits; the API server refuses"),
                result.err());
        assertTrue(translate(tfJob("{}", "restartPolicy: OnFailure", "{limits: {nvidia.com/gpu: 2}}")).err().isBlank());
    }

    @Test
    void aGpuProductPinBecomesGpuTypes() {
        JobSpec gfd = Translate.job(translate(tfJob("{}", "nodeSelector: {nvidia.com/gpu.product: NVIDIA-A100-SXM4-80GB}", "{limits: {nvidia.com/gpu: 1}}")));
        assertEquals(List.of("A100-80GB"), gfd.perReplica().gpuTypes());
        JobSpec gke = Translate.job(translate(tfJob("{}", """
                affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchExpressions: [
                            {key: cloud.google.com/gke-accelerator, operator: In, values: [nvidia-l4, nvidia-tesla-t4]}]}]}}}""",
                "{limits: {nvidia.com/gpu: 1}}")));
        assertEquals(List.of("L4-24GB", "T4-16GB"), gke.perReplica().gpuTypes());
        JobSpec karpenter = Translate.job(translate(tfJob("{}", "nodeSelector: {karpenter.k8s.aws/instance-gpu-name: a100}", "{limits: {nvidia.com/gpu: 1}}")));
        assertEquals(List.of("A100-40GB", "A100-80GB"), karpenter.perReplica().gpuTypes());
        assertNull(Translate.job(translate(tfJob("{}", "nodeSelector: {disk: ssd}", "{limits: {nvidia.com/gpu: 1}}"))).perReplica().gpuTypes());
    }

    @Test
    void aProductTheTableLacksWarnsUntilAnAdminAddsIt() {
        String job = tfJob("{}", "nodeSelector: {nvidia.com/gpu.product: NVIDIA-RTX-PRO-6000}", "{limits: {nvidia.com/gpu: 1}}");
        Result unknown = translate(job);
        assertNull(Translate.job(unknown).perReplica().gpuTypes());
        assertTrue(unknown.err().contains("nodeSelector[nvidia.com/gpu.product]: 'NVIDIA-RTX-PRO-6000' of nvidia.com/gpu.product is not in Horizon's"
                + " GPU model table"), unknown.err());
        Path table = Translate.file(dir, "models.yaml", "labels: {nvidia.com/gpu.product: {NVIDIA-RTX-PRO-6000: [RTX-PRO-6000-96GB]}}\n");
        Result known = translate(job, "--gpu-models", table.toString());
        assertEquals(List.of("RTX-PRO-6000-96GB"), Translate.job(known).perReplica().gpuTypes());
        Path bad = Translate.file(dir, "bad.yaml", "labels: {nvidia.com/gpu.product: {X: RTX}}\n");
        Result refused = translate(job, "--gpu-models", bad.toString());
        assertEquals(2, refused.exit());
        assertTrue(refused.err().contains("--gpu-models " + bad + ": labels[nvidia.com/gpu.product][X]: must be a list of models"), refused.err());
    }

    @Test
    void anArgoWorkflowTemplateIsNamedForWhatItIs() {
        Result result = translate("""
                apiVersion: argoproj.io/v1alpha1
                kind: WorkflowTemplate
                metadata: {name: train}
                spec:
                  templates:
                  - name: main
                    container: {image: x, args: ["{{inputs.parameters.lr}}"]}
                """);
        assertEquals(2, result.exit());
        assertTrue(result.err().contains("is an Argo WorkflowTemplate (argoproj.io; '{{' on line 7 is an Argo parameter"), result.err());
        assertTrue(!result.err().contains("Helm"), result.err());
    }
}
