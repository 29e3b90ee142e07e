package dev.horizon.tests;

import static dev.horizon.tests.Horizon.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.horizon.api.scheduler.RestSchedulerClient;
import dev.horizon.kit.InferenceScaler;
import dev.horizon.kit.manifest.ManifestFile;
import dev.horizon.kubeflow.batch.BatchKind;
import dev.horizon.kubeflow.controller.KubeflowController;
import dev.horizon.kubeflow.controller.MockCluster;
import dev.horizon.kubeflow.serving.ServingKind;
import dev.horizon.kubeflow.translate.TranslationOptions;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import java.net.URI;
import java.time.Clock;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The kinds beyond Kubeflow's over processes: the control plane and one agent (8 GPUs on the simulated driver) as
 * processes, the Kubeflow adapter's controller and inference scaler in this JVM against the fabric8 mock API server. A
 * JobSet and a LeaderWorkerSet go from submission to release on their planned GPUs; then a Deployment marked as
 * inference is scaled by Horizon from its reported demand, its trough lent to a waiting Job, and taken back (the Job
 * suspended again) when demand returns. One control plane and agent serve the three, to keep the added time small.
 */
@EnableKubernetesMockClient(crud = true)
class WorkloadsOverProcessesIT extends OverProcesses {
    private static final String ADMIN = "workloads-it-admin";
    private static final String NODE = "wl-node";
    private static final String AFFINITY = "/affinity/nodeAffinity/requiredDuringSchedulingIgnoredDuringExecution/nodeSelectorTerms";
    private static final String JOB_SET = """
            apiVersion: jobset.x-k8s.io/v1alpha2
            kind: JobSet
            metadata: {name: slices, namespace: ml, annotations: {horizon.dev/duration-estimate: 1h}}
            spec:
              replicatedJobs:
              - name: workers
                replicas: 2
                template: {spec: {parallelism: 1, template: {spec: {restartPolicy: Never,
                  containers: [{name: w, image: x, resources: {limits: {nvidia.com/gpu: 2}}}]}}}}
            """;
    private static final String LEADER_WORKER_SET = """
            apiVersion: leaderworkerset.x-k8s.io/v1
            kind: LeaderWorkerSet
            metadata: {name: deepseek, namespace: ml}
            spec:
              replicas: 1
              leaderWorkerTemplate:
                size: 2
                workerTemplate: {spec: {containers: [{name: vllm, image: x, resources: {limits: {nvidia.com/gpu: 2}}}]}}
            """;
    private static final String DEPLOYMENT = """
            apiVersion: apps/v1
            kind: Deployment
            metadata: {name: chat, namespace: ml, labels: {horizon.dev/inference: "true"}}
            spec:
              replicas: 4
              selector: {matchLabels: {app: chat}}
              template:
                metadata: {labels: {app: chat}}
                spec: {containers: [{name: vllm, image: x, resources: {limits: {nvidia.com/gpu: 2}}}]}
            """;
    private static final String WAITING_JOB = """
            apiVersion: batch/v1
            kind: Job
            metadata: {name: eval, namespace: ml, annotations: {horizon.dev/duration-estimate: 2h}}
            spec:
              completionMode: Indexed
              completions: 2
              parallelism: 2
              template: {spec: {restartPolicy: Never, containers: [{name: eval, image: x, resources: {limits: {nvidia.com/gpu: 2}}}]}}
            """;

    KubernetesClient client;

    private Horizon.Rest admin;
    private KubeflowController controller;
    private InferenceScaler scaler;

