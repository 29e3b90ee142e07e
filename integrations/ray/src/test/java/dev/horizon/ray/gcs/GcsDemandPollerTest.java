package dev.horizon.ray.gcs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import dev.horizon.api.GpuShape;
import dev.horizon.api.JobSource;
import dev.horizon.api.JobSpec;
import dev.horizon.api.scheduler.FakeScheduler;
import dev.horizon.kit.manifest.TeamRule;
import dev.horizon.ray.controller.RayController;
import dev.horizon.ray.demand.RayDemandTranslator;
import dev.horizon.ray.gcs.proto.AffinityConstraint;
import dev.horizon.ray.gcs.proto.AntiAffinityConstraint;
import dev.horizon.ray.gcs.proto.BundleSelector;
import dev.horizon.ray.gcs.proto.ClusterResourceState;
import dev.horizon.ray.gcs.proto.GangResourceRequest;
import dev.horizon.ray.gcs.proto.PlacementConstraint;
import dev.horizon.ray.gcs.proto.ResourceRequest;
import dev.horizon.ray.gcs.proto.ResourceRequestByCount;
import dev.horizon.ray.translate.FractionalGpuPolicy;
import dev.horizon.ray.translate.RayKind;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.grpc.StatusRuntimeException;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The poller against a fake GCS that speaks Ray's autoscaler state protocol over real gRPC, a control plane the test
 * drives, and the fabric8 mock API server holding the RayCluster whose worker groups Horizon scales.
 */
