package dev.horizon.kubeflow.translate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.horizon.api.JobJson;
import dev.horizon.api.JobSpec;
import dev.horizon.api.cli.CommandRunner;
import dev.horizon.api.cli.CommandRunner.Result;
import dev.horizon.kubeflow.Fixtures;
import dev.horizon.kubeflow.TranslateCommand;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every real manifest under ../shared/fixtures/kubeflow-v1 and kubeflow-trainer goes through
 * {@code ./horizon translate kubeflow FILE}: it is translated (replicas and GPUs per replica
 * asserted) or refused with the reason stated here. A fixture this table does not know fails the test.
 */
class FixtureTranslationTest {
    private static final String NO_GPU = "asks for no GPU";
    private static final String HELM = "is a Helm chart template";

    /** file -> "REPLICAS x GPUS" for a translated job, or a phrase the one error line must contain. */
    private static final Map<String, String> EXPECTED = new TreeMap<>(Map.ofEntries(
            Map.entry("kubeflow-v1/paddlepaddle/simple-gpu.yaml", "2 x 2"),
            Map.entry("kubeflow-v1/pytorch/deepspeed-demo/pytorch_deepspeed_demo.yaml", "2 x 1"),
            Map.entry("kubeflow-v1/pytorch/mnist/v1/pytorch_job_mnist_gloo.yaml", "2 x 1"),
            Map.entry("kubeflow-v1/pytorch/mnist/v1/pytorch_job_mnist_mpi.yaml", "2 x 1"),
            Map.entry("kubeflow-v1/pytorch/mnist/v1/pytorch_job_mnist_nccl.yaml", "2 x 1"),
            Map.entry("kubeflow-v1/tensorflow/distribution_strategy/multi_worker_tfjob.yaml", "2 x 1"),
            // kubectl's strict field validation refuses it too: a pod template has no apiVersion or kind
            Map.entry("kubeflow-v1/xgboost/smoke-dist/xgboostjob_v1alpha1_rabit_test.yaml", "spec.xgbReplicaSpecs[Master].template.apiVersion: unknown field"),
            Map.entry("kubeflow-v1/jax/cpu-demo/demo.yaml", NO_GPU),
            Map.entry("kubeflow-v1/jax/jax-dist-spmd-mnist/jaxjob_dist_spmd_mnist_gloo.yaml", NO_GPU),
            Map.entry("kubeflow-v1/mpi/tensorflow-mnist-elastic.yaml", NO_GPU),
            Map.entry("kubeflow-v1/mpi/tensorflow-mnist.yaml", NO_GPU),
            Map.entry("kubeflow-v1/paddlepaddle/simple-cpu.yaml", NO_GPU),
            Map.entry("kubeflow-v1/pytorch/cpu-demo/demo.yaml", NO_GPU),
            Map.entry("kubeflow-v1/pytorch/elastic/echo/echo.yaml", NO_GPU),
            Map.entry("kubeflow-v1/pytorch/elastic/imagenet/imagenet.yaml", NO_GPU),
            Map.entry("kubeflow-v1/pytorch/simple.yaml", NO_GPU),
            Map.entry("kubeflow-v1/pytorch/smoke-dist/pytorch_job_sendrecv.yaml", NO_GPU),
            Map.entry("kubeflow-v1/tensorflow/dist-mnist/tf_job_mnist.yaml", NO_GPU),
            Map.entry("kubeflow-v1/tensorflow/mnist_with_summaries/tf_job_mnist.yaml", NO_GPU),
            Map.entry("kubeflow-v1/tensorflow/simple.yaml", NO_GPU),
            Map.entry("kubeflow-v1/xgboost/lightgbm-dist/xgboostjob_v1_lightgbm_dist_training.yaml", NO_GPU),
            Map.entry("kubeflow-v1/xgboost/smoke-dist/xgboostjob_v1_rabit_test.yaml", NO_GPU),
            Map.entry("kubeflow-v1/xgboost/xgboost-dist/xgboostjob_v1_iris_predict.yaml", NO_GPU),
            Map.entry("kubeflow-v1/xgboost/xgboost-dist/xgboostjob_v1_iris_predict_local.yaml", NO_GPU),
            Map.entry("kubeflow-v1/xgboost/xgboost-dist/xgboostjob_v1_iris_train.yaml", NO_GPU),
            Map.entry("kubeflow-v1/xgboost/xgboost-dist/xgboostjob_v1_iris_train_local.yaml", NO_GPU),
            Map.entry("kubeflow-v1/xgboost/xgboostjob.yaml", NO_GPU),
            // the TrainJobs of 01-03 use the torch-distributed runtime, which is a Helm template: given alone they name it as unknown
            Map.entry("kubeflow-trainer/examples/01-multi-node.yaml", "ClusterTrainingRuntime 'torch-distributed' is not known"),
            Map.entry("kubeflow-trainer/examples/02-runtime-patches.yaml", "ClusterTrainingRuntime 'torch-distributed' is not known"),
            Map.entry("kubeflow-trainer/examples/03-kueue-integration.yaml", "ClusterTrainingRuntime 'torch-distributed' is not known"),
            Map.entry("kubeflow-trainer/examples/04-volcano-integration.yaml", NO_GPU),
            Map.entry("kubeflow-trainer/examples/05-multi-step.yaml", NO_GPU),
            Map.entry("kubeflow-trainer/runtimes/deepspeed-distributed.yaml", HELM),
            Map.entry("kubeflow-trainer/runtimes/jax-distributed.yaml", HELM),
            Map.entry("kubeflow-trainer/runtimes/mlx-distributed.yaml", HELM),
            Map.entry("kubeflow-trainer/runtimes/torch-distributed-with-cache.yaml", HELM),
            Map.entry("kubeflow-trainer/runtimes/torch-distributed.yaml", HELM),
            Map.entry("kubeflow-trainer/runtimes/torchtune-llama3.2-1b.yaml", HELM),
            Map.entry("kubeflow-trainer/runtimes/torchtune-llama3.2-3b.yaml", HELM),
            Map.entry("kubeflow-trainer/runtimes/torchtune-qwen2.5-1.5b.yaml", HELM),
            Map.entry("kubeflow-trainer/runtimes/xgboost-distributed.yaml", HELM)));

