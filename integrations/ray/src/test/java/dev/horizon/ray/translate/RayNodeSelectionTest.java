package dev.horizon.ray.translate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.horizon.api.JobJson;
import dev.horizon.api.cli.CommandRunner.Result;
import dev.horizon.ray.Translate;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A RayCluster as the API server reads it: its node selection pins GPU models, its types are checked, Ray Serve is inference. */
class RayNodeSelectionTest {
    @TempDir
    Path dir;

    private static final String CLUSTER = """
            apiVersion: ray.io/v1
            kind: RayCluster
            metadata: {name: llm, namespace: ml}
            spec:
              headGroupSpec:
                rayStartParams: {}
                template: {spec: {containers: [{name: ray-head, image: rayproject/ray, COMMAND resources: {limits: {cpu: "2"}}}]}}
              workerGroupSpecs:
              - groupName: gpu
                replicas: 2
                rayStartParams: {}
                template:
                  spec:
                    nodeSelector: SELECTOR
                    containers: [{name: ray-worker, image: rayproject/ray, resources: {limits: {nvidia.com/gpu: 1}}}]
            """;

    private Result translate(String selector, String command) {
        return Translate.run(Translate.file(dir, "ray.yaml", CLUSTER.replace("SELECTOR", selector).replace("COMMAND", command)));
    }

    private static JsonNode printed(Result result) throws Exception {
        assertEquals(0, result.exit(), result.err());
        return JobJson.mapper().readTree(result.out());
    }

    @Test
    void aClusterPinnedToNvidiaL4IsPlannedOnL4s() throws Exception {
        JsonNode job = printed(translate("{cloud.google.com/gke-accelerator: nvidia-l4}", ""));
        assertEquals("[\"L4-24GB\"]", job.path("perReplica").path("gpuTypes").toString());
        assertEquals("TRAINING", job.path("class").asText());
        assertTrue(job.path("gang").asBoolean());
    }

    @Test
    void anIntegerInNodeSelectorIsRefusedAsTheApiServerRefusesIt() {
        Result result = translate("{gpus: 8}", "");
        assertEquals(2, result.exit());
        assertTrue(result.err().contains("spec.workerGroupSpecs[0].template.spec.nodeSelector[gpus]: must be a string, got the number 8"), result.err());
    }

    @Test
    void aClusterThatStartsRayServeIsRealTimeInference() throws Exception {
        Result result = translate("{}", "args: [\"ray start --head && serve deploy /config/serve.yaml\"],");
        JsonNode job = printed(result);
        assertEquals("REALTIME_INFERENCE", job.path("class").asText());
        assertEquals(false, job.path("gang").asBoolean());
        assertTrue(result.err().contains("spec.headGroupSpec.template.spec.containers[0].args: the cluster runs Ray Serve"), result.err());
        assertEquals("TRAINING", printed(translate("{}", "ports: [{name: serve, containerPort: 8000}],")).path("class").asText());
    }
}
