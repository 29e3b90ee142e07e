package dev.horizon.kit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.horizon.api.integration.KubeObjects;
import dev.horizon.api.scheduler.Explanation;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Clock;
import java.time.temporal.ChronoUnit;
import java.util.UUID;

/** What the reconciler writes to the API server about a workload: the object, its status, its events and its explanation. */
final class WorkloadWrites {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final KubernetesClient kube;
    private final Clock clock;
    /** The event source: the adapter's name ("horizon-kubeflow"). */
    private final String component;

    WorkloadWrites(KubernetesClient kube, Clock clock, String component) {
        this.kube = kube;
        this.clock = clock;
        this.component = component;
    }

    /** Writes the workload and returns it as the API server stored it (which drops fields its schema lacks). */
    ObjectNode write(HeldWorkload job) {
        return write(job.object());
    }

    /** Writes the object and takes its new metadata (resourceVersion); returns it as the API server stored it. */
    ObjectNode write(ObjectNode object) {
        GenericKubernetesResource updated = kube.resource(JSON.convertValue(object, GenericKubernetesResource.class)).update();
        object.set("metadata", JSON.valueToTree(updated.getMetadata()));
        return JSON.valueToTree(updated);
    }

    private void writeStatus(HeldWorkload job) {
        GenericKubernetesResource updated = kube.resource(JSON.convertValue(job.object(), GenericKubernetesResource.class)).updateStatus();
        job.object().set("metadata", JSON.valueToTree(updated.getMetadata()));
    }

    /**
     * Records why the workload is where it is, where its kind keeps it, once: nothing is written while the reason stays
     * the same, and an event is raised only when it changes by more than its start band (which moves with every plan).
     */
    void explain(HeldWorkload job, boolean planned, String reason, String message, String eventType) {
        Explanations where = job.explanations();
        String before = where.annotation() ? job.annotations().path(WorkloadReconciler.EXPLANATION).asText(null)
                : KubeObjects.condition(job.object(), WorkloadReconciler.CONDITION).map(c -> c.path("message").asText()).orElse(null);
        if (message.equals(before)) return;
        if (where.annotation()) {
            job.annotations().put(WorkloadReconciler.EXPLANATION, message);
            write(job);
        }
        if (where.condition()) {
            KubeObjects.setCondition(job.object(), WorkloadReconciler.CONDITION, planned, reason, message, now());
            writeStatus(job);
        }
        if (!Explanation.withoutBand(message).equals(Explanation.withoutBand(before))) event(job, eventType, reason, message);
    }

    void event(HeldWorkload about, String type, String reason, String message) {
        event(about.object(), type, reason, message);
    }

    void event(ObjectNode about, String type, String reason, String message) {
        String time = now();
        JsonNode metadata = about.path("metadata");
        String name = metadata.path("name").asText();
        String namespace = metadata.path("namespace").asText();
        kube.v1().events().inNamespace(namespace).resource(new EventBuilder()
                .withNewMetadata().withName(name + "." + UUID.randomUUID().toString().substring(0, 8)).withNamespace(namespace).endMetadata()
                .withNewInvolvedObject().withApiVersion(about.path("apiVersion").asText()).withKind(about.path("kind").asText())
                .withName(name).withNamespace(namespace).withUid(metadata.path("uid").asText(null)).endInvolvedObject()
                .withType(type).withReason(reason).withMessage(message).withCount(1).withFirstTimestamp(time).withLastTimestamp(time)
                .withNewSource().withComponent(component).endSource().build()).create();
    }

    private String now() {
        return clock.instant().truncatedTo(ChronoUnit.SECONDS).toString();
    }
}
