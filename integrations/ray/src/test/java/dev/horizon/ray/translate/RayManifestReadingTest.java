package dev.horizon.ray.translate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.horizon.api.cli.CommandRunner.Result;
import dev.horizon.ray.Translate;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What {@code translate ray} makes of files as users keep them, in the same words as {@code translate kubeflow}. */
class RayManifestReadingTest {
    @TempDir
    Path dir;

    private static final String CLUSTER = """
            apiVersion: ray.io/v1
            kind: RayCluster
            metadata: {name: c, namespace: ml}
            spec:
              headGroupSpec:
                rayStartParams: {}
                template: {spec: {containers: [{name: ray-head, image: rayproject/ray, resources: {limits: LIMITS}}]}}
            """;

    private Result translate(String yaml) {
        return Translate.run(Translate.file(dir, "ray.yaml", yaml));
    }

    @Test
    void anUnrenderedTemplateIsOneClearLine() {
        Result result = translate(CLUSTER.replace("name: c,", "name: {{ .Values.name }},").replace("LIMITS", "{nvidia.com/gpu: 1}"));
        assertEquals(2, result.exit());
        assertTrue(result.err().contains("is a Helm chart template ('{{' on line 3), not a manifest; render it with helm template first"), result.err());
        assertEquals(1, result.err().strip().lines().count(), result.err());
        Result broken = translate("apiVersion: ray.io/v1\nkind: RayCluster\nmetadata: {name: [c\n");
        assertEquals(2, broken.exit());
        assertTrue(broken.err().contains("not valid YAML (line "), broken.err());
        assertEquals(1, broken.err().strip().lines().count(), "one line, not the parser's event dump: " + broken.err());
    }

    @Test
    void aVersionHorizonDoesNotReadIsNamedWithTheOneItReads() {
        Result result = translate(CLUSTER.replace("ray.io/v1", "ray.io/v1alpha1").replace("LIMITS", "{nvidia.com/gpu: 1}"));
        assertEquals(2, result.exit());
        assertTrue(result.err().contains("RayCluster ml/c: apiVersion ray.io/v1alpha1 is not one Horizon reads; it reads RayCluster as ray.io/v1"), result.err());
        assertFalse(result.err().contains("holds no"), "the file does hold a RayCluster: " + result.err());
    }

    @Test
    void otherVendorsAcceleratorsAreTheSameClearRefusalAsForKubeflow() {
        Result amd = translate(CLUSTER.replace("LIMITS", "{amd.com/gpu: 1}"));
        assertEquals(2, amd.exit());
        assertTrue(amd.err().contains("limits[amd.com/gpu]: asks for 'amd.com/gpu'; Horizon plans NVIDIA GPUs only"), amd.err());
        Result tpu = translate(CLUSTER.replace("LIMITS", "{google.com/tpu: 4}"));
        assertTrue(tpu.err().contains("limits[google.com/tpu]: asks for 'google.com/tpu'; Horizon plans NVIDIA GPUs only"), tpu.err());
    }

    @Test
    void migLimitsInRayPodsAreRefusedRatherThanPlannedAsNoGpu() {
        Result mig = translate(CLUSTER.replace("LIMITS", "{nvidia.com/mig-1g.10gb: 1}"));
        assertEquals(2, mig.exit());
        assertTrue(mig.err().contains("limits[nvidia.com/mig-1g.10gb]: Horizon does not plan MIG slices for Ray pods yet"), mig.err());
    }

    @Test
    void otherKindsInTheFileAreSkippedAndListed() {
        Result result = translate("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: code, namespace: ml}\n---\n" + CLUSTER.replace("LIMITS", "{nvidia.com/gpu: 1}"));
        assertEquals("c-head 1 x 1", Translate.summary(result));
        assertTrue(result.err().contains("skipped ConfigMap ml/code (not a KubeRay RayCluster, RayJob or RayService)"), result.err());
    }
}
