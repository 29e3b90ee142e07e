package dev.horizon.kubeflow.controller;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.horizon.api.JobSpec;
import dev.horizon.api.scheduler.Explanation;
import dev.horizon.api.scheduler.SchedulerClient;
import dev.horizon.api.scheduler.SchedulerJob;
import dev.horizon.kit.manifest.ManifestException;
import dev.horizon.kit.manifest.Manifests;
import dev.horizon.kit.manifest.Translation;
import dev.horizon.kubeflow.batch.BatchKind;
import dev.horizon.kubeflow.batch.BatchTranslator;
import dev.horizon.kubeflow.translate.KubeflowKind;
import dev.horizon.kubeflow.translate.NoGpuRequestedException;
import dev.horizon.kubeflow.translate.TranslationOptions;
import dev.horizon.kubeflow.translate.Translator;
import dev.horizon.kubernetes.KubernetesRefusal;
import dev.horizon.kubernetes.dra.NotReleasable;
import dev.horizon.kubernetes.release.PodRelease;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import java.time.Clock;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Holds every Kubeflow job, batch Job and JobSet that asks for GPUs suspended until Horizon plans it, then pins it to
 * the planned nodes and lets it run (both through its {@link HeldWorkload}, one per kind, the one place it is held and
 * released; every kind goes through this one pass, in the spirit of Kueue's GenericJob); suspends it again when Horizon preempts it; cancels its scheduler
 * job when it is deleted and reports its outcome when it ends. Each pass ({@link #reconcileAll})
 * compares the cluster with the control plane, so a missed event is caught on the next pass.
 *
 * <p>Jobs are suspended once the controller sees them: without an admission webhook (not built),
 * the training operator may start pods in the moments before.
 */
public final class KubeflowController {
    /** The scheduler job a Kubernetes job was submitted as; survives controller restarts. */
    public static final String JOB_ID = "horizon.dev/job-id";
    /** The nodes a released job was pinned to; its presence on a pending job means Horizon preempted it. */
    public static final String PLACEMENT = "horizon.dev/placement";
    public static final String CONDITION = "HorizonScheduled";
    static final String COMPONENT = "horizon-kubeflow";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final System.Logger LOG = System.getLogger(KubeflowController.class.getName());

    private final KubernetesClient kube;
    private final SchedulerClient scheduler;
    private final Clock clock;
    /** The kinds held: the Kubeflow jobs, then the batch kinds that have spec.suspend. */
    private final List<WorkloadKind> kinds;
    /** "Kind/namespace/name" to scheduler job id, for every job submitted and not yet ended. */
    private final Map<String, String> tracked = new ConcurrentHashMap<>();

    public KubeflowController(KubernetesClient kube, SchedulerClient scheduler, TranslationOptions options, Clock clock) {
        this.kube = kube;
        this.scheduler = scheduler;
        this.clock = clock;
        PodRelease podRelease = new PodRelease(kube);
        Translator translator = new Translator(options, (kind, namespace, name) -> {
            var resources = kube.genericKubernetesResources(context(kind));
            GenericKubernetesResource runtime = kind.namespaced() ? resources.inNamespace(namespace).withName(name).get() : resources.withName(name).get();
            return Optional.ofNullable(runtime).map(r -> (JsonNode) JSON.valueToTree(r));
        });
        BatchTranslator batch = new BatchTranslator(options);
        List<WorkloadKind> all = new ArrayList<>();
        for (KubeflowKind kind : KubeflowKind.jobs()) {
            all.add(new WorkloadKind(kind.kind(), context(kind), o -> true, o -> new KubeflowJob(kind, o, translator, podRelease)));
        }
        for (BatchKind kind : BatchKind.values()) {
            if (!kind.suspendable()) continue;
            all.add(new WorkloadKind(kind.sourceKind(), context(kind), BatchWorkload::heldOnItsOwn, o -> new BatchWorkload(kind, o, batch, podRelease)));
        }
        this.kinds = List.copyOf(all);
    }

    public static ResourceDefinitionContext context(BatchKind kind) {
        return WorkloadKind.context(kind.group(), kind.version(), kind.kind(), kind.plural());
    }

    public static ResourceDefinitionContext context(KubeflowKind kind) {
        return new ResourceDefinitionContext.Builder().withGroup(kind.group()).withVersion(kind.version()).withKind(kind.kind())
                .withPlural(kind.plural()).withNamespaced(kind.namespaced()).build();
    }

    /** One pass over every workload of the kinds held in the cluster. */
    public void reconcileAll() {
        Set<String> seen = new HashSet<>();
        for (WorkloadKind kind : kinds) {
            for (GenericKubernetesResource resource : list(kind)) {
                seen.add(key(kind, resource));
                try {
                    reconcile(kind, resource);
                } catch (RuntimeException e) {
                    LOG.log(System.Logger.Level.WARNING, "reconciling " + key(kind, resource) + " failed; the next pass retries: " + e.getMessage());
                }
            }
        }
        tracked.entrySet().removeIf(entry -> {
            if (seen.contains(entry.getKey())) return false;
            scheduler.cancel(entry.getValue());
            LOG.log(System.Logger.Level.INFO, entry.getKey() + " was deleted; cancelled scheduler job " + entry.getValue());
            return true;
        });
    }

    private Iterable<GenericKubernetesResource> list(WorkloadKind kind) {
        try {
            return kube.genericKubernetesResources(kind.context()).inAnyNamespace().list().getItems();
        } catch (KubernetesClientException e) {
            if (e.getCode() == 404) return Set.of(); // this kind's CRD is not installed
            if (e.getCode() == 403) {
                // a role written before this kind was held: the other kinds' pass goes on
                LOG.log(System.Logger.Level.WARNING, "not allowed to list " + kind.name() + " (" + kind.context().getGroup() + "); grant the role"
                        + " list, update and status on it for Horizon to plan those workloads");
                return Set.of();
            }
            throw e;
        }
    }

    private void reconcile(WorkloadKind kind, GenericKubernetesResource resource) {
        ObjectNode object = JSON.valueToTree(resource);
        if (!kind.held().test(object)) return; // planned through the workload that controls it
        HeldWorkload job = kind.wrap().apply(object);
        String key = key(kind, resource);
        String id = Manifests.annotation(job.object(), JOB_ID);
        Optional<Boolean> outcome = job.succeeded();
        if (outcome.isPresent()) {
            if (id != null && tracked.remove(key) != null) scheduler.finish(id, outcome.get());
            return;
        }
        if (id == null) {
            submit(job, resource, key);
            return;
        }
        tracked.put(key, id);
        SchedulerJob planned = scheduler.job(id);
        switch (planned.state()) {
            case RUNNING -> {
                if (job.isSuspended() && planned.placement() != null) release(job, resource, planned);
            }
            case PENDING -> hold(job, resource, id);
            default -> tracked.remove(key);
        }
    }

    private void submit(HeldWorkload job, GenericKubernetesResource resource, String key) {
        Translation translation;
        try {
            translation = job.translate();
        } catch (NoGpuRequestedException e) {
            return; // not Horizon's: the default scheduler runs it as it is
        } catch (ManifestException e) {
            if (!e.getMessage().equals(job.condition(CONDITION).map(c -> c.path("message").asText()).orElse(null))) {
                job.setCondition(CONDITION, false, "NotPlannable", e.getMessage(), now());
                writeStatus(job);
                event(resource, "Warning", "NotPlannable", e.getMessage());
            }
            return;
        }
        // held before submitting, so a failed submission leaves no pod running; a scheduler job whose id
        // cannot be recorded is cancelled at once rather than left to be planned twice
        JobSpec spec = translation.jobs().get(0);
        job.suspend();
        write(job);
        String id = scheduler.submit(spec);
        annotations(job).put(JOB_ID, id);
        try {
            write(job);
        } catch (RuntimeException e) {
            scheduler.cancel(id);
            throw e;
        }
        tracked.put(key, id);
        event(resource, "Normal", "Submitted", "held suspended until Horizon plans it (scheduler job " + id + ": " + spec.replicaCount()
                + " x " + spec.perReplica().gpuFraction() + " GPU)");
        translation.warnings().forEach(w -> event(resource, "Warning", "TranslationWarning", w));
    }

    /**
     * Releases the job onto its placement. One the cluster cannot take yet (a device the DRA driver does not publish, an
     * object the API server refuses) stays suspended with the reason in its condition, said once, and is tried again on
     * the next pass.
     */
    private void release(HeldWorkload job, GenericKubernetesResource resource, SchedulerJob planned) {
        try {
            job.runOn(planned.placement());
        } catch (NotReleasable | KubernetesRefusal e) {
            String message = "planned by Horizon but not released: " + e.getMessage();
            if (!message.equals(job.condition(CONDITION).map(c -> c.path("message").asText()).orElse(null))) {
                setCondition(job, false, "NotReleased", message);
                event(resource, "Warning", "NotReleased", message);
            }
            return;
        }
        String nodes = String.join(",", planned.placement().nodes());
        annotations(job).put(PLACEMENT, nodes);
        write(job);
        String message = "planned by Horizon: released " + job.released();
        setCondition(job, true, "Planned", message);
        event(resource, "Normal", "Planned", message);
    }

    private void hold(HeldWorkload job, GenericKubernetesResource resource, String id) {
        if (!job.isSuspended()) {
            boolean preempted = annotations(job).has(PLACEMENT);
            job.suspend();
            annotations(job).remove(PLACEMENT);
            write(job);
            event(resource, "Warning", preempted ? "Preempted" : "Suspended", preempted
                    ? "preempted by Horizon: suspended until it is planned again"
                    : "suspended: Horizon has not planned it yet");
        }
        String sentence = scheduler.explanation(id, false).sentence(clock);
        String before = job.condition(CONDITION).map(c -> c.path("message").asText()).orElse(null);
        if (!sentence.equals(before)) {
            setCondition(job, false, "Pending", sentence);
            if (!Explanation.withoutBand(sentence).equals(Explanation.withoutBand(before))) event(resource, "Normal", "Pending", sentence);
        }
    }

    private void setCondition(HeldWorkload job, boolean status, String reason, String message) {
        job.setCondition(CONDITION, status, reason, message, now());
        writeStatus(job);
    }

    private void write(HeldWorkload job) {
        GenericKubernetesResource updated = kube.resource(JSON.convertValue(job.object(), GenericKubernetesResource.class)).update();
        job.object().set("metadata", JSON.valueToTree(updated.getMetadata()));
    }

    private void writeStatus(HeldWorkload job) {
        GenericKubernetesResource updated = kube.resource(JSON.convertValue(job.object(), GenericKubernetesResource.class)).updateStatus();
        job.object().set("metadata", JSON.valueToTree(updated.getMetadata()));
    }

    private void event(GenericKubernetesResource about, String type, String reason, String message) {
        String time = now();
        kube.v1().events().inNamespace(about.getMetadata().getNamespace()).resource(new EventBuilder()
                .withNewMetadata().withName(about.getMetadata().getName() + "." + UUID.randomUUID().toString().substring(0, 8))
                .withNamespace(about.getMetadata().getNamespace()).endMetadata()
                .withNewInvolvedObject().withApiVersion(about.getApiVersion()).withKind(about.getKind()).withName(about.getMetadata().getName())
                .withNamespace(about.getMetadata().getNamespace()).withUid(about.getMetadata().getUid()).endInvolvedObject()
                .withType(type).withReason(reason).withMessage(message).withCount(1).withFirstTimestamp(time).withLastTimestamp(time)
                .withNewSource().withComponent(COMPONENT).endSource().build()).create();
    }

    private static ObjectNode annotations(HeldWorkload job) {
        ObjectNode metadata = (ObjectNode) job.object().get("metadata");
        return metadata.get("annotations") instanceof ObjectNode a ? a : metadata.putObject("annotations");
    }

    private String now() {
        return clock.instant().truncatedTo(ChronoUnit.SECONDS).toString();
    }

    private static String key(WorkloadKind kind, GenericKubernetesResource r) {
        return kind.name() + "/" + r.getMetadata().getNamespace() + "/" + r.getMetadata().getName();
    }
}
