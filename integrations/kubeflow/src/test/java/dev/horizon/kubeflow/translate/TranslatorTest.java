package dev.horizon.kubeflow.translate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.horizon.api.JobClass;
import dev.horizon.api.JobSpec;
import dev.horizon.kit.manifest.ManifestException;
import dev.horizon.kit.manifest.ManifestFile;
import dev.horizon.kit.manifest.QueueTeams;
import dev.horizon.kit.manifest.TeamRule;
import dev.horizon.kit.manifest.TeamSource;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class TranslatorTest {
    private static final Translator TRANSLATOR = new Translator(TranslationOptions.defaults(), (kind, ns, name) -> Optional.empty());

    /** A PyTorchJob with a Master and Workers whose containers carry the given limits (YAML flow maps). */
    static String pytorchJob(String metadataExtra, String specExtra, String masterLimits, int workers, String workerLimits) {
        return """
                apiVersion: kubeflow.org/v1
                kind: PyTorchJob
                metadata: {name: llama-sft, namespace: ml%s}
                spec:
                  %s
                  pytorchReplicaSpecs:
                    Master:
                      replicas: 1
                      template: {spec: {containers: [{name: pytorch, image: x, resources: {limits: %s}}]}}
                    Worker:
                      replicas: %d
                      template: {spec: {containers: [{name: pytorch, image: x, resources: {limits: %s}}]}}
                """.formatted(metadataExtra, specExtra, masterLimits, workers, workerLimits);
    }

    private static JobSpec translate(String yaml) {
        return TRANSLATOR.translate(ManifestFile.parse(yaml).get(0)).jobs().get(0);
    }

    private static String refusal(String yaml) {
        return assertThrows(ManifestException.class, () -> translate(yaml)).getMessage();
    }

    @Test
    void wholeGpuReplicasBecomeOneGangWithTheNamespaceAsTeam() {
        JobSpec job = translate(pytorchJob("", "", "{nvidia.com/gpu: 4}", 3, "{nvidia.com/gpu: '4', cpu: 8}"));
        assertEquals(4, job.replicaCount());
        assertEquals(4, job.perReplica().gpus());
        assertTrue(job.gang());
        assertNull(job.minReplicas());
        assertEquals("ml", job.team());
        assertEquals(JobClass.TRAINING, job.jobClass());
        assertEquals("PyTorchJob", job.source().kind());
        assertEquals("ml", job.source().namespace());
    }

    @Test
    void migLimitsBecomeTheMigProfile() {
        JobSpec job = translate(pytorchJob("", "", "{nvidia.com/mig-1g.10gb: 1}", 1, "{nvidia.com/mig-1g.10gb: 1}"));
        assertEquals("1g.10gb", job.perReplica().migProfile());
        assertEquals(2, job.replicaCount());
    }

    @Test
    void replicasWithoutGpusRunBesideTheGangAndCountInMinAvailable() {
        JobSpec job = translate(pytorchJob("", "runPolicy: {schedulingPolicy: {minAvailable: 3, queue: vision, priorityClass: high}}",
                "{cpu: 2}", 4, "{nvidia.com/gpu: 1}"));
        assertEquals(4, job.replicaCount(), "only the Workers hold GPUs");
        assertEquals(2, job.minReplicas(), "minAvailable 3 pods less the GPU-less Master");
        assertEquals("vision", job.team(), "schedulingPolicy.queue before the namespace");
        assertNull(job.priority(), "a priority class with no configured Horizon priority keeps the default");
    }

    @Test
    void elasticPolicyBoundsTheWorkers() {
        JobSpec job = translate(pytorchJob("", "elasticPolicy: {minReplicas: 2, maxReplicas: 6}", "{nvidia.com/gpu: 1}", 5, "{nvidia.com/gpu: 1}"));
        assertEquals(6, job.replicaCount());
        assertEquals(3, job.minReplicas(), "the Master plus elasticPolicy.minReplicas Workers");
    }

    @Test
    void labelsAnnotationsAndOptionsSetTeamClassPriorityAndDuration() {
        String yaml = pytorchJob(", labels: {kueue.x-k8s.io/queue-name: nlp, horizon.dev/class: batch-inference},"
                        + " annotations: {horizon.dev/duration-estimate: 1h30m}",
                "runPolicy: {schedulingPolicy: {queue: vision, priorityClass: high}}", "{nvidia.com/gpu: 1}", 1, "{nvidia.com/gpu: 1}");
        Translator translator = new Translator(new TranslationOptions(new TeamRule(List.of(TeamSource.SCHEDULING_QUEUE), QueueTeams.NONE), "default",
                Map.of("high", 7)), (kind, ns, name) -> Optional.empty());
        JobSpec job = translator.translate(ManifestFile.parse(yaml).get(0)).jobs().get(0);
        assertEquals("vision", job.team(), "the configured team source only");
        assertEquals(JobClass.BATCH_INFERENCE, job.jobClass());
        assertEquals(7, job.priority());
        assertEquals(5400L, job.durationEstimateSeconds());
        assertEquals("nlp", translate(yaml).team(), "by default Kueue's queue label comes first");
    }

    @Test
    void refusalsNameTheField() {
        assertTrue(refusal(pytorchJob("", "", "{nvidia.com/gpu: 1}", 1, "{nvidia.com/gpu: 2}"))
                .contains("spec.pytorchReplicaSpecs[Worker]: asks for 2 GPUs per replica but spec.pytorchReplicaSpecs[Master] asks for 1 GPU"));
        assertTrue(refusal(pytorchJob("", "", "{google.com/tpu: 4}", 1, "{google.com/tpu: 4}"))
                .contains("spec.pytorchReplicaSpecs[Master].template.spec.containers[0].resources.limits[google.com/tpu]: asks for 'google.com/tpu'; Horizon plans NVIDIA GPUs only"));
        assertTrue(refusal(pytorchJob("", "", "{nvidia.com/mig-9g.99gb: 1}", 1, "{nvidia.com/gpu: 1}")).contains("[nvidia.com/mig-9g.99gb]: '9g.99gb' is not a MIG profile"));
        assertTrue(refusal(pytorchJob("", "", "{nvidia.com/gpu: 500m}", 1, "{nvidia.com/gpu: 1}")).contains("'500m' is not a whole number"));
        assertTrue(refusal(pytorchJob(", labels: {horizon.dev/class: urgent}", "", "{nvidia.com/gpu: 1}", 1, "{nvidia.com/gpu: 1}"))
                .contains("metadata.labels[horizon.dev/class]: 'urgent' is not one of"));
        assertTrue(refusal(pytorchJob(", annotations: {horizon.dev/duration-estimate: soon}", "", "{nvidia.com/gpu: 1}", 1, "{nvidia.com/gpu: 1}"))
                .contains("metadata.annotations[horizon.dev/duration-estimate]: 'soon' is not a duration"));
        assertInstanceOf(NoGpuRequestedException.class, assertThrows(TranslationException.class,
                () -> translate(pytorchJob("", "", "{cpu: 1}", 1, "{memory: 1Gi}"))));
    }

    @Test
    void schemaViolationsNameTheFieldBeforeTranslation() {
        assertTrue(refusal(pytorchJob("", "runPolicy: {suspend: 'yes'}", "{nvidia.com/gpu: 1}", 1, "{nvidia.com/gpu: 1}"))
                .contains("spec.runPolicy.suspend: must be a boolean, got the string \"yes\""));
        assertTrue(refusal(pytorchJob("", "", "{nvidia.com/gpu: 1}", 1, "{nvidia.com/gpu: 1}").replace("replicas: 1", "replicas: one"))
                .contains("spec.pytorchReplicaSpecs[Master].replicas: must be an integer, got the string \"one\""));
        assertTrue(refusal(pytorchJob("", "", "{nvidia.com/gpu: lots}", 1, "{nvidia.com/gpu: 1}"))
                .contains("spec.pytorchReplicaSpecs[Master].template.spec.containers[0].resources.limits[nvidia.com/gpu]: 'lots' does not match"));
        assertTrue(refusal(pytorchJob("", "suspend: true", "{nvidia.com/gpu: 1}", 1, "{nvidia.com/gpu: 1}"))
                .contains("spec.suspend: unknown field"));
        assertTrue(refusal("apiVersion: kubeflow.org/v1\nkind: PyTorchJob\nmetadata: {name: x}\nspec: {}\n")
                .contains("spec.pytorchReplicaSpecs: is required"));
    }

    @Test
    void otherKindsAreNotTranslated() {
        assertTrue(refusal("apiVersion: v1\nkind: Pod\nmetadata: {name: x}\n").contains("Pod x: not a Kubeflow training job; Horizon reads [PyTorchJob kubeflow.org/v1,"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> translate("apiVersion: kubeflow.org/v1\nkind: PyTorchJob\nmetadata: {name: [x\n"))
                .getMessage().contains("not valid YAML"));
    }
}
