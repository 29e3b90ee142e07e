package dev.horizon.kubeflow.serving;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.horizon.api.JobClass;
import dev.horizon.api.JobSpec;
import dev.horizon.api.cli.CommandRunner.Result;
import dev.horizon.kubeflow.Translate;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Model-serving kinds translate into real-time inference jobs: an opted-in Deployment, a LeaderWorkerSet, a KServe
 * InferenceService or LLMInferenceService.
 */
class ServingTranslationTest {
    private static final String GPU_POD = "{containers: [{name: vllm, image: x, resources: {limits: {nvidia.com/gpu: 1}}}]}";

    @TempDir
    Path dir;

    private Result translate(String yaml) {
        return Translate.run(Translate.file(dir, "s.yaml", yaml));
    }

    private static String deployment(String labels) {
        return """
                apiVersion: apps/v1
                kind: Deployment
                metadata: {name: llama, namespace: serving, labels: %s}
                spec:
                  replicas: 3
                  selector: {matchLabels: {app: llama}}
                  template:
                    metadata: {labels: {app: llama}}
                    spec:
                      nodeSelector: {cloud.google.com/gke-accelerator: nvidia-l4}
                      containers: [{name: vllm, image: x, resources: {limits: {nvidia.com/gpu: 1}}}]
                """.formatted(labels);
    }

    @Test
    void aDeploymentMarkedAsInferenceIsARealTimeServiceOnItsPinnedModel() {
        JobSpec job = Translate.job(translate(deployment("{horizon.dev/inference: \"true\"}")));
        assertEquals(JobClass.REALTIME_INFERENCE, job.jobClass());
        assertEquals(3, job.replicaCount());
        assertFalse(job.gangOrDefault());
        assertEquals(List.of("L4-24GB"), job.perReplica().gpuTypes());
        Result unmarked = translate(deployment("{app: llama}"));
        assertEquals(2, unmarked.exit());
        assertTrue(unmarked.err().contains("is not marked as inference: Horizon plans a Deployment as a real-time inference service when it is labelled"
                + " horizon.dev/inference: \"true\""), unmarked.err());
    }

    @Test
    void aLeaderWorkerSetPlansEveryPodOfItsGroupsAndSaysGroupsAreNoGangYet() {
        Result result = translate("""
                apiVersion: leaderworkerset.x-k8s.io/v1
                kind: LeaderWorkerSet
                metadata: {name: vllm-multihost, namespace: serving}
                spec:
                  replicas: 2
                  leaderWorkerTemplate:
                    size: 4
                    leaderTemplate: {spec: %s}
                    workerTemplate: {spec: %s}
                """.formatted(GPU_POD, GPU_POD));
        JobSpec job = Translate.job(result);
        assertEquals(8, job.replicaCount());
        assertEquals(JobClass.REALTIME_INFERENCE, job.jobClass());
        assertTrue(result.err().contains("spec.leaderWorkerTemplate.size: each of the 2 groups is 4 pods that serve only together"), result.err());
    }

    @Test
    void anInferenceServiceServesBetweenItsMinAndMaxReplicas() {
        JobSpec job = Translate.job(translate("""
                apiVersion: serving.kserve.io/v1beta1
                kind: InferenceService
                metadata: {name: qwen, namespace: serving, labels: {kueue.x-k8s.io/queue-name: inference}}
                spec:
                  predictor:
                    minReplicas: 1
                    maxReplicas: 4
                    model:
                      modelFormat: {name: huggingface}
                      resources: {limits: {nvidia.com/gpu: 2}}
                """));
        assertEquals(4, job.replicaCount());
        assertEquals(1, job.minReplicas());
        assertEquals(2, job.perReplica().gpus());
        assertEquals("inference", job.team());
    }

    @Test
    void anLlmInferenceServiceServesItsTemplatesPodsAndRefusesPrefillNamingTheField() {
        String llm = """
                apiVersion: serving.kserve.io/v1alpha1
                kind: LLMInferenceService
                metadata: {name: llama, namespace: serving}
                spec:
                  model: {uri: "hf://meta-llama/Llama-3.1-8B-Instruct", name: meta-llama/Llama-3.1-8B-Instruct}
                  scaling: {minReplicas: 2, maxReplicas: 6}
                  template:
                    nodeSelector: {cloud.google.com/gke-accelerator: nvidia-l4}
                    containers: [{name: main, image: x, resources: {limits: {nvidia.com/gpu: "1"}}}]
                """;
        JobSpec job = Translate.job(translate(llm));
        assertEquals(JobClass.REALTIME_INFERENCE, job.jobClass());
        assertEquals(List.of(6, 2), List.of(job.replicaCount(), job.minReplicas()), "between spec.scaling's bounds");
        assertEquals(List.of("L4-24GB"), job.perReplica().gpuTypes());
        Result disaggregated = translate(llm.replace("  template:", "  prefill: {replicas: 2, template: %s}\n  template:".formatted(GPU_POD)));
        assertEquals(2, disaggregated.exit());
        assertTrue(disaggregated.err().contains("spec.prefill: a disaggregated LLMInferenceService is two workloads"), disaggregated.err());
    }
}
