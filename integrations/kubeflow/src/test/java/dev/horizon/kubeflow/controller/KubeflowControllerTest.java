package dev.horizon.kubeflow.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.horizon.api.scheduler.Explanation;
import dev.horizon.api.scheduler.FakeScheduler;
import dev.horizon.kubeflow.translate.KubeflowKind;
import dev.horizon.kubeflow.translate.TranslationOptions;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The controller against the fabric8 mock API server in CRUD mode, with a control plane the test drives. */
@EnableKubernetesMockClient(crud = true)
class KubeflowControllerTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String AFFINITY = "/template/spec/affinity/nodeAffinity/requiredDuringSchedulingIgnoredDuringExecution/nodeSelectorTerms";
    private static final Clock NOON_UTC = Clock.fixed(Instant.parse("2026-11-30T12:00:00Z"), ZoneOffset.UTC);

    KubernetesClient client;
    private FakeScheduler scheduler;
    private KubeflowController controller;

    @BeforeEach
    void setUp() {
        for (KubeflowKind kind : List.of(KubeflowKind.PYTORCH_JOB, KubeflowKind.TRAIN_JOB)) installCrd(kind);
        scheduler = new FakeScheduler();
        controller = new KubeflowController(client, scheduler, TranslationOptions.defaults(), NOON_UTC);
    }

    private void installCrd(KubeflowKind kind) {
        MockCluster.installCrd(client, kind);
    }

    private Resource<GenericKubernetesResource> create(String yaml) {
        return MockCluster.create(client, yaml);
    }

    private static final String PYTORCH_JOB = """
            apiVersion: kubeflow.org/v1
            kind: PyTorchJob
            metadata: {name: llama-sft, namespace: ml}
            spec:
              pytorchReplicaSpecs:
                Master:
                  replicas: 1
                  template: {spec: {containers: [{name: pytorch, image: x, resources: {limits: {nvidia.com/gpu: 4}}}]}}
                Worker:
                  replicas: 1
                  template:
                    spec:
                      affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [
                        {matchExpressions: [{key: gpu.type, operator: In, values: [h100]}]}]}}}
                      containers: [{name: pytorch, image: x, resources: {limits: {nvidia.com/gpu: 4}}}]
            """;

    private static JsonNode tree(Resource<GenericKubernetesResource> handle) {
        return JSON.valueToTree(handle.get());
    }

    private List<String> eventsAbout(String name) {
        return client.v1().events().inNamespace("ml").list().getItems().stream()
                .filter(e -> e.getInvolvedObject().getName().equals(name))
                .map(e -> e.getReason() + ": " + e.getMessage()).toList();
    }

    @Test
    void aPyTorchJobWaitsSuspendedRunsWherePlannedIsSuspendedOnPreemptionAndCancelledOnDelete() {
        Resource<GenericKubernetesResource> job = create(PYTORCH_JOB);

        controller.reconcileAll();
        JsonNode held = tree(job);
        assertTrue(held.at("/spec/runPolicy/suspend").asBoolean(), "held suspended until planned");
        String id = held.at("/metadata/annotations").path(KubeflowController.JOB_ID).asText();
        assertEquals("job-1", id);
        assertEquals(2, scheduler.submitted.get(id).replicaCount());
        assertEquals(4, scheduler.submitted.get(id).perReplica().gpus());
        assertEquals("ml", scheduler.submitted.get(id).team());

        scheduler.explain(new Explanation("blocked", Instant.parse("2026-11-30T14:30:00Z").getEpochSecond(), Map.of("nlp", 3L)));
        controller.reconcileAll();
        String sentence = "pending: team nlp ranks ahead; planned start 14:30";
        JsonNode pending = tree(job);
        assertTrue(pending.at("/spec/runPolicy/suspend").asBoolean());
        assertEquals(sentence, condition(pending).path("message").asText());
        assertEquals("False", condition(pending).path("status").asText());
        assertTrue(eventsAbout("llama-sft").contains("Pending: " + sentence), eventsAbout("llama-sft").toString());
        controller.reconcileAll();
        assertEquals(1, eventsAbout("llama-sft").stream().filter(e -> e.startsWith("Pending")).count(), "an unchanged explanation is not repeated");

        scheduler.plan(id, null, "node-a", "node-b");
        controller.reconcileAll();
        JsonNode running = tree(job);
        assertFalse(running.at("/spec/runPolicy/suspend").asBoolean(), "released once planned");
        JsonNode masterTerms = running.at("/spec/pytorchReplicaSpecs/Master/template/spec/affinity/nodeAffinity/requiredDuringSchedulingIgnoredDuringExecution/nodeSelectorTerms");
        assertEquals("[{\"matchExpressions\":[{\"key\":\"kubernetes.io/hostname\",\"operator\":\"In\",\"values\":[\"node-a\",\"node-b\"]}]}]", masterTerms.toString());
        JsonNode workerTerms = running.at("/spec/pytorchReplicaSpecs/Worker/template/spec/affinity/nodeAffinity/requiredDuringSchedulingIgnoredDuringExecution/nodeSelectorTerms");
        assertEquals("[{\"key\":\"gpu.type\",\"operator\":\"In\",\"values\":[\"h100\"]},{\"key\":\"kubernetes.io/hostname\",\"operator\":\"In\",\"values\":[\"node-a\",\"node-b\"]}]",
                workerTerms.get(0).path("matchExpressions").toString(), "the user's own node constraint is kept");
        assertEquals("True", condition(running).path("status").asText());
        assertTrue(eventsAbout("llama-sft").contains("Planned: planned by Horizon: released Master on node-a,node-b (the device plugin's nvidia.com/gpu);"
                + " Worker on node-a,node-b (the device plugin's nvidia.com/gpu)"), eventsAbout("llama-sft").toString());

        scheduler.preempt(id);
        controller.reconcileAll();
        JsonNode preempted = tree(job);
        assertTrue(preempted.at("/spec/runPolicy/suspend").asBoolean(), "suspended again on preemption");
        assertTrue(preempted.at("/metadata/annotations").path(KubeflowController.PLACEMENT).isMissingNode());
        assertTrue(eventsAbout("llama-sft").contains("Preempted: preempted by Horizon: suspended until it is planned again"));

        scheduler.plan(id, null, "node-c");
        controller.reconcileAll();
        JsonNode again = tree(job);
        assertEquals("[\"node-c\"]", again.at("/spec/pytorchReplicaSpecs/Master/template/spec/affinity/nodeAffinity/requiredDuringSchedulingIgnoredDuringExecution/nodeSelectorTerms/0/matchExpressions/0/values").toString(),
                "a new plan replaces the old nodes");

        job.delete();
        controller.reconcileAll();
        assertEquals(List.of(id), scheduler.cancelled, "deleting the job cancels its scheduler job");
    }

    @Test
    void aWaitingJobsConditionSaysItsPlannedStartAndBandAndFollowsThem() {
        Resource<GenericKubernetesResource> job = create(PYTORCH_JOB);
        controller.reconcileAll();
        scheduler.explain(new Explanation("blocked", seconds("2026-11-30T14:30:00Z"), Map.of("nlp", 3L), seconds("2026-11-30T14:40:00Z"),
                seconds("2026-11-30T15:20:00Z"), seconds("2026-11-30T11:59:00Z"), false, List.of(), List.of()));
        controller.reconcileAll();
        String banded = "pending: team nlp ranks ahead; planned start 14:30 (P50 14:40, P90 15:20)";
        assertEquals(banded, condition(tree(job)).path("message").asText());
        assertTrue(eventsAbout("llama-sft").contains("Pending: " + banded), eventsAbout("llama-sft").toString());
        scheduler.explain(new Explanation("blocked", seconds("2026-11-30T14:30:00Z"), Map.of("nlp", 3L), seconds("2026-11-30T14:45:00Z"),
                seconds("2026-11-30T15:35:00Z"), seconds("2026-11-30T12:00:00Z"), false, List.of(), List.of()));
        controller.reconcileAll();
        assertEquals("pending: team nlp ranks ahead; planned start 14:30 (P50 14:45, P90 15:35)", condition(tree(job)).path("message").asText());
        assertEquals(1, eventsAbout("llama-sft").stream().filter(e -> e.startsWith("Pending")).count(),
                "the band moves with every plan's samples: the condition follows it, no new event: " + eventsAbout("llama-sft"));

        scheduler.explain(new Explanation("blocked", seconds("2026-11-30T22:00:00Z"), Map.of("nlp", 3L), seconds("2026-11-30T23:10:00Z"),
                seconds("2026-12-01T02:00:00Z"), seconds("2026-11-30T11:59:00Z"), false, List.of(), List.of()));
        controller.reconcileAll();
        assertEquals("pending: team nlp ranks ahead; planned start 22:00 (P50 23:10, P90 Tue 1 Dec 02:00)", condition(tree(job)).path("message").asText(),
                "the band moved, past midnight: the condition follows it, with the day");

        scheduler.explain(new Explanation("no room", null, Map.of("nlp", 3L), null, null, seconds("2026-11-30T11:59:00Z"), true, List.of(), List.of()));
        controller.reconcileAll();
        assertEquals("pending: team nlp ranks ahead; not planned to start within the plan's horizon", condition(tree(job)).path("message").asText());
        assertEquals(3, eventsAbout("llama-sft").stream().filter(e -> e.startsWith("Pending")).count(), "a new planned start (or none) is an event");
        assertEquals(List.of("job-1", "job-1", "job-1", "job-1"), scheduler.explanationsAsked, "each poll asks without alternatives, which cost re-plans");
    }

    private static long seconds(String instant) {
        return Instant.parse(instant).getEpochSecond();
    }

    @Test
    void aJobWithoutGpusIsLeftToTheDefaultScheduler() {
        Resource<GenericKubernetesResource> job = create(PYTORCH_JOB.replace("nvidia.com/gpu: 4", "cpu: 4"));
        controller.reconcileAll();
        JsonNode untouched = tree(job);
        assertTrue(untouched.at("/spec/runPolicy/suspend").isMissingNode());
        assertTrue(scheduler.submitted.isEmpty());
        assertTrue(eventsAbout("llama-sft").isEmpty());
    }

    @Test
    void anUnplannableJobSaysWhyAndIsNotSubmitted() {
        Resource<GenericKubernetesResource> job = create(PYTORCH_JOB.replaceFirst("nvidia.com/gpu: 4", "nvidia.com/gpu: 2"));
        controller.reconcileAll();
        controller.reconcileAll();
        JsonNode refused = tree(job);
        assertEquals("NotPlannable", condition(refused).path("reason").asText());
        assertTrue(condition(refused).path("message").asText().contains("Horizon plans one GPU shape per job"));
        assertEquals(1, eventsAbout("llama-sft").size(), "said once: " + eventsAbout("llama-sft"));
        assertTrue(scheduler.submitted.isEmpty());
    }

    @Test
    void aFinishedJobGivesItsGpusBack() {
        Resource<GenericKubernetesResource> job = create(PYTORCH_JOB);
        controller.reconcileAll();
        scheduler.plan("job-1", null, "node-a");
        controller.reconcileAll();
        GenericKubernetesResource done = job.get();
        done.setAdditionalProperty("status", Map.of("conditions", List.of(Map.of("type", "Succeeded", "status", "True"))));
        client.resource(done).updateStatus();
        controller.reconcileAll();
        assertEquals(Map.of("job-1", true), scheduler.finished);
    }

    @Test
    void aTrainJobIsPinnedThroughARuntimePatch() {
        String runtime = """
                apiVersion: trainer.kubeflow.org/v1alpha1
                kind: TrainingRuntime
                metadata: {name: torch-mig, namespace: ml}
                spec:
                  mlPolicy: {numNodes: 1, torch: {}}
                  template:
                    spec:
                      replicatedJobs:
                        - name: node
                          template: {spec: {template: {spec: {containers: [{name: node, image: x}]}}}}
                """;
        installCrd(KubeflowKind.TRAINING_RUNTIME);
        create(runtime);
        Resource<GenericKubernetesResource> job = create("""
                apiVersion: trainer.kubeflow.org/v1alpha1
                kind: TrainJob
                metadata: {name: tune, namespace: ml}
                spec:
                  runtimeRef: {name: torch-mig, kind: TrainingRuntime}
                  trainer: {numNodes: 2, resourcesPerNode: {limits: {nvidia.com/mig-3g.40gb: 1}}}
                """);
        controller.reconcileAll();
        assertTrue(tree(job).at("/spec/suspend").asBoolean());
        assertEquals("3g.40gb", scheduler.submitted.get("job-1").perReplica().migProfile());
        assertEquals(2, scheduler.submitted.get("job-1").replicaCount());

        scheduler.plan("job-1", "3g.40gb", "node-a");
        controller.reconcileAll();
        JsonNode running = tree(job);
        assertFalse(running.at("/spec/suspend").asBoolean());
        JsonNode patch = running.at("/spec/runtimePatches/0");
        assertEquals(KubeflowJob.PATCH_MANAGER, patch.path("manager").asText());
        assertEquals("node-a", patch.at("/trainingRuntimeSpec/template/spec/replicatedJobs/0/template/spec/template/spec/affinity/nodeAffinity"
                + "/requiredDuringSchedulingIgnoredDuringExecution/nodeSelectorTerms/0/matchExpressions/0/values/0").asText());
    }

    @Test
    void migLimitsFollowThePlannedProfile() {
        Resource<GenericKubernetesResource> job = create(PYTORCH_JOB.replace("nvidia.com/gpu: 4", "nvidia.com/mig-1g.10gb: 1"));
        controller.reconcileAll();
        assertEquals("1g.10gb", scheduler.submitted.get("job-1").perReplica().migProfile());
        scheduler.plan("job-1", "1g.12gb", "node-a");
        controller.reconcileAll();
        JsonNode limits = tree(job).at("/spec/pytorchReplicaSpecs/Worker/template/spec/containers/0/resources/limits");
        assertEquals("{\"nvidia.com/mig-1g.12gb\":1}", limits.toString());
    }

    /** The mpi-operator's kubeflow.org/v2beta1 MPIJob: held through runPolicy.suspend, its GPU workers released onto the plan. */
    @Test
    void anMpiJobV2beta1IsHeldThroughItsRunPolicyAndReleasedOntoThePlannedNodes() {
        installCrd(KubeflowKind.MPI_JOB_V2BETA1);
        Resource<GenericKubernetesResource> job = create(MockCluster.MPI_JOB_V2BETA1);
        controller.reconcileAll();
        JsonNode held = tree(job);
        assertEquals("kubeflow.org/v2beta1", held.path("apiVersion").asText());
        assertTrue(held.at("/spec/runPolicy/suspend").asBoolean(), "held through runPolicy.suspend until planned");
        assertEquals("Running", held.at("/spec/runPolicy/cleanPodPolicy").asText(), "the user's run policy is kept");
        assertEquals(2, scheduler.submitted.get("job-1").replicaCount());
        assertEquals(2, scheduler.submitted.get("job-1").perReplica().gpus());
        assertEquals("MPIJob", scheduler.submitted.get("job-1").source().kind());

        scheduler.plan("job-1", null, "node-a", "node-b");
        controller.reconcileAll();
        JsonNode running = tree(job);
        assertFalse(running.at("/spec/runPolicy/suspend").asBoolean(), "released once planned");
        assertEquals("[\"node-a\",\"node-b\"]", running.at("/spec/mpiReplicaSpecs/Worker" + AFFINITY + "/0/matchExpressions/0/values").toString(),
                "the GPU workers run on the planned nodes");
        assertTrue(running.at("/spec/mpiReplicaSpecs/Launcher/template/spec/affinity").isMissingNode(), "the CPU launcher runs where Kubernetes puts it");

        scheduler.preempt("job-1");
        controller.reconcileAll();
        assertTrue(tree(job).at("/spec/runPolicy/suspend").asBoolean(), "suspended again on preemption");
        job.delete();
        controller.reconcileAll();
        assertEquals(List.of("job-1"), scheduler.cancelled);
    }

    private static JsonNode condition(JsonNode object) {
        for (JsonNode c : object.at("/status/conditions")) {
            if (KubeflowController.CONDITION.equals(c.path("type").asText())) return c;
        }
        return JSON.missingNode();
    }
}
