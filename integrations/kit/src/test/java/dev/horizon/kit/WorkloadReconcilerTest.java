package dev.horizon.kit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.horizon.api.scheduler.Explanation;
import dev.horizon.api.scheduler.FakeScheduler;
import dev.horizon.api.scheduler.SchedulerRefused;
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

/**
 * The one loop over two fake kinds ({@link FakeKinds}) against the fabric8 mock API server in CRUD mode and a control
 * plane the test drives: what every adapter's workloads go through, whatever their kind.
 */
@EnableKubernetesMockClient(crud = true)
class WorkloadReconcilerTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Clock NOON_UTC = Clock.fixed(Instant.parse("2026-11-30T12:00:00Z"), ZoneOffset.UTC);

    KubernetesClient client;
    private FakeScheduler scheduler;
    private WorkloadReconciler reconciler;

    @BeforeEach
    void setUp() {
        FakeKinds.install(client);
        scheduler = new FakeScheduler();
        reconciler = new WorkloadReconciler(client, scheduler, NOON_UTC, "horizon-test", List.of(FakeKinds.widgets(), FakeKinds.pairs()));
    }

    private Resource<GenericKubernetesResource> create(WorkloadKind kind, String name, int gpus) {
        GenericKubernetesResource resource = JSON.convertValue(Map.of("apiVersion", FakeKinds.GROUP + "/v1", "kind", kind.name(),
                "metadata", Map.of("name", name, "namespace", "ml"), "spec", Map.of("gpus", gpus)), GenericKubernetesResource.class);
        Resource<GenericKubernetesResource> handle = client.genericKubernetesResources(kind.context()).inNamespace("ml").resource(resource);
        handle.create();
        return handle;
    }

    private static JsonNode tree(Resource<GenericKubernetesResource> handle) {
        return JSON.valueToTree(handle.get());
    }

    private static JsonNode condition(JsonNode object) {
        return object.at("/status/conditions/0");
    }

    private List<String> events(String name) {
        return client.v1().events().inNamespace("ml").list().getItems().stream().filter(e -> e.getInvolvedObject().getName().equals(name))
                .map(e -> e.getReason() + ": " + e.getMessage()).toList();
    }

    @Test
    void aWorkloadIsSubmittedOnceHeldReleasedHeldAgainOnPreemptionAndCancelledWhenDeleted() {
        Resource<GenericKubernetesResource> widget = create(FakeKinds.widgets(), "w", 2);
        reconciler.reconcileAll();
        reconciler.reconcileAll();
        JsonNode held = tree(widget);
        assertEquals(List.of("job-1"), List.copyOf(scheduler.submitted.keySet()), "submitted once, however many passes");
        assertTrue(held.at("/spec/suspend").asBoolean(), "held suspended until planned");
        assertEquals("job-1", held.at("/metadata/annotations").path(WorkloadReconciler.JOB_ID).asText());
        assertEquals("HorizonScheduled False Pending: pending: waiting for the next plan", condition(held).path("type").asText() + " "
                + condition(held).path("status").asText() + " " + condition(held).path("reason").asText() + ": " + condition(held).path("message").asText());
        assertEquals(List.of("Submitted: held suspended until Horizon plans it (scheduler job job-1: 1 x 2.0 GPU)", "TranslationWarning: a warning about w",
                "Pending: pending: waiting for the next plan"), events("w"), "each said once");

        scheduler.plan("job-1", null, "node-a");
        reconciler.reconcileAll();
        JsonNode running = tree(widget);
        assertFalse(running.at("/spec/suspend").asBoolean(), "released once planned");
        assertEquals("node-a", running.at("/spec/pinned").asText());
        assertEquals("node-a", running.at("/metadata/annotations").path(WorkloadReconciler.PLACEMENT).asText());
        assertEquals("True", condition(running).path("status").asText());
        assertTrue(events("w").contains("Planned: planned by Horizon: released on node-a"), events("w").toString());

        scheduler.preempt("job-1");
        reconciler.reconcileAll();
        JsonNode preempted = tree(widget);
        assertTrue(preempted.at("/spec/suspend").asBoolean(), "held again on preemption");
        assertTrue(preempted.at("/metadata/annotations").path(WorkloadReconciler.PLACEMENT).isMissingNode());
        assertTrue(events("w").contains("Preempted: preempted by Horizon: suspended until it is planned again"), events("w").toString());

        widget.delete();
        reconciler.reconcileAll();
        reconciler.reconcileAll();
        assertEquals(List.of("job-1"), scheduler.cancelled, "a deleted workload's scheduler job is cancelled, once");
    }

    @Test
    void theExplanationFollowsThePlanButOnlyANewStartIsAnEvent() {
        Resource<GenericKubernetesResource> widget = create(FakeKinds.widgets(), "w", 1);
        reconciler.reconcileAll();
        long start = Instant.parse("2026-11-30T14:30:00Z").getEpochSecond();
        scheduler.explain(new Explanation("blocked", start, Map.of("nlp", 3L), start + 600, start + 3000, start - 60, false, List.of(), List.of()));
        reconciler.reconcileAll();
        scheduler.explain(new Explanation("blocked", start, Map.of("nlp", 3L), start + 900, start + 3300, start, false, List.of(), List.of()));
        reconciler.reconcileAll();
        assertEquals("pending: team nlp ranks ahead; planned start 14:30 (P50 14:45, P90 15:25)", condition(tree(widget)).path("message").asText());
        assertEquals(1, events("w").stream().filter(e -> e.startsWith("Pending: pending: team nlp")).count(), "a band that moved alone is no event");
    }

    /**
     * A workload the control plane refuses (a team it lacks) says so on itself, once: it stayed suspended with nothing
     * on it, and only the controller's log said why, at every pass.
     */
    @Test
    void aWorkloadTheControlPlaneRefusesSaysWhyOnceAndIsSubmittedWhenItNoLongerRefuses() {
        Resource<GenericKubernetesResource> widget = create(FakeKinds.widgets(), "w", 1);
        scheduler.submitFails = new SchedulerRefused("POST http://cp/api/v1/jobs", 422, "{\"error\":\"invalid job\",\"details\":[\"team: no team 'ml'\"]}");
        reconciler.reconcileAll();
        reconciler.reconcileAll();
        JsonNode refused = tree(widget);
        assertTrue(refused.at("/spec/suspend").asBoolean(), "held: nothing runs that Horizon has not planned");
        assertEquals("Refused", condition(refused).path("reason").asText());
        String said = "Refused: refused by Horizon (422): {\"error\":\"invalid job\",\"details\":[\"team: no team 'ml'\"]}; submitted again each pass";
        assertEquals(List.of(said), events("w"));

        scheduler.submitFails = null;
        reconciler.reconcileAll();
        reconciler.reconcileAll();
        assertEquals(List.of("job-1"), List.copyOf(scheduler.submitted.keySet()));
        assertEquals("Pending", condition(tree(widget)).path("reason").asText());
    }

    @Test
    void aWorkloadWithoutGpusIsLeftAloneAndAnUnplannableOneSaysWhyOnce() {
        Resource<GenericKubernetesResource> cpu = create(FakeKinds.widgets(), "cpu", 0);
        Resource<GenericKubernetesResource> bad = create(FakeKinds.widgets(), "bad", -1);
        reconciler.reconcileAll();
        reconciler.reconcileAll();
        assertTrue(scheduler.submitted.isEmpty());
        assertTrue(tree(cpu).at("/spec/suspend").isMissingNode(), "not Horizon's: untouched");
        assertTrue(events("cpu").isEmpty());
        assertEquals("NotPlannable", condition(tree(bad)).path("reason").asText());
        assertEquals(List.of("NotPlannable: spec.gpus: -1 is below 0"), events("bad"));
    }

    @Test
    void aWorkloadThatEndsGivesItsGpusBack() {
        Resource<GenericKubernetesResource> widget = create(FakeKinds.widgets(), "w", 1);
        reconciler.reconcileAll();
        scheduler.plan("job-1", null, "node-a");
        reconciler.reconcileAll();
        GenericKubernetesResource done = widget.get();
        done.setAdditionalProperty("status", Map.of("conditions", List.of(Map.of("type", "Complete", "status", "True"))));
        client.resource(done).updateStatus();
        reconciler.reconcileAll();
        reconciler.reconcileAll();
        assertEquals(Map.of("job-1", true), scheduler.finished);
        widget.delete();
        reconciler.reconcileAll();
        assertTrue(scheduler.cancelled.isEmpty(), "an ended workload is no longer tracked, so deleting it cancels nothing");
    }

    @Test
    void aComposableWorkloadIsReleasedOnlyWhenEveryJobIsPlanned() {
        Resource<GenericKubernetesResource> pair = create(FakeKinds.pairs(), "p", 1);
        reconciler.reconcileAll();
        reconciler.reconcileAll();
        JsonNode held = tree(pair);
        assertEquals("{\"p-left\":\"job-1\",\"p-right\":\"job-2\"}", held.at("/metadata/annotations").path(WorkloadReconciler.JOB_IDS).asText());
        assertEquals("pending: waiting for the next plan", held.at("/metadata/annotations").path(WorkloadReconciler.EXPLANATION).asText());
        assertTrue(held.at("/status/conditions").isMissingNode(), "a kind explained in an annotation gets no condition");

        scheduler.plan("job-1", null, "node-a");
        reconciler.reconcileAll();
        assertTrue(tree(pair).at("/spec/suspend").asBoolean(), "half a workload does not run");

        scheduler.plan("job-2", null, "node-b");
        reconciler.reconcileAll();
        JsonNode running = tree(pair);
        assertFalse(running.at("/spec/suspend").asBoolean());
        assertEquals("p-left on node-a; p-right on node-b", running.at("/spec/pinned").asText());
        assertEquals("planned by Horizon: released with p-left on node-a; p-right on node-b",
                running.at("/metadata/annotations").path(WorkloadReconciler.EXPLANATION).asText());

        scheduler.preempt("job-2");
        reconciler.reconcileAll();
        assertTrue(tree(pair).at("/spec/suspend").asBoolean(), "one job preempted holds the whole workload");
        pair.delete();
        reconciler.reconcileAll();
        assertEquals(List.of("job-1", "job-2"), scheduler.cancelled);
    }
}
