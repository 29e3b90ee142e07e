package dev.horizon.kubeflow.translate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.horizon.api.JobSpec;
import dev.horizon.api.cli.CommandRunner.Result;
import dev.horizon.kubeflow.Translate;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Trainer's trainer.kubeflow.org/v1alpha1 kept its version while its shape changed between releases: runtimes written
 * for Trainer 2.0 and 2.1 (as in Trainer's own runtime guide and Kueue's TrainJob docs) are read, and the translation
 * says which release a field belongs to where that matters.
 */
class TrainerReleasesTest {
    @TempDir
    Path dir;

    private static final String TRAIN_JOB = """
            ---
            apiVersion: trainer.kubeflow.org/v1alpha1
            kind: TrainJob
            metadata: {name: llama, namespace: ml}
            spec:
              runtimeRef: {name: torch-distributed}
              trainer: {numNodes: 2}
            """;

    private static String runtime(String torch) {
        return """
                apiVersion: trainer.kubeflow.org/v1alpha1
                kind: ClusterTrainingRuntime
                metadata: {name: torch-distributed}
                spec:
                  mlPolicy:
                    numNodes: 1
                    torch: %s
                  template:
                    spec:
                      replicatedJobs:
                        - name: node
                          template:
                            metadata: {labels: {trainer.kubeflow.org/trainjob-ancestor-step: trainer}}
                            spec:
                              template:
                                spec:
                                  containers: [{name: node, image: pytorch/pytorch, resources: {limits: {nvidia.com/gpu: 8}}}]
                """.formatted(torch);
    }

    private Result translate(String yaml) {
        return Translate.run(Translate.file(dir, "trainjob.yaml", yaml));
    }

    @Test
    void aRuntimeWrittenForTrainer21IsReadAndTheMoveOfNumProcPerNodeIsNamed() {
        Result result = translate(runtime("{numProcPerNode: gpu}") + TRAIN_JOB);
        JobSpec job = Translate.job(result);
        assertEquals(2, job.replicaCount());
        assertEquals(8, job.perReplica().gpus());
        assertTrue(result.err().contains("ClusterTrainingRuntime torch-distributed: spec.mlPolicy.torch.numProcPerNode is a field of Trainer 2.0 and 2.1;"
                + " Trainer 2.2 moved it to the TrainJob's spec.trainer.numProcPerNode"), result.err());
    }

    @Test
    void aRuntimeOfTheNewestReleaseSaysNothing() {
        Result result = translate(runtime("{}") + TRAIN_JOB);
        assertEquals(8, Translate.job(result).perReplica().gpus());
        assertEquals("", result.err());
    }

    @Test
    void aFieldNoReleaseHasIsRefusedNamingWhereTheOthersBelong() {
        Result result = translate(runtime("{numProcPerNode: gpu, envInjection: {targets: []}}") + TRAIN_JOB);
        assertEquals(2, result.exit());
        assertTrue(result.err().contains("matches no Trainer release's trainer.kubeflow.org/v1alpha1 ClusterTrainingRuntime schema (2.0, 2.1, 2.2, 2.3)"), result.err());
        assertTrue(result.err().contains("spec.mlPolicy.torch.numProcPerNode: unknown field (a field of Trainer 2.0 and 2.1)"), result.err());
        assertTrue(result.err().contains("spec.mlPolicy.torch.envInjection: unknown field (a field of Trainer 2.3)"), result.err());
    }
}