    @Test
    void aJobSetAndALeaderWorkerSetAreReleasedOnTheirPlannedGpusAndAnInferenceTroughIsLentAndTakenBack() throws Exception {
        Horizon.ControlPlane controlPlane = controlPlane(ADMIN);
        admin = controlPlane.admin();
        admin.json("POST", "/api/v1/teams", "{\"name\":\"ml\",\"share\":1.0}", 201);
        agent(controlPlane, NODE);
        await("the agent's node registering", 90, dir, () -> admin.json("GET", "/api/v1/nodes/" + NODE, null, 200), n -> n.path("gpus").size() == 8);
        RestSchedulerClient horizon = new RestSchedulerClient(URI.create("http://127.0.0.1:" + controlPlane.port()), ADMIN);
        controller = new KubeflowController(client, horizon, TranslationOptions.defaults(), Clock.systemUTC());
        scaler = KubeflowController.inferenceScaler(client, horizon, TranslationOptions.defaults(), Clock.systemUTC());

        jobSetFromSubmissionToRelease();
        leaderWorkerSetFromSubmissionToRelease();
        inferenceTroughLentToAWaitingJobAndTakenBack();
    }

    /** Held by spec.suspend, submitted as one gang of its two 2-GPU pods, released pinned to the planned node; deleted, its job is cancelled. */
    private void jobSetFromSubmissionToRelease() throws Exception {
        ResourceDefinitionContext kind = KubeflowController.context(BatchKind.JOB_SET);
        MockCluster.installCrd(client, kind);
        Resource<GenericKubernetesResource> set = create(kind, JOB_SET);
        JsonNode released = await("the JobSet unsuspended", 30, dir, () -> pass(set), j -> j.at("/spec/suspend").isBoolean() && !j.at("/spec/suspend").asBoolean());
        String id = released.at("/metadata/annotations").path(KubeflowController.JOB_ID).asText();
        JsonNode planned = admin.json("GET", "/api/v1/jobs/" + id, null, 200);
        assertEquals("RUNNING", planned.get("state").asText());
        assertEquals(4, planned.get("gpus").asInt(), "2 replicated Jobs x 2 GPUs, one gang");
        assertTrue(planned.get("placement").asText().matches(NODE + "\\[\\d+-\\d+\\]"), planned.get("placement").asText());
        assertTrue(released.at("/spec/replicatedJobs/0/template/spec/template/spec" + AFFINITY).toString().contains("\"" + NODE + "\""), released.toString());

        set.delete();
        await("the deleted JobSet's job cancelled", 30, dir, () -> {
            controller.reconcileAll();
            return admin.json("GET", "/api/v1/jobs/" + id, null, 200);
        }, j -> !"RUNNING".equals(j.path("state").asText()));
    }

    /** Its service declared and sized to one group, the group's two 2-GPU pods held whole on the node's GPUs, its templates pinned there. */
    private void leaderWorkerSetFromSubmissionToRelease() throws Exception {
        ResourceDefinitionContext kind = ServingKind.LEADER_WORKER_SET.context();
        MockCluster.installCrd(client, kind);
        Resource<GenericKubernetesResource> set = create(kind, LEADER_WORKER_SET);
        JsonNode released = await("the LeaderWorkerSet's group holding its GPUs", 30, dir, () -> pass(set),
                s -> s.at("/metadata/annotations").has(InferenceScaler.SERVED_ON));
        assertEquals(1, released.at("/spec/replicas").asInt());
        assertTrue(released.at("/spec/leaderWorkerTemplate/workerTemplate/spec" + AFFINITY).toString().contains("\"" + NODE + "\""), released.toString());
        JsonNode service = admin.json("GET", "/api/v1/inference-services/leaderworkerset-ml-deepseek", null, 200);
        assertEquals("ml", service.get("team").asText());
        assertEquals(4, service.get("heldOn").size(), "a group of two 2-GPU pods");
        assertTrue(uuids(NODE).containsAll(Horizon.JSON.convertValue(service.get("heldOn"), List.class)), service.toString());

        set.delete();
        await("the deleted LeaderWorkerSet's service removed", 30, dir, () -> {
            scaler.reconcileAll();
            return admin.call("GET", "/api/v1/inference-services/leaderworkerset-ml-deepseek", null).statusCode();
        }, status -> status == 404);
    }