@EnableKubernetesMockClient(crud = true)
class GcsDemandPollerTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Map<String, Double> ONE_GPU = Map.of("CPU", 1.0, "GPU", 1.0);
    private static final Map<String, Double> HALF_GPU = Map.of("CPU", 1.0, "GPU", 0.5);
    private static final Map<String, Double> CPU_ONLY = Map.of("CPU", 2.0);
    private static final String PG = "a1b2c3d4e5f60718293a4b5c6d7e8f90";
    private static final String HOSTNAMES = "/template/spec/affinity/nodeAffinity/requiredDuringSchedulingIgnoredDuringExecution/nodeSelectorTerms/0/matchExpressions";
    private static final String RAY_CLUSTER = """
            apiVersion: ray.io/v1
            kind: RayCluster
            metadata: {name: chat, namespace: ml, labels: {kueue.x-k8s.io/queue-name: nlp}}
            spec:
              headGroupSpec:
                rayStartParams: {}
                template: {spec: {containers: [{name: ray-head, image: rayproject/ray}]}}
              workerGroupSpecs:
                - groupName: cpu
                  replicas: 1
                  rayStartParams: {}
                  template: {spec: {containers: [{name: ray-worker, image: rayproject/ray}]}}
                - groupName: one-gpu
                  replicas: 0
                  maxReplicas: 8
                  rayStartParams: {}
                  template: {spec: {containers: [{name: ray-worker, image: rayproject/ray, resources: {limits: {nvidia.com/gpu: 1}}}]}}
                - groupName: four-gpu
                  replicas: 0
                  maxReplicas: 2
                  rayStartParams: {}
                  template: {spec: {containers: [{name: ray-worker, image: rayproject/ray, resources: {limits: {nvidia.com/gpu: 4}}}]}}
            """;

    KubernetesClient client;
    private FakeGcs gcs;
    private GcsClient gcsClient;
    private FakeScheduler scheduler;
    private GcsDemandPoller poller;

    @BeforeEach
    void setUp() throws IOException {
        // the mock API server serves a custom kind once its CRD exists; this one keeps every field, as KubeRay's does for these
        client.apiextensions().v1().customResourceDefinitions().resource(new CustomResourceDefinitionBuilder()
                .withNewMetadata().withName("rayclusters.ray.io").endMetadata()
                .withNewSpec().withGroup(RayKind.GROUP).withScope("Namespaced")
                .withNewNames().withKind("RayCluster").withPlural("rayclusters").withSingular("raycluster").endNames()
                .addNewVersion().withName(RayKind.VERSION).withServed(true).withStorage(true)
                .withNewSchema().withNewOpenAPIV3Schema().withType("object").withXKubernetesPreserveUnknownFields(true).endOpenAPIV3Schema().endSchema()
                .endVersion().endSpec().build()).create();
        client.resource(JSON.convertValue(new YAMLMapper().readTree(RAY_CLUSTER), GenericKubernetesResource.class)).create();
        gcs = new FakeGcs();
        gcsClient = new GcsClient(gcs.address(), Duration.ofSeconds(5));
        scheduler = new FakeScheduler();
        poller = newPoller();
    }

    private GcsDemandPoller newPoller() {
        return new GcsDemandPoller(gcsClient, scheduler, new RayDemandTranslator(FractionalGpuPolicy.parse("time-slicing:81920"),
                RayDemandTranslator.DEFAULT_ACCELERATOR_MODELS), new RayClusterWorkers(client, "ml", "chat"), TeamRule.defaults());
    }

    @AfterEach
    void tearDown() throws InterruptedException {
        gcsClient.close();
        gcs.close();
    }

    private static ResourceRequestByCount tasks(Map<String, Double> shape, long count) {
        return ResourceRequestByCount.newBuilder().setRequest(ResourceRequest.newBuilder().putAllResourcesBundle(shape)).setCount(count).build();
    }

    /** A pending placement group as the GCS reports it: bundles in both requests and bundle_selectors, the strategy in details. */
    private static GangResourceRequest placementGroup(String id, String strategy, List<Map<String, Double>> bundles) {
        PlacementConstraint.Builder constraint = PlacementConstraint.newBuilder();
        if (strategy.equals("STRICT_PACK")) constraint.setAffinity(AffinityConstraint.newBuilder().setLabelName("_PG_" + id));
        if (strategy.equals("STRICT_SPREAD")) constraint.setAntiAffinity(AntiAffinityConstraint.newBuilder().setLabelName("_PG_" + id));
        GangResourceRequest.Builder gang = GangResourceRequest.newBuilder().setDetails(id + ":" + strategy + "|PENDING");
        BundleSelector.Builder selector = BundleSelector.newBuilder();
        for (Map<String, Double> bundle : bundles) {
            ResourceRequest request = ResourceRequest.newBuilder().putAllResourcesBundle(bundle).addPlacementConstraints(constraint).build();
            gang.addRequests(request);
            selector.addResourceRequests(request);
        }
        return gang.addBundleSelectors(selector).build();
    }

    private JsonNode rayCluster() {
        return JSON.valueToTree(client.genericKubernetesResources(RayController.context(RayKind.RAY_CLUSTER)).inNamespace("ml").withName("chat").get());
    }

    private JsonNode workerGroup(String name) {
        for (JsonNode group : rayCluster().at("/spec/workerGroupSpecs")) {
            if (group.path("groupName").asText().equals(name)) return group;
        }
        throw new AssertionError("no worker group " + name);
    }

    private String jobOf(String demandKey) {
        DemandJob job = poller.jobs().get(demandKey);
        assertTrue(job != null, demandKey + " has a scheduler job: " + poller.jobs().keySet());
        return job.id();
    }

    @Test
    void pendingDemandBecomesJobsOnceAndPlacedJobsScaleTheirWorkerGroupOntoThePlannedNodes() {
        gcs.reply(ClusterResourceState.newBuilder()
                .addPendingResourceRequests(tasks(ONE_GPU, 2))
                .addPendingResourceRequests(tasks(HALF_GPU, 3))
                .addPendingResourceRequests(tasks(CPU_ONLY, 5))
                .addPendingGangResourceRequests(placementGroup(PG, "STRICT_PACK", List.of(ONE_GPU, ONE_GPU)))
                // the GCS leaves an empty entry for a placement group that is no longer pending
                .addPendingGangResourceRequests(GangResourceRequest.getDefaultInstance())
                .build());

        poller.poll();
        assertEquals(3, scheduler.submitted.size(), "CPU-only demand and the empty gang stay Ray's: " + scheduler.submitted);
        JobSpec whole = scheduler.submitted.get(jobOf("shape CPU=1.0,GPU=1.0"));
        assertEquals(2, whole.replicaCount());
        assertEquals(1, whole.perReplica().gpus());
        assertFalse(whole.gangOrDefault(), "independent actors start one by one");
        assertEquals("nlp", whole.team(), "the RayCluster's queue label names the team");
        assertEquals(new JobSource(GcsDemandPoller.SOURCE_KIND, "ml", "chat"), whole.source());
        JobSpec half = scheduler.submitted.get(jobOf("shape CPU=1.0,GPU=0.5"));
        assertEquals(3, half.replicaCount());
        assertEquals(new GpuShape(null, null, 500, 40960, null), half.perReplica(), "0.5 GPU is a time-slice share by the policy");
        JobSpec gang = scheduler.submitted.get(jobOf("pg " + PG));
        assertEquals(2, gang.replicaCount());
        assertTrue(gang.gangOrDefault(), "a placement group is all or none");
        assertEquals("same-node", gang.topology(), "STRICT_PACK");
        assertEquals("chat-pg-" + PG.substring(0, 12), gang.name());

        poller.poll();
        assertEquals(3, scheduler.submitted.size(), "demand still pending is not submitted again");
        assertTrue(scheduler.cancelled.isEmpty());
        assertEquals(2, gcs.calls(), "each poll reads the GCS");

        scheduler.plan(jobOf("shape CPU=1.0,GPU=0.5"), null, "node-a");
        scheduler.plan(jobOf("pg " + PG), null, "node-b");
        poller.poll();
        JsonNode oneGpu = workerGroup("one-gpu");
        assertEquals(2, oneGpu.path("replicas").asInt(), "three 0.5-GPU actors take two 1-GPU workers");
        assertEquals("[{\"key\":\"kubernetes.io/hostname\",\"operator\":\"In\",\"values\":[\"node-a\"]}]", oneGpu.at(HOSTNAMES).toString());
        JsonNode fourGpu = workerGroup("four-gpu");
        assertEquals(1, fourGpu.path("replicas").asInt(), "the STRICT_PACK pair needs one worker holding both GPUs");
        assertEquals("[\"node-b\"]", fourGpu.at(HOSTNAMES + "/0/values").toString());
        assertEquals(1, workerGroup("cpu").path("replicas").asInt(), "a group without GPUs is never Horizon's to scale");

        poller.poll();
        assertEquals(2, workerGroup("one-gpu").path("replicas").asInt(), "a placed demand scales its group once");
        assertEquals(1, workerGroup("four-gpu").path("replicas").asInt());

        // Ray placed the actors and the placement group on the new workers: the GCS no longer reports them
        gcs.reply(ClusterResourceState.newBuilder().addPendingResourceRequests(tasks(ONE_GPU, 2)).build());
        poller.poll();
        assertEquals(Set.of("shape CPU=1.0,GPU=1.0"), poller.jobs().keySet(), "only the still-pending demand keeps its job");
        assertTrue(scheduler.finished.values().stream().allMatch(ok -> ok) && scheduler.finished.size() == 2,
                "the placed jobs are reported done: " + scheduler.finished);
        assertTrue(scheduler.cancelled.isEmpty());

        // the demand was cancelled in Ray (actors killed) before Horizon placed it
        String unplaced = jobOf("shape CPU=1.0,GPU=1.0");
        gcs.reply(ClusterResourceState.getDefaultInstance());
        poller.poll();
        assertEquals(List.of(unplaced), scheduler.cancelled, "withdrawn from Horizon");
        assertTrue(poller.jobs().isEmpty());
        assertEquals(3, scheduler.submitted.size());
    }

    @Test
    void aRestartedAdapterClaimsTheJobsRecordedOnTheRayClusterInsteadOfSubmittingAgain() {
        gcs.reply(ClusterResourceState.newBuilder().addPendingResourceRequests(tasks(ONE_GPU, 2))
                .addPendingGangResourceRequests(placementGroup(PG, "PACK", List.of(ONE_GPU, ONE_GPU))).build());
        poller.poll();
        scheduler.plan(jobOf("pg " + PG), null, "node-c", "node-d");
        poller.poll();
        assertEquals(2, workerGroup("one-gpu").path("replicas").asInt());

        GcsDemandPoller restarted = newPoller();
        restarted.poll();
        assertEquals(2, scheduler.submitted.size(), "nothing submitted twice");
        assertEquals(poller.jobs(), restarted.jobs());
        assertEquals(2, workerGroup("one-gpu").path("replicas").asInt(), "nor scaled twice");

        gcs.reply(ClusterResourceState.getDefaultInstance());
        restarted.poll();
        assertEquals(List.of(poller.jobs().get("shape CPU=1.0,GPU=1.0").id()), scheduler.cancelled);
        assertEquals(Map.of(poller.jobs().get("pg " + PG).id(), true), scheduler.finished);
        assertEquals("{}", rayCluster().at("/metadata/annotations").path(RayClusterWorkers.DEMAND_JOBS).asText(), "the record follows the withdrawal");
    }

    @Test
    void aChangedCountReplacesAnUnplacedJobSoItAsksForWhatIsPendingNow() {
        gcs.reply(ClusterResourceState.newBuilder().addPendingResourceRequests(tasks(ONE_GPU, 2)).build());
        poller.poll();
        String first = jobOf("shape CPU=1.0,GPU=1.0");

        gcs.reply(ClusterResourceState.newBuilder().addPendingResourceRequests(tasks(ONE_GPU, 4)).build());
        poller.poll();
        assertEquals(List.of(first), scheduler.cancelled);
        assertEquals(4, scheduler.submitted.get(jobOf("shape CPU=1.0,GPU=1.0")).replicaCount());
        assertEquals(2, scheduler.submitted.size());
    }

    @Test
    void anUnreachableGcsChangesNothingAndSaysSo() throws InterruptedException {
        gcs.reply(ClusterResourceState.newBuilder().addPendingResourceRequests(tasks(ONE_GPU, 1)).build());
        poller.poll();
        gcs.close();

        StatusRuntimeException down = assertThrows(StatusRuntimeException.class, poller::poll);
        assertEquals(io.grpc.Status.Code.UNAVAILABLE, down.getStatus().getCode());
        assertEquals(1, poller.jobs().size(), "an unreachable GCS says nothing about the demand, so its job stays");
        assertTrue(scheduler.cancelled.isEmpty());
    }

    @Test
    void pollingGoesOnThroughAnOutageAndPicksUpNewDemandAfterIt() throws Exception {
        gcs.reply(ClusterResourceState.newBuilder().addPendingResourceRequests(tasks(ONE_GPU, 1)).build());
        Thread loop = new Thread(() -> {
            try {
                poller.pollForever(Duration.ofMillis(20), Duration.ofMillis(80));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        loop.start();
        FakeGcs restarted = null;
        try {
            awaitTrue(() -> scheduler.submitted.size() == 1);
            int port = gcs.port();
            gcs.close();
            int callsBefore = gcs.calls();
            Thread.sleep(300); // several failed polls, backing off to 80 ms
            assertTrue(loop.isAlive(), "the loop survives an unreachable GCS");
            assertEquals(1, poller.jobs().size(), "and keeps the job it submitted");
            assertTrue(scheduler.cancelled.isEmpty());
            assertEquals(callsBefore, gcs.calls());

            restarted = new FakeGcs(port);
            restarted.reply(ClusterResourceState.newBuilder().addPendingResourceRequests(tasks(ONE_GPU, 1))
                    .addPendingResourceRequests(tasks(HALF_GPU, 2)).build());
            awaitTrue(() -> scheduler.submitted.size() == 2);
            assertTrue(scheduler.cancelled.isEmpty(), "the demand pending across the outage kept its job");
        } finally {
            loop.interrupt();
            loop.join(5000);
            if (restarted != null) restarted.close();
        }
        assertFalse(loop.isAlive(), "an interrupt ends the loop");
    }

    private static void awaitTrue(java.util.function.BooleanSupplier condition) throws InterruptedException {
        for (int i = 0; i < 500 && !condition.getAsBoolean(); i++) Thread.sleep(10);
        assertTrue(condition.getAsBoolean(), "condition met within 5 s");
    }

    @Test
    void demandHorizonCannotPlanIsLeftToRayOnceWithoutResubmission() {
        gcs.reply(ClusterResourceState.newBuilder()
                .addPendingGangResourceRequests(placementGroup("bb01", "STRICT_SPREAD", List.of(ONE_GPU, ONE_GPU)))
                // eight GPUs on one node: no worker group holds that many per pod
                .addPendingGangResourceRequests(placementGroup("cc02", "STRICT_PACK", List.of(Map.of("GPU", 4.0), Map.of("GPU", 4.0))))
                // another vendor's accelerator, refused as every adapter refuses it, beside demand Horizon does plan
                .addPendingResourceRequests(tasks(Map.of("TPU", 4.0), 2))
                .addPendingResourceRequests(tasks(ONE_GPU, 1))
                .build());
        poller.poll();
        poller.poll();
        assertEquals(1, scheduler.submitted.size(), "refused demand is not submitted, the rest is: " + scheduler.submitted);
        assertEquals(1, poller.jobs().size());
    }
}