    private static final Pattern SHAPE = Pattern.compile("(\\d+) x (\\d+)");

    @Test
    void everyFixtureIsTranslatedOrRefusedWithItsReason() {
        Path fixtures = Fixtures.root();
        List<String> seen = new ArrayList<>();
        for (Path file : Fixtures.manifests(fixtures.resolve("kubeflow-v1"))) seen.add(check(fixtures, file));
        for (Path file : Fixtures.manifests(fixtures.resolve("kubeflow-trainer"))) seen.add(check(fixtures, file));
        assertEquals(EXPECTED.keySet(), new TreeSet<>(seen), "the fixture folders and this table list the same files");
    }

    private static String check(Path fixtures, Path file) {
        String name = fixtures.relativize(file).toString();
        String expected = EXPECTED.get(name);
        assertTrue(expected != null, name + " is a fixture this test does not know; add what it should give");
        Result result = CommandRunner.run(TranslateCommand::run, "translate", "kubeflow", file.toString());
        var shape = SHAPE.matcher(expected);
        if (shape.matches()) {
            assertEquals(0, result.exit(), name + ": " + result.err());
            JobSpec job = JobJson.parse(result.out());
            assertEquals(Integer.parseInt(shape.group(1)), job.replicaCount(), name + " gang size");
            assertEquals(Integer.parseInt(shape.group(2)), job.perReplica().gpus(), name + " GPUs per replica");
            assertTrue(job.gangOrDefault(), name + " starts all its replicas together");
        } else {
            assertEquals(2, result.exit(), name + " is refused");
            assertTrue(result.err().contains(expected), name + ": expected '" + expected + "' in " + result.err());
            assertEquals(1, result.err().strip().lines().count(), name + " is refused in one line: " + result.err());
        }
        return name;
    }

    /** Rendered as helm template renders the chart with its default values (no extra labels), the runtimes resolve the examples' TrainJobs. */
    @Test
    void trainerExamplesResolveTheRenderedRuntimes(@TempDir Path dir) throws IOException {
        Path fixtures = Fixtures.root();
        Path torch = render(fixtures.resolve("kubeflow-trainer/runtimes/torch-distributed.yaml"), dir);
        for (String example : List.of("01-multi-node.yaml", "02-runtime-patches.yaml", "03-kueue-integration.yaml")) {
            Result result = CommandRunner.run(TranslateCommand::run, "translate", "kubeflow", fixtures.resolve("kubeflow-trainer/examples").resolve(example).toString(),
                    "--runtime", torch.toString());
            assertEquals(2, result.exit(), example);
            assertTrue(result.err().contains("(runtime ClusterTrainingRuntime torch-distributed) asks for no GPU"), example + ": " + result.err());
        }
    }

    @Test
    void aTrainJobOnTheTorchtuneRuntimeAsksForItsGpusPerNode(@TempDir Path dir) throws IOException {
        Path fixtures = Fixtures.root();
        Path runtime = render(fixtures.resolve("kubeflow-trainer/runtimes/torchtune-llama3.2-1b.yaml"), dir);
        Path job = dir.resolve("tune.yaml");
        Files.writeString(job, """
                apiVersion: trainer.kubeflow.org/v1alpha1
                kind: TrainJob
                metadata: {name: tune-1b, namespace: nlp, labels: {kueue.x-k8s.io/queue-name: nlp-research}}
                spec:
                  runtimeRef: {name: torchtune-llama3.2-1b}
                """);
        JobSpec runtimeDefault = JobJson.parse(CommandRunner.run(TranslateCommand::run, "translate", "kubeflow", job.toString(), "--runtime", runtime.toString()).out());
        assertEquals(1, runtimeDefault.replicaCount(), "the runtime's mlPolicy.numNodes");
        assertEquals(2, runtimeDefault.perReplica().gpus(), "the runtime's node container limit");
        assertEquals("nlp-research", runtimeDefault.team(), "Kueue's queue label names the team");

        Files.writeString(job, Files.readString(job) + "  trainer: {numNodes: 4, resourcesPerNode: {limits: {nvidia.com/gpu: 8}}}\n");
        JobSpec overridden = JobJson.parse(CommandRunner.run(TranslateCommand::run, "translate", "kubeflow", job.toString(), "--runtime", runtime.toString()).out());
        assertEquals(4, overridden.replicaCount());
        assertEquals(8, overridden.perReplica().gpus(), "resourcesPerNode replaces the trainer container's resources");
    }

    /** What helm template leaves of these runtimes with the chart's default values: directive lines gone, an image in place of the include. */
    private static Path render(Path template, Path dir) throws IOException {
        StringBuilder out = new StringBuilder();
        for (String line : Files.readAllLines(template)) {
            if (line.strip().startsWith("{{")) continue;
            out.append(line.replaceAll("\\{\\{.*}}", "ghcr.io/kubeflow/trainer/torchtune-trainer")).append('\n');
        }
        Path rendered = dir.resolve(template.getFileName());
        Files.writeString(rendered, out);
        return rendered;
    }
}
