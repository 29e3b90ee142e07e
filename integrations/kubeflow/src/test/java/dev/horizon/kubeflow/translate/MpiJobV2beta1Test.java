package dev.horizon.kubeflow.translate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.horizon.api.JobSpec;
import dev.horizon.api.cli.CommandRunner.Result;
import dev.horizon.kubeflow.Translate;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The mpi-operator's current API, kubeflow.org/v2beta1 MPIJob, read as the mpi-operator runs it. */
class MpiJobV2beta1Test {
    @TempDir
    Path dir;

    /** A Horovod-style MPIJob: a CPU launcher and GPU workers, one MPI slot per GPU. */
    static String mpiJob(String specExtra, String launcherLimits, int workers, String workerLimits) {
        return """
                apiVersion: kubeflow.org/v2beta1
                kind: MPIJob
                metadata: {name: horovod-mnist, namespace: ml}
                spec:
                  slotsPerWorker: 4
                  mpiImplementation: OpenMPI
                  launcherCreationPolicy: WaitForWorkersReady
                  runPolicy: {cleanPodPolicy: Running, suspend: false}
                  %s
                  mpiReplicaSpecs:
                    Launcher:
                      replicas: 1
                      template: {spec: {containers: [{name: mpi-launcher, image: x, command: [mpirun], resources: {limits: %s}}]}}
                    Worker:
                      replicas: %d
                      template: {spec: {containers: [{name: mpi-worker, image: x, resources: {limits: %s}}]}}
                """.formatted(specExtra, launcherLimits, workers, workerLimits);
    }

    private Result translate(String yaml) {
        return Translate.run(Translate.file(dir, "mpijob.yaml", yaml));
    }

    @Test
    void workersAreTheGangAndTheLauncherRunsBeside() {
        JobSpec job = Translate.job(translate(mpiJob("", "{cpu: 1}", 2, "{nvidia.com/gpu: 4}")));
        assertEquals(2, job.replicaCount(), "the GPU workers");
        assertEquals(4, job.perReplica().gpus());
        assertTrue(job.gangOrDefault());
        assertEquals("MPIJob", job.source().kind());
        assertEquals("ml", job.team());
    }

    @Test
    void moreMpiSlotsThanAWorkerHoldsGpusIsAWarning() {
        Result shared = translate(mpiJob("", "{cpu: 1}", 2, "{nvidia.com/gpu: 2}"));
        assertEquals(2, Translate.job(shared).perReplica().gpus());
        assertTrue(shared.err().contains("spec.slotsPerWorker: 4 MPI processes per worker share its 2 GPUs"), shared.err());
        assertEquals("", translate(mpiJob("", "{cpu: 1}", 2, "{nvidia.com/gpu: 4}")).err(), "one slot per GPU says nothing");
    }

    @Test
    void schedulingPolicyOfTheRunPolicyGivesQueueAndMinAvailable() {
        JobSpec job = Translate.job(translate(mpiJob("runPolicy: {schedulingPolicy: {queue: vision, minAvailable: 3}}", "{cpu: 1}", 4,
                "{nvidia.com/gpu: 1}")));
        assertEquals("vision", job.team());
        assertEquals(4, job.replicaCount());
        assertEquals(2, job.minReplicas(), "minAvailable 3 pods less the launcher");
    }

    @Test
    void aLauncherRunAsWorkerWithGpusJoinsTheGang() {
        JobSpec job = Translate.job(translate(mpiJob("runLauncherAsWorker: true", "{nvidia.com/gpu: 2}", 3, "{nvidia.com/gpu: 2}")));
        assertEquals(4, job.replicaCount(), "the launcher holds GPUs like a worker");
    }

    @Test
    void itsSchemaIsTheV2beta1One() {
        Result bad = translate(mpiJob("", "{cpu: 1}", 2, "{nvidia.com/gpu: 1}").replace("OpenMPI", "MVAPICH"));
        assertEquals(2, bad.exit());
        assertTrue(bad.err().contains("spec.mpiImplementation: \"MVAPICH\" is not one of [\"OpenMPI\",\"Intel\",\"MPICH\"]"), bad.err());
        Result v1Field = translate(mpiJob("cleanPodPolicy: Running", "{cpu: 1}", 2, "{nvidia.com/gpu: 1}"));
        assertTrue(v1Field.err().contains("spec.cleanPodPolicy: unknown field"), "v1's top-level cleanPodPolicy is runPolicy's in v2beta1: " + v1Field.err());
    }

    @Test
    void versionsHorizonDoesNotReadAreNamedWithTheOnesItReads() {
        Result oldMpi = translate(mpiJob("", "{cpu: 1}", 2, "{nvidia.com/gpu: 1}").replace("kubeflow.org/v2beta1", "kubeflow.org/v1alpha2"));
        assertEquals(2, oldMpi.exit());
        assertTrue(oldMpi.err().contains("apiVersion kubeflow.org/v1alpha2 is not one Horizon reads; it reads MPIJob as kubeflow.org/v1 or kubeflow.org/v2beta1"),
                oldMpi.err());
        Result oldTf = translate("apiVersion: kubeflow.org/v1beta1\nkind: TFJob\nmetadata: {name: mnist}\nspec: {tfReplicaSpecs: {}}\n");
        assertTrue(oldTf.err().contains("TFJob mnist: apiVersion kubeflow.org/v1beta1 is not one Horizon reads; it reads TFJob as kubeflow.org/v1"),
                oldTf.err());
        assertEquals(1, oldTf.err().strip().lines().count(), oldTf.err());
    }
}
