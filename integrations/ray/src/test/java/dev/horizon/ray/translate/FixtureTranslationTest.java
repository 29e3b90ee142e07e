package dev.horizon.ray.translate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.horizon.api.JobJson;
import dev.horizon.api.cli.CommandRunner;
import dev.horizon.api.cli.CommandRunner.Result;
import dev.horizon.ray.KubeRayFixtures;
import dev.horizon.ray.TranslateCommand;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * Every KubeRay sample under ../shared/fixtures/kuberay/samples goes through {@code ./horizon translate ray FILE}: it
 * is translated (each job's name, replicas and GPUs per replica asserted; "500m" is a time-slice share in thousandths)
 * or refused with the reason stated here. A sample this table does not know fails the test.
 */
class FixtureTranslationTest {
    private static final String NO_GPU = "asks for no GPU";
    private static final String TPU = TpuNotScheduledException.REASON;
    private static final String NOT_RAY = "holds no ray.io/v1 RayCluster, RayJob or RayService";
    private static final String CRON = "holds a RayCronJob";
    private static final String EXISTING_CLUSTER = "spec.clusterSelector: the RayJob runs on an existing RayCluster";

    /** sample -> "NAME REPLICAS x GPUS" per job for a translated one, or a phrase its one error line must contain. */
    private static final Map<String, String> EXPECTED = new TreeMap<>(Map.ofEntries(
            Map.entry("ingress-rayclient-tls.yaml", NOT_RAY),
            Map.entry("ray-cluster-agc-gatewayapi.yaml", NOT_RAY),
            Map.entry("ray-cluster-alb-ingress.yaml", NOT_RAY),
            Map.entry("ray-cluster-label-selector.yaml", NO_GPU),
            Map.entry("ray-cluster-resource-isolation-with-overrides.gke.yaml", NO_GPU),
            Map.entry("ray-cluster-resource-isolation.gke.yaml", NO_GPU),
            Map.entry("ray-cluster.auth-manual.yaml", NO_GPU),
            Map.entry("ray-cluster.auth.secret-ref.yaml", NO_GPU),
            Map.entry("ray-cluster.auth.yaml", NO_GPU),
            Map.entry("ray-cluster.autoscaler-v2-overwrite-cmd.yaml", NO_GPU),
            Map.entry("ray-cluster.autoscaler-v2.yaml", NO_GPU),
            Map.entry("ray-cluster.autoscaler.yaml", NO_GPU),
            Map.entry("ray-cluster.complete.yaml", NO_GPU),
            Map.entry("ray-cluster.custom-head-service.yaml", NO_GPU),
            Map.entry("ray-cluster.deprecate-gcs-ft.yaml", NO_GPU),
            Map.entry("ray-cluster.embed-grafana.yaml", NO_GPU),
            Map.entry("ray-cluster.embedded-gcs-ft.yaml", NO_GPU),
            Map.entry("ray-cluster.external-redis-uri.yaml", NO_GPU),
            Map.entry("ray-cluster.external-redis.yaml", NO_GPU),
            Map.entry("ray-cluster.fluentbit.yaml", NO_GPU),
            Map.entry("ray-cluster.gke-bucket.yaml", NO_GPU),
            Map.entry("ray-cluster.head-command.yaml", NO_GPU),
            Map.entry("ray-cluster.historyserver.yaml", NO_GPU),
            Map.entry("ray-cluster.kai-gpu-sharing.yaml", "raycluster-half-gpu-shared-gpu 2 x 500m"),
            Map.entry("ray-cluster.kai-scheduler.yaml", NO_GPU),
            Map.entry("ray-cluster.kubernetes.auth-manual.yaml", NO_GPU),
            Map.entry("ray-cluster.kubernetes.auth.yaml", NO_GPU),
            Map.entry("ray-cluster.mtls.yaml", NO_GPU),
            Map.entry("ray-cluster.network-policy-deny-all.yaml", NO_GPU),
            Map.entry("ray-cluster.overwrite-command.yaml", NO_GPU),
            Map.entry("ray-cluster.persistent-redis-sidecar.yaml", NO_GPU),
            Map.entry("ray-cluster.persistent-redis.yaml", NO_GPU),
            Map.entry("ray-cluster.platform-events.yaml", NO_GPU),
            Map.entry("ray-cluster.py-spy.yaml", NO_GPU),
            Map.entry("ray-cluster.sample.yaml", NO_GPU),
            Map.entry("ray-cluster.sandbox.yaml", NO_GPU),
            Map.entry("ray-cluster.scheduler-plugins.yaml", NO_GPU),
            Map.entry("ray-cluster.separate-ingress.yaml", NO_GPU),
            Map.entry("ray-cluster.tls.yaml", NO_GPU),
            Map.entry("ray-cluster.tpu-v4-multihost.yaml", TPU),
            Map.entry("ray-cluster.tpu-v4-singlehost.yaml", TPU),
            Map.entry("ray-cluster.tpu-v6e-16-multihost.yaml", TPU),
            Map.entry("ray-cluster.tpu-v6e-256-multihost.yaml", TPU),
            Map.entry("ray-cluster.tpu-v6e-singlehost.yaml", TPU),
            Map.entry("ray-cluster.uv.yaml", NO_GPU),
            Map.entry("ray-cluster.verl.yaml", "verl-cluster-head 1 x 4"),
            Map.entry("ray-cluster.volcano-scheduler-queue.yaml", NO_GPU),
            Map.entry("ray-cluster.volcano-scheduler.yaml", NO_GPU),
            Map.entry("ray-cluster.yunikorn-scheduler.yaml", NO_GPU),
            Map.entry("ray-cronjob-timezone.sample.yaml", CRON),
            Map.entry("ray-cronjob.sample.yaml", CRON),
            Map.entry("ray-job.batch-inference.yaml", "rayjob-sample-head 1 x 4"),
            Map.entry("ray-job.custom-head-svc.yaml", NO_GPU),
            Map.entry("ray-job.deletion-rules.yaml", NO_GPU),
            Map.entry("ray-job.image-resize.yaml", NO_GPU),
            Map.entry("ray-job.interactive-mode.yaml", NO_GPU),
            Map.entry("ray-job.kueue-toy-sample.yaml", NO_GPU),
            Map.entry("ray-job.light-weight-submitter.yaml", NO_GPU),
            Map.entry("ray-job.platform-events.yaml", NO_GPU),
            Map.entry("ray-job.pytorch-distributed-training.yaml", "pytorch-text-classifier-head 1 x 1"),
            Map.entry("ray-job.pytorch-image-classifier.yaml", "pytorch-image-classifier-gpu-group 4 x 1"),
            Map.entry("ray-job.pytorch-mnist.yaml", NO_GPU),
            Map.entry("ray-job.resources.yaml", "rayjob-sample-head 1 x 2"),
            Map.entry("ray-job.sample.yaml", NO_GPU),
            Map.entry("ray-job.sandbox.yaml", NO_GPU),
            Map.entry("ray-job.shutdown.yaml", NO_GPU),
            Map.entry("ray-job.sidecar-mode.yaml", NO_GPU),
            Map.entry("ray-job.tpu-jax.yaml", TPU),
            Map.entry("ray-job.tpu-v6e-16-multihost.yaml", TPU),
            Map.entry("ray-job.tpu-v6e-256-multihost.yaml", TPU),
            Map.entry("ray-job.tpu-v6e-singlehost.yaml", TPU),
            Map.entry("ray-job.use-existing-raycluster.yaml", EXISTING_CLUSTER),
            Map.entry("ray-job.volcano-scheduler-queue.yaml", NO_GPU),
            Map.entry("ray-job.yunikorn-scheduler.yaml", NO_GPU),
            Map.entry("ray-service.custom-serve-service.yaml", NO_GPU),
            Map.entry("ray-service.deepseek.yaml", "deepseek-r1-gpu-group 2 x 8"),
            Map.entry("ray-service.different-port.yaml", NO_GPU),
            Map.entry("ray-service.high-availability.yaml", NO_GPU),
            Map.entry("ray-service.high-throughput-gemma4.yaml", "ray-gemma4-e2b-it-gpu-group 1 x 8"),
            Map.entry("ray-service.high-throughput-llm.yaml", "qwen-35-4b-gpu-group 4 x 1"),
            Map.entry("ray-service.incremental-upgrade.yaml", NO_GPU),
            Map.entry("ray-service.llm-serve.yaml", "ray-serve-llm-gpu-group 1 x 4"),
            Map.entry("ray-service.mobilenet.yaml", NO_GPU),
            Map.entry("ray-service.no-ray-serve-replica.yaml", NO_GPU),
            Map.entry("ray-service.sample.yaml", NO_GPU),
            Map.entry("ray-service.stable-diffusion.yaml", "stable-diffusion-gpu-group 1 x 1"),
            Map.entry("ray-service.text-ml.yaml", NO_GPU),
            Map.entry("ray-service.text-summarizer.yaml", "text-summarizer-gpu-group 1 x 1"),
            Map.entry("ray-service.tpu-single-host.yaml", TPU)));

    @Test
    void everySampleIsTranslatedOrRefusedWithItsReason() throws IOException {
        List<String> wrong = new ArrayList<>();
        List<String> seen = new ArrayList<>();
        for (Path sample : KubeRayFixtures.samples()) {
            String file = sample.getFileName().toString();
            seen.add(file);
            String expected = EXPECTED.get(file);
            if (expected == null) {
                wrong.add(file + ": not in the table; add what it should translate to");
                continue;
            }
            Result r = CommandRunner.run(TranslateCommand::run, "translate", "ray", sample.toString());
            String got = r.exit() == 0 ? summary(r.out()) : r.err().strip();
            boolean refusal = !expected.matches("(\\S+ \\d+ x \\S+(; )?)+");
            boolean ok = refusal ? r.exit() == 2 && got.contains(expected) && got.lines().count() == 1 : r.exit() == 0 && got.equals(expected);
            if (!ok) wrong.add(file + ": expected " + expected + ", got (exit " + r.exit() + ") " + got);
        }
        assertEquals(EXPECTED.keySet().stream().sorted().toList(), seen.stream().sorted().toList(), "the table lists exactly the samples");
        assertTrue(wrong.isEmpty(), String.join("\n", wrong));
    }

    private static String summary(String json) throws IOException {
        JsonNode printed = JobJson.mapper().readTree(json);
        Iterable<JsonNode> jobs = printed.isArray() ? printed : List.of(printed);
        List<String> parts = new ArrayList<>();
        for (JsonNode job : jobs) {
            JobJson.parse(job.toString());
            JsonNode shape = job.path("perReplica");
            String gpus = shape.has("gpus") ? shape.get("gpus").asText() : shape.path("gpuMilli").asText() + "m";
            parts.add(job.path("name").asText() + " " + job.path("replicas").asInt() + " x " + gpus);
        }
        return String.join("; ", parts);
    }
}
