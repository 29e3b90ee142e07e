package dev.horizon.ray.controller;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.horizon.api.JobSpec;
import dev.horizon.api.integration.KubeObjects;
import dev.horizon.api.integration.PlannedPlacement;
import dev.horizon.api.scheduler.Explanation;
import dev.horizon.api.scheduler.SchedulerClient;
import dev.horizon.api.scheduler.SchedulerJob;
import dev.horizon.kit.manifest.ManifestException;
import dev.horizon.kit.manifest.Translation;
import dev.horizon.kubernetes.KubernetesRefusal;
import dev.horizon.kubernetes.dra.DeviceClaims;
import dev.horizon.kubernetes.dra.NotReleasable;
import dev.horizon.kubernetes.release.PodRelease;
import dev.horizon.ray.translate.KubeRayTranslator;
import dev.horizon.ray.translate.NoGpuRequestedException;
import dev.horizon.ray.translate.RayKind;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import java.time.Clock;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Holds every RayJob, RayCluster and RayService that asks for GPUs suspended ({@code spec.suspend}) until Horizon has planned all
 * of its GPU groups, then pins each group's pod template to the nodes planned for it and unsuspends it; suspends it
 * again when Horizon preempts any group (KubeRay tears the whole cluster down, so a partial cluster never runs);
 * cancels its scheduler jobs when it is deleted and reports a RayJob's outcome when it ends. Each pass
 * ({@link #reconcileAll}) compares the cluster with the control plane, so a missed event is caught on the next pass.
 *
 * <p>The explanation goes to an event, to the {@link #EXPLANATION} annotation (RayJob's status schema has no conditions,
 * so the API server would prune one) and, on a RayCluster or RayService, to the {@link #CONDITION} status condition.
 *
 * <p>A RayService holds with its top-level {@code spec.suspend}, which newer KubeRay RayService CRDs have
 * (ray-project/kuberay pull request 4841; KubeRay deletes the RayService's clusters while it is suspended). Where the
 * installed CRD has no such field the API server drops it on write; the RayService is then left to KubeRay unheld,
 * and its explanation says why.
 */
public final class RayController {
    /** Scheduler job id by job name ("NAME-head", "NAME-GROUP"), as JSON; survives controller restarts. */
    public static final String JOB_IDS = "horizon.dev/job-ids";
    /** The nodes a released workload was pinned to; its presence on a pending one means Horizon preempted it. */
    public static final String PLACEMENT = "horizon.dev/placement";
    public static final String EXPLANATION = "horizon.dev/explanation";
    public static final String CONDITION = "HorizonScheduled";
    static final String COMPONENT = "horizon-ray";
    private static final List<RayKind> HELD = List.of(RayKind.RAY_JOB, RayKind.RAY_CLUSTER, RayKind.RAY_SERVICE);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final System.Logger LOG = System.getLogger(RayController.class.getName());

    private final KubernetesClient kube;
    private final SchedulerClient scheduler;
    private final KubeRayTranslator translator;
    private final Clock clock;
    private final PodRelease podRelease;
    /** "Kind/namespace/name" to its scheduler job ids, for every workload submitted and not yet ended. */
    private final Map<String, List<String>> tracked = new ConcurrentHashMap<>();

    public RayController(KubernetesClient kube, SchedulerClient scheduler, KubeRayTranslator translator, Clock clock) {
        this.kube = kube;
        this.scheduler = scheduler;
        this.translator = translator;
        this.clock = clock;
        this.podRelease = new PodRelease(kube);
    }

    public static ResourceDefinitionContext context(RayKind kind) {
        return new ResourceDefinitionContext.Builder().withGroup(RayKind.GROUP).withVersion(RayKind.VERSION).withKind(kind.kind())
                .withPlural(kind.plural()).withNamespaced(true).build();
    }

    /** One pass over every RayJob, RayCluster and RayService in the cluster. */
    public void reconcileAll() {
        Set<String> seen = new HashSet<>();
        for (RayKind kind : HELD) {
            for (GenericKubernetesResource resource : list(kind)) {
                String key = key(kind, resource);
                seen.add(key);
                try {
                    reconcile(new RayWorkload(kind, JSON.valueToTree(resource)), key);
                } catch (RuntimeException e) {
                    LOG.log(System.Logger.Level.WARNING, "reconciling " + key + " failed; the next pass retries: " + e.getMessage());
                }
            }
        }
        tracked.entrySet().removeIf(entry -> {
            if (seen.contains(entry.getKey())) return false;
            entry.getValue().forEach(scheduler::cancel);
            LOG.log(System.Logger.Level.INFO, entry.getKey() + " was deleted; cancelled scheduler jobs " + entry.getValue());
            return true;
        });
    }

    private List<GenericKubernetesResource> list(RayKind kind) {
        try {
            return kube.genericKubernetesResources(context(kind)).inAnyNamespace().list().getItems();
        } catch (KubernetesClientException e) {
            if (e.getCode() == 404) return List.of(); // KubeRay's CRD for this kind is not installed
            throw e;
        }
    }

    private void reconcile(RayWorkload workload, String key) {
        Map<String, String> ids = jobIds(workload);
        Optional<Boolean> outcome = workload.succeeded();
        if (outcome.isPresent()) {
            if (tracked.remove(key) != null) ids.values().forEach(id -> scheduler.finish(id, outcome.get()));
            return;
        }
        if (ids.isEmpty()) {
            submit(workload, key);
            return;
        }
        tracked.put(key, List.copyOf(ids.values()));
        Map<String, SchedulerJob> jobs = new LinkedHashMap<>();
        ids.forEach((name, id) -> jobs.put(name, scheduler.job(id)));
        if (jobs.values().stream().allMatch(j -> j.state().finished())) {
            tracked.remove(key);
        } else if (jobs.values().stream().allMatch(j -> j.state() == SchedulerJob.State.RUNNING && j.placement() != null)) {
            if (workload.isSuspended()) release(workload, jobs);
        } else {
            hold(workload, jobs);
        }
    }

    private void submit(RayWorkload workload, String key) {
        Translation translation;
        try {
            translation = translator.translate(workload.object());
        } catch (NoGpuRequestedException e) {
            return; // not Horizon's: KubeRay runs it as it is
        } catch (ManifestException e) {
            explain(workload, false, "NotPlannable", e.getMessage(), "Warning");
            return;
        }
        // held before submitting, so a failed submission leaves no pod running; scheduler jobs whose ids cannot be
        // recorded are cancelled at once rather than left to be planned twice
        workload.setSuspended(true);
        if (!write(workload).isSuspended()) {
            explain(workload, false, "NotHeld", "this cluster's " + workload.kind().kind() + " CRD has no spec.suspend (an older KubeRay),"
                    + " so Horizon cannot hold it until planned; it runs as KubeRay starts it, unplanned", "Warning");
            return;
        }
        Map<String, String> ids = new LinkedHashMap<>();
        try {
            for (JobSpec spec : translation.jobs()) ids.put(spec.name(), scheduler.submit(spec));
            workload.annotations().put(JOB_IDS, JSON.writeValueAsString(ids));
            write(workload);
        } catch (RuntimeException | JsonProcessingException e) {
            ids.values().forEach(scheduler::cancel);
            throw new IllegalStateException("submitting " + key + " failed: " + e.getMessage(), e);
        }
        tracked.put(key, List.copyOf(ids.values()));
        List<String> parts = new ArrayList<>();
        for (JobSpec spec : translation.jobs()) parts.add(spec.name() + ": " + spec.replicaCount() + " x " + spec.perReplica().gpuFraction() + " GPU");
        event(workload, "Normal", "Submitted", "held suspended until Horizon plans it (scheduler jobs " + String.join(", ", ids.values())
                + "; " + String.join(", ", parts) + ")");
        translation.warnings().forEach(w -> event(workload, "Warning", "TranslationWarning", w));
    }

    /**
     * Releases every group onto its scheduler job's placement (claims on its planned devices in dra mode). A group the
     * cluster cannot take yet keeps the workload suspended with the reason in its condition, tried again next pass.
     */
    private void release(RayWorkload workload, Map<String, SchedulerJob> jobs) {
        Map<String, ObjectNode> templates = workload.templatesByJobName();
        List<String> parts = new ArrayList<>();
        ObjectMeta metadata = JSON.convertValue(workload.object().get("metadata"), ObjectMeta.class);
        DeviceClaims.Owner owner = new DeviceClaims.Owner(RayKind.API_VERSION, workload.kind().kind(), metadata.getNamespace(), metadata.getName(),
                metadata.getUid());
        try {
            jobs.forEach((name, job) -> {
                ObjectNode template = templates.get(name);
                if (template == null) throw new IllegalStateException("scheduler job " + name + " names no group of " + workload.name());
                PlannedPlacement p = job.placement();
                parts.add(podRelease.release(owner, name.substring(workload.name().length() + 1), template, p.devices(), p.nodes(), p.migProfile()));
            });
        } catch (NotReleasable | KubernetesRefusal e) {
            explain(workload, false, "NotReleased", "planned by Horizon but not released: " + e.getMessage(), "Warning");
            return;
        }
        workload.setSuspended(false);
        workload.annotations().put(PLACEMENT, String.join("; ", parts));
        write(workload);
        explain(workload, true, "Planned", "planned by Horizon: released with " + String.join("; ", parts), "Normal");
    }

    private void hold(RayWorkload workload, Map<String, SchedulerJob> jobs) {
        if (!workload.isSuspended()) {
            boolean preempted = workload.annotations().has(PLACEMENT);
            workload.setSuspended(true);
            workload.annotations().remove(PLACEMENT);
            write(workload);
            event(workload, "Warning", preempted ? "Preempted" : "Suspended", preempted
                    ? "preempted by Horizon: suspended until it is planned again"
                    : "suspended: Horizon has not planned it yet");
        }
        // the workload waits for its last group; the first one still pending says why
        String waiting = jobs.values().stream().filter(j -> j.state() == SchedulerJob.State.PENDING).map(SchedulerJob::id).findFirst()
                .orElse(jobs.values().iterator().next().id());
        explain(workload, false, "Pending", scheduler.explanation(waiting, false).sentence(clock), "Normal");
    }

    /** Records why the workload is where it is, with one event each time the reason changes (more than its start band). */
    private void explain(RayWorkload workload, boolean planned, String reason, String message, String eventType) {
        String before = workload.annotations().path(EXPLANATION).asText(null);
        if (message.equals(before)) return;
        workload.annotations().put(EXPLANATION, message);
        write(workload);
        if (workload.kind() != RayKind.RAY_JOB) {
            KubeObjects.setCondition(workload.object(), CONDITION, planned, reason, message, now());
            GenericKubernetesResource updated = kube.resource(JSON.convertValue(workload.object(), GenericKubernetesResource.class)).updateStatus();
            workload.object().set("metadata", JSON.valueToTree(updated.getMetadata()));
        }
        if (!Explanation.withoutBand(message).equals(Explanation.withoutBand(before))) event(workload, eventType, reason, message);
    }

    private static Map<String, String> jobIds(RayWorkload workload) {
        String text = workload.annotations().path(JOB_IDS).asText("");
        if (text.isEmpty()) return Map.of();
        try {
            return JSON.readValue(text, new TypeReference<LinkedHashMap<String, String>>() { });
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(JOB_IDS + " is not the JSON object of job ids Horizon wrote: " + e.getOriginalMessage(), e);
        }
    }

    /** Writes the workload and returns it as the API server stored it (which drops fields its schema lacks). */
    private RayWorkload write(RayWorkload workload) {
        GenericKubernetesResource updated = kube.resource(JSON.convertValue(workload.object(), GenericKubernetesResource.class)).update();
        workload.object().set("metadata", JSON.valueToTree(updated.getMetadata()));
        return new RayWorkload(workload.kind(), JSON.valueToTree(updated));
    }

    private void event(RayWorkload about, String type, String reason, String message) {
        String time = now();
        ObjectMeta metadata = JSON.convertValue(about.object().get("metadata"), ObjectMeta.class);
        kube.v1().events().inNamespace(metadata.getNamespace()).resource(new EventBuilder()
                .withNewMetadata().withName(metadata.getName() + "." + UUID.randomUUID().toString().substring(0, 8))
                .withNamespace(metadata.getNamespace()).endMetadata()
                .withNewInvolvedObject().withApiVersion(RayKind.API_VERSION).withKind(about.kind().kind()).withName(metadata.getName())
                .withNamespace(metadata.getNamespace()).withUid(metadata.getUid()).endInvolvedObject()
                .withType(type).withReason(reason).withMessage(message).withCount(1).withFirstTimestamp(time).withLastTimestamp(time)
                .withNewSource().withComponent(COMPONENT).endSource().build()).create();
    }

    private String now() {
        return clock.instant().truncatedTo(ChronoUnit.SECONDS).toString();
    }

    private static String key(RayKind kind, GenericKubernetesResource r) {
        return kind.kind() + "/" + r.getMetadata().getNamespace() + "/" + r.getMetadata().getName();
    }
}