    /**
     * Demand of 6 GPUs holds three 2-GPU replicas, so a 4-GPU Job waits; demand falls to 2, the Deployment shrinks to one
     * replica and the Job is released onto the trough; demand returns, the Deployment grows back and the Job is
     * suspended, its GPUs taken back.
     */
    private void inferenceTroughLentToAWaitingJobAndTakenBack() throws Exception {
        String service = "deployment-ml-chat";
        Resource<GenericKubernetesResource> deployment = create(ServingKind.DEPLOYMENT.context(), DEPLOYMENT);
        await("the Deployment declared as a service", 30, dir, () -> pass(deployment), d -> d.at("/metadata/annotations").has(InferenceScaler.SERVICE));
        demand(service, 6);
        await("three replicas for 6 GPUs of demand", 30, dir, () -> pass(deployment), d -> d.at("/spec/replicas").asInt() == 3);
        Resource<GenericKubernetesResource> job = create(KubeflowController.context(BatchKind.JOB), WAITING_JOB);
        JsonNode held = await("the Job held while inference holds 6 of 8 GPUs", 30, dir, () -> pass(job),
                j -> j.at("/metadata/annotations").has(KubeflowController.JOB_ID));
        assertTrue(held.at("/spec/suspend").asBoolean(), held.toString());

        demand(service, 2);
        JsonNode lent = await("the trough lent: the Job released", 60, dir, () -> {
            pass(deployment);
            return pass(job);
        }, j -> !j.at("/spec/suspend").asBoolean());
        assertEquals(1, Horizon.JSON.<JsonNode>valueToTree(deployment.get()).at("/spec/replicas").asInt(), "one replica for 2 GPUs");
        String jobId = lent.at("/metadata/annotations").path(KubeflowController.JOB_ID).asText();
        assertEquals("RUNNING", admin.json("GET", "/api/v1/jobs/" + jobId, null, 200).get("state").asText());

        demand(service, 6);
        JsonNode takenBack = await("demand back: the Job suspended again", 60, dir, () -> {
            pass(deployment);
            return pass(job);
        }, j -> j.at("/spec/suspend").asBoolean());
        assertEquals(3, Horizon.JSON.<JsonNode>valueToTree(deployment.get()).at("/spec/replicas").asInt());
        assertEquals(6, admin.json("GET", "/api/v1/inference-services/" + service, null, 200).get("heldOn").size());
        assertEquals("PENDING", admin.json("GET", "/api/v1/jobs/" + jobId, null, 200).get("state").asText(), takenBack.toString());
    }

    /** One step of observed demand, as the service's agents or a metrics bridge would report it. */
    private void demand(String service, double gpus) throws Exception {
        admin.json("POST", "/api/v1/inference-services/" + service + "/demand", "{\"gpus\":[" + gpus + "]}", 200);
    }

    /** One pass of the controller and the scaler, as the adapter's resync runs them; the object after it. */
    private JsonNode pass(Resource<GenericKubernetesResource> object) {
        controller.reconcileAll();
        scaler.reconcileAll();
        return Horizon.JSON.valueToTree(object.get());
    }

    private Set<String> uuids(String node) throws Exception {
        Set<String> out = new HashSet<>();
        admin.json("GET", "/api/v1/nodes/" + node, null, 200).path("gpus").forEach(g -> out.add(g.path("uuid").asText()));
        return out;
    }

    private Resource<GenericKubernetesResource> create(ResourceDefinitionContext kind, String yaml) {
        GenericKubernetesResource resource = Horizon.JSON.convertValue(ManifestFile.parse(yaml).get(0), GenericKubernetesResource.class);
        Resource<GenericKubernetesResource> handle = client.genericKubernetesResources(kind).inNamespace("ml").resource(resource);
        handle.create();
        return handle;
    }
}
