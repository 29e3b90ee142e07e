package dev.horizon.kubeflow.translate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.horizon.api.JobSpec;
import dev.horizon.api.cli.CommandRunner.Result;
import dev.horizon.kubeflow.Translate;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What {@code translate kubeflow} makes of files as users keep them: generateName, other kinds beside, other vendors' devices. */
class ManifestReadingTest {
    @TempDir
    Path dir;

    private Result translate(String yaml, String... options) {
        return Translate.run(Translate.file(dir, "job.yaml", yaml), options);
    }

    private static String pytorchJob(String metadata, String limits) {
        return """
                apiVersion: kubeflow.org/v1
                kind: PyTorchJob
                metadata: %s
                spec:
                  pytorchReplicaSpecs:
                    Worker:
                      replicas: 2
                      template: {spec: {containers: [{name: pytorch, image: x, resources: {limits: %s}}]}}
                """.formatted(metadata, limits);
    }

    @Test
    void aJobWithGenerateNameIsNamedWhenCreatedAndTheTranslationSaysSo() {
        Result result = translate(pytorchJob("{generateName: bert-, namespace: ml}", "{nvidia.com/gpu: 1}"));
        JobSpec job = Translate.job(result);
        assertEquals("bert", job.name());
        assertEquals(2, job.replicaCount());
        assertTrue(result.err().contains("metadata.generateName 'bert-': the API server names the PyTorchJob when it is created"), result.err());
    }

    @Test
    void otherKindsInTheFileAreSkippedAndListed() {
        Result result = translate("""
                apiVersion: v1
                kind: ConfigMap
                metadata: {name: hostfile, namespace: ml}
                data: {a: b}
                ---
                """ + pytorchJob("{name: bert, namespace: ml}", "{nvidia.com/gpu: 1}"));
        assertEquals(2, Translate.job(result).replicaCount());
        assertTrue(result.err().contains("skipped ConfigMap ml/hostfile (not a Kubeflow training job, Kubernetes batch or model-serving workload)"), result.err());
        Result onlyOthers = translate("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: hostfile}\n");
        assertEquals(2, onlyOthers.exit());
        assertTrue(onlyOthers.err().contains("holds no Kubeflow training job, Kubernetes batch or model-serving workload (it holds ConfigMap hostfile)"), onlyOthers.err());
    }

    @Test
    void otherVendorsAcceleratorsAreOneClearRefusal() {
        Result amd = translate(pytorchJob("{name: bert}", "{amd.com/gpu: 1}"));
        assertEquals(2, amd.exit());
        assertTrue(amd.err().contains("limits[amd.com/gpu]: asks for 'amd.com/gpu'; Horizon plans NVIDIA GPUs only"), amd.err());
        assertEquals(1, amd.err().strip().lines().count());
    }

    @Test
    void anUnrenderedTemplateIsOneClearLine() {
        Result result = translate(pytorchJob("{name: {{ .Values.name }}}", "{nvidia.com/gpu: 1}"));
        assertEquals(2, result.exit());
        assertTrue(result.err().contains("is a Helm chart template ('{{' on line 3), not a manifest; render it with helm template first"), result.err());
        assertEquals(1, result.err().strip().lines().count());
    }
}
