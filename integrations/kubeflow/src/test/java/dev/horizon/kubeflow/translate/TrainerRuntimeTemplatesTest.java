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
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Trainer's own runtimes (../shared/fixtures/kubeflow-trainer/runtimes) are Helm templates, which translate refuses
 * until rendered (the fixture corpus in tests/ checks that); rendered as helm template renders them, they resolve the
 * TrainJobs of Trainer's examples and of users.
 */
class TrainerRuntimeTemplatesTest {
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
