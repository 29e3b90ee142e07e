package dev.horizon.kubeflow.batch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.horizon.api.JobSpec;
import dev.horizon.api.cli.CommandRunner.Result;
import dev.horizon.kubeflow.Translate;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The gang shapes of the batch kinds: Job (indexed or not), Pod, JobSet, Volcano Job; their teams and refusals. */
class BatchTranslationTest {
    private static final String GPU_POD = "{containers: [{name: main, image: x, resources: {limits: {nvidia.com/gpu: GPUS}}}]}";

    @TempDir
    Path dir;

    private Result translate(String yaml) {
        return Translate.run(Translate.file(dir, "w.yaml", yaml));
    }

    private static String job(String spec, int gpus) {
        return """
                apiVersion: batch/v1
                kind: Job
                metadata: {name: sft, namespace: ml, labels: {kueue.x-k8s.io/queue-name: nlp}}
                spec:
                  %s
                  template: {spec: %s}
                """.formatted(spec, GPU_POD.replace("GPUS", String.valueOf(gpus)));
    }

    @Test
    void anIndexedJobIsAGangOfItsParallelPods() {
        JobSpec job = Translate.job(translate(job("completionMode: Indexed\n  completions: 4\n  parallelism: 4", 2)));
        assertEquals(4, job.replicaCount());
        assertEquals(2, job.perReplica().gpus());
        assertTrue(job.gangOrDefault());
        assertEquals("nlp", job.team());
        assertEquals("Job", job.source().kind());
    }

    @Test
    void aPlainJobRunsItsPodsApartAndNoMoreThanItsCompletions() {
        JobSpec job = Translate.job(translate(job("parallelism: 8\n  completions: 3", 1)));
        assertEquals(3, job.replicaCount());
        assertEquals(false, job.gang());
        Result waves = translate(job("completionMode: Indexed\n  completions: 8\n  parallelism: 2", 1));
        assertEquals(2, Translate.job(waves).replicaCount());
        assertTrue(waves.err().contains("spec.completions: 8 indexes run 2 at a time"), waves.err());
    }

    @Test
    void aBarePodIsOneReplica() {
        JobSpec pod = Translate.job(translate("""
                apiVersion: v1
                kind: Pod
                metadata: {name: nbody, namespace: ml}
                spec: %s
                """.formatted(GPU_POD.replace("GPUS", "1"))));
        assertEquals(1, pod.replicaCount());
        assertEquals("ml", pod.team());
    }

    @Test
    void aJobSetIsOneGangOverItsReplicatedJobsAndItsCpuDriverRunsBeside() {
        JobSpec set = Translate.job(translate("""
                apiVersion: jobset.x-k8s.io/v1alpha2
                kind: JobSet
                metadata: {name: multislice, namespace: ml}
                spec:
                  replicatedJobs:
                  - name: driver
                    template: {spec: {template: {spec: {containers: [{name: d, image: x}]}}}}
                  - name: workers
                    replicas: 2
                    template:
                      spec:
                        parallelism: 4
                        completions: 4
                        completionMode: Indexed
                        template:
                          metadata: {creationTimestamp: null}
                          spec: %s
                """.formatted(GPU_POD.replace("GPUS", "8"))));
        assertEquals(8, set.replicaCount());
        assertEquals(8, set.perReplica().gpus());
        assertTrue(set.gangOrDefault());
        assertNull(set.minReplicas());
    }

    @Test
    void aVolcanoJobsMinAvailableIsItsGangAndItsQueueItsTeam() {
        JobSpec volcano = Translate.job(translate("""
                apiVersion: batch.volcano.sh/v1alpha1
                kind: Job
                metadata: {name: mpi, namespace: ml}
                spec:
                  minAvailable: 3
                  schedulerName: volcano
                  queue: research
                  tasks:
                  - name: mpimaster
                    replicas: 1
                    template: {spec: {containers: [{name: m, image: x}]}}
                  - name: mpiworker
                    replicas: 4
                    template: {spec: %s}
                """.formatted(GPU_POD.replace("GPUS", "1"))));
        assertEquals(4, volcano.replicaCount());
        assertEquals(2, volcano.minReplicas());
        assertEquals("research", volcano.team());
        assertEquals("Job.batch.volcano.sh", volcano.source().kind());
    }

    @Test
    void podsThatClaimTheirOwnDevicesAndCpuJobsAreRefusedWithTheirReason() {
        Result dra = translate("""
                apiVersion: v1
                kind: Pod
                metadata: {name: pod1}
                spec:
                  containers: [{name: ctr, image: x, resources: {claims: [{name: gpu}]}}]
                  resourceClaims: [{name: gpu, resourceClaimTemplateName: single-gpu}]
                """);
        assertEquals(2, dra.exit());
        assertTrue(dra.err().contains("asks for devices through its own DRA ResourceClaims (spec.resourceClaims)"), dra.err());
        Result cpu = translate(job("parallelism: 2", 0).replace("nvidia.com/gpu: 0", "cpu: \"1\""));
        assertTrue(cpu.err().contains("asks for no GPU"), cpu.err());
    }

    @Test
    void anUnknownFieldOfAJobIsRefusedAsTheApiServerRefusesIt() {
        Result result = translate(job("paralelism: 2", 1));
        assertEquals(2, result.exit());
        assertTrue(result.err().contains("spec.paralelism: unknown field"), result.err());
    }

    @Test
    void differentGpuShapesInOneJobSetAreRefused() {
        Result result = translate("""
                apiVersion: jobset.x-k8s.io/v1alpha2
                kind: JobSet
                metadata: {name: mixed}
                spec:
                  replicatedJobs:
                  - {name: a, template: {spec: {template: {spec: %s}}}}
                  - {name: b, template: {spec: {template: {spec: %s}}}}
                """.formatted(GPU_POD.replace("GPUS", "1"), GPU_POD.replace("GPUS", "2")));
        assertEquals(2, result.exit());
        assertTrue(result.err().contains("Horizon plans one GPU shape per job"), result.err());
    }
}
