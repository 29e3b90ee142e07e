package dev.horizon.ray.translate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.horizon.api.JobJson;
import dev.horizon.api.cli.CommandRunner.Result;
import dev.horizon.ray.Translate;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** KubeRay's own rules: worker counts clamped to [minReplicas, maxReplicas], GPUs as the pod gets them, queue labels as teams. */
class KubeRaySemanticsTest {
    @TempDir
    Path dir;

    private static String cluster(String labels, String headGroup, String workerGroup) {
        return """
                apiVersion: ray.io/v1
                kind: RayCluster
                metadata: {name: c, namespace: ml, labels: %s}
                spec:
                  headGroupSpec:
                    %s
                    template: {spec: {containers: [{name: ray-head, image: rayproject/ray}]}}
                  workerGroupSpecs:
                    - groupName: gpu
                      %s
                """.formatted(labels, headGroup.isEmpty() ? "rayStartParams: {}" : headGroup, workerGroup);
    }

    private static String workers(String counts, String rayStartParams, String limits) {
        return counts + "\n      rayStartParams: " + rayStartParams
                + "\n      template: {spec: {containers: [{name: ray-worker, image: rayproject/ray, resources: {limits: " + limits + "}}]}}";
    }

    private Result translate(String yaml, String... options) {
        return Translate.run(Translate.file(dir, "cluster.yaml", yaml), options);
    }

    @Test
    void replicasAreClampedToTheGroupsBoundsAsKubeRayDoes() {
        Result above = translate(cluster("{}", "", workers("replicas: 3\n      minReplicas: 1\n      maxReplicas: 2", "{}", "{nvidia.com/gpu: 1}")));
        assertEquals("c-gpu 2 x 1", Translate.summary(above), "KubeRay creates maxReplicas workers");
        assertTrue(above.err().contains("spec.workerGroupSpecs[0].replicas: 3 is above maxReplicas 2; KubeRay creates 2, so Horizon plans 2"), above.err());
        Result below = translate(cluster("{}", "", workers("replicas: 1\n      minReplicas: 2\n      maxReplicas: 4", "{}", "{nvidia.com/gpu: 1}")));
        assertEquals("c-gpu 2 x 1", Translate.summary(below), "KubeRay creates minReplicas workers");
        Result hosts = translate(cluster("{}", "", workers("replicas: 5\n      maxReplicas: 2\n      numOfHosts: 2", "{}", "{nvidia.com/gpu: 4}")));
        assertEquals("c-gpu 4 x 4", Translate.summary(hosts), "2 replicas of 2 hosts each");
        Result inverted = translate(cluster("{}", "", workers("replicas: 2\n      minReplicas: 3\n      maxReplicas: 2", "{}", "{nvidia.com/gpu: 1}")));
        assertEquals(2, inverted.exit());
        assertTrue(inverted.err().contains("spec.workerGroupSpecs[0]: minReplicas 3 is above maxReplicas 2"), inverted.err());
    }

    @Test
    void gpusAreWhatThePodGetsAndNumGpusSayingOtherwiseIsAWarning() {
        Result result = translate(cluster("{}", "rayStartParams: {num-gpus: \"1\"}",
                workers("replicas: 2\n      maxReplicas: 2", "{num-gpus: \"4\"}", "{nvidia.com/gpu: 2}")));
        assertEquals("c-gpu 2 x 2", Translate.summary(result), "the head's pod has no GPU limit, so it holds none; each worker holds its limit");
        assertTrue(result.err().contains("spec.headGroupSpec.rayStartParams[num-gpus]: advertises 1 GPU to Ray but the pod's nvidia.com/gpu limit"
                + " is 0; Kubernetes gives the pod 0, so Horizon plans 0"), result.err());
        assertTrue(result.err().contains("spec.workerGroupSpecs[0].rayStartParams[num-gpus]: advertises 4 GPUs to Ray but the pod's"
                + " nvidia.com/gpu limit is 2"), result.err());
        Result none = translate(cluster("{}", "rayStartParams: {num-gpus: \"1\"}", workers("replicas: 1", "{}", "{cpu: 1}")));
        assertEquals(2, none.exit());
        assertTrue(none.err().contains("asks for no GPU"), none.err());
        assertTrue(none.err().contains("spec.headGroupSpec.rayStartParams[num-gpus] advertises 1 GPU to Ray without an nvidia.com/gpu limit"), none.err());
    }

    @Test
    void theQueueLabelsOfEveryAdapterNameTheTeam() {
        String gpuWorkers = workers("replicas: 1", "{}", "{nvidia.com/gpu: 1}");
        assertEquals("speech", team(translate(cluster("{scheduling.volcano.sh/queue-name: speech}", "", gpuWorkers))), "Volcano's queue label");
        assertEquals("speech", team(translate(cluster("{volcano.sh/queue-name: speech}", "", gpuWorkers))), "the label KubeRay's Volcano integration reads");
        assertEquals("nlp", team(translate(cluster("{kueue.x-k8s.io/queue-name: nlp, kai.scheduler/queue: vision}", "", gpuWorkers))));
        assertEquals("vision", team(translate(cluster("{kueue.x-k8s.io/queue-name: nlp, kai.scheduler/queue: vision}", "", gpuWorkers),
                "--team-from", "kai")));
        Path map = Translate.file(dir, "teams.yaml", "queues: {ml/user-queue: research}\n");
        assertEquals("research", team(translate(cluster("{kueue.x-k8s.io/queue-name: user-queue}", "", gpuWorkers), "--queue-teams", map.toString())));
    }

    private static String team(Result result) {
        Translate.summary(result);
        return JobJson.parse(result.out()).team();
    }
}
