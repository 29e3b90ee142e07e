package dev.horizon.kit;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.horizon.api.JobSpec;
import dev.horizon.api.integration.PlannedPlacement;
import dev.horizon.api.scheduler.SchedulerClient;
import dev.horizon.api.scheduler.SchedulerJob;
import dev.horizon.api.scheduler.SchedulerRefused;
import dev.horizon.kit.manifest.ManifestException;
import dev.horizon.kit.manifest.NoGpuRequested;
import dev.horizon.kit.manifest.Translation;
import dev.horizon.kubernetes.KubernetesRefusal;
import dev.horizon.kubernetes.dra.NotReleasable;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Clock;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The one loop every adapter's kinds go through. It holds every workload that asks for GPUs suspended until Horizon has
 * planned all of its scheduler jobs, then releases it onto the plan; suspends it again when Horizon preempts any of
 * them; cancels its scheduler jobs when it is deleted and reports its outcome when it ends ({@link JobWithOutcome}); and
 * says why it waits, once per change. Each pass ({@link #reconcileAll}) compares the cluster with the control plane, so
 * a missed event is caught on the next pass. Workloads are suspended once the reconciler sees them: without an admission
 * webhook (not built), their operator may start pods in the moments before.
 */
public final class WorkloadReconciler {
    /** A {@link GenericJob}'s scheduler job; survives restarts. */
    public static final String JOB_ID = "horizon.dev/job-id";
    /** A {@link ComposableJob}'s scheduler job ids by job name ("NAME-head", "NAME-GROUP"), as JSON; survives restarts. */
    public static final String JOB_IDS = "horizon.dev/job-ids";
    /** Where a released workload was pinned; its presence on a pending one means Horizon preempted it. */
    public static final String PLACEMENT = "horizon.dev/placement";
    /** The explanation, on kinds that keep it in an annotation ({@link Explanations}). */
    public static final String EXPLANATION = "horizon.dev/explanation";
    /** The status condition that carries the explanation, on kinds that keep it there. */
    public static final String CONDITION = "HorizonScheduled";
    private static final String NORMAL = "Normal";
    private static final String WARNING = "Warning";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final System.Logger LOG = System.getLogger(WorkloadReconciler.class.getName());

    private final KubernetesClient kube;
    private final SchedulerClient scheduler;
    private final Clock clock;
    private final WorkloadWrites writes;
    private final List<WorkloadKind> kinds;
    /** "Kind/namespace/name" to its scheduler job ids, for every workload submitted and not yet ended. */
    private final Map<String, List<String>> tracked = new ConcurrentHashMap<>();

    /** component: the adapter's name as its events' source ("horizon-kubeflow"). */
    public WorkloadReconciler(KubernetesClient kube, SchedulerClient scheduler, Clock clock, String component, List<WorkloadKind> kinds) {
        this.kube = kube;
        this.scheduler = scheduler;
        this.clock = clock;
        this.writes = new WorkloadWrites(kube, clock, component);
        this.kinds = List.copyOf(kinds);
    }

    /** One pass over every workload of the kinds held in the cluster; a workload deleted since the last pass is cancelled. */
    public void reconcileAll() {
        Set<String> seen = new HashSet<>();
        for (WorkloadKind kind : kinds) {
            Optional<List<GenericKubernetesResource>> listed = list(kind);
            if (listed.isEmpty()) {
                // not allowed to list it: its workloads are unseen, not deleted
                tracked.keySet().stream().filter(k -> k.startsWith(kind.name() + "/")).forEach(seen::add);
                continue;
            }
            for (GenericKubernetesResource resource : listed.get()) {
                String key = kind.name() + "/" + resource.getMetadata().getNamespace() + "/" + resource.getMetadata().getName();
                seen.add(key);
                try {
                    reconcile(kind, JSON.valueToTree(resource), key);
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

    /** The kind's objects; none where its CRD is not installed; empty where the role may not list it. */
    private Optional<List<GenericKubernetesResource>> list(WorkloadKind kind) {
        try {
            return Optional.of(kube.genericKubernetesResources(kind.context()).inAnyNamespace().list().getItems());
        } catch (KubernetesClientException e) {
            if (e.getCode() == 404) return Optional.of(List.of()); // this kind's CRD is not installed
            if (e.getCode() == 403) {
                // a role written before this kind was held: the other kinds' pass goes on
                LOG.log(System.Logger.Level.WARNING, "not allowed to list " + kind.name() + " (" + kind.context().getGroup() + "); grant the role"
                        + " list, update and status on it for Horizon to plan those workloads");
                return Optional.empty();
            }
            throw e;
        }
    }

    private void reconcile(WorkloadKind kind, ObjectNode object, String key) {
        if (!kind.held().test(object)) return; // planned through the workload that controls it
        HeldWorkload job = kind.wrap().apply(object);
        Map<String, String> ids = JobIds.of(job).read(job);
        Optional<Boolean> outcome = job instanceof JobWithOutcome o ? o.succeeded() : Optional.empty();
        if (outcome.isPresent()) {
            if (tracked.remove(key) != null) ids.values().forEach(id -> scheduler.finish(id, outcome.get()));
            return;
        }
        if (ids.isEmpty()) {
            submit(job, key);
            return;
        }
        tracked.put(key, List.copyOf(ids.values()));
        Map<String, SchedulerJob> jobs = new LinkedHashMap<>();
        ids.forEach((name, id) -> jobs.put(name, scheduler.job(id)));
        if (jobs.values().stream().allMatch(j -> j.state().finished())) {
            tracked.remove(key);
        } else if (jobs.values().stream().allMatch(j -> j.state() == SchedulerJob.State.RUNNING)) {
            if (job.isSuspended() && jobs.values().stream().allMatch(j -> j.placement() != null)) release(job, jobs);
        } else if (!job.isSuspended() && job instanceof JobHeldOnlyBeforeItRuns) {
            evict(job, jobs, key);
        } else {
            hold(job, jobs);
        }
    }

    /** A preempted workload that cannot be held again is deleted, as Kubernetes evicts a pod, and its scheduler jobs cancelled. */
    private void evict(HeldWorkload job, Map<String, SchedulerJob> jobs, String key) {
        writes.event(job, WARNING, "Preempted", "preempted by Horizon: deleted, since a " + job.kind() + " cannot be held again once it runs");
        kube.resource(JSON.convertValue(job.object(), GenericKubernetesResource.class)).delete();
        tracked.remove(key);
        jobs.values().forEach(j -> scheduler.cancel(j.id()));
    }

    private void submit(HeldWorkload job, String key) {
        Translation translation;
        try {
            translation = job.translate();
        } catch (ManifestException e) {
            if (!(e instanceof NoGpuRequested)) writes.explain(job, false, "NotPlannable", e.getMessage(), WARNING);
            return; // asking for no GPU, it is not Horizon's: its own scheduler runs it as it is
        }
        // held before submitting, so a failed submission leaves no pod running; scheduler jobs whose ids cannot be
        // recorded are cancelled at once rather than left to be planned twice
        job.suspend();
        writes.write(job);
        JobIds store = JobIds.of(job);
        List<JobSpec> specs = store.toSubmit(translation);
        Map<String, String> ids = new LinkedHashMap<>();
        try {
            for (JobSpec spec : specs) ids.put(spec.name(), scheduler.submit(spec));
            store.write(job, ids);
            writes.write(job);
        } catch (SchedulerRefused e) {
            // the control plane answered no (a team it lacks, a job no node fits): said on the workload, where its
            // author looks, rather than only in this controller's log at every pass
            ids.values().forEach(scheduler::cancel);
            writes.explain(job, false, "Refused", "refused by Horizon (" + e.status() + "): " + e.body() + "; submitted again each pass", WARNING);
            return;
        } catch (RuntimeException e) {
            ids.values().forEach(scheduler::cancel);
            throw new IllegalStateException("submitting " + key + " failed: " + e.getMessage(), e);
        }
        tracked.put(key, List.copyOf(ids.values()));
        writes.event(job, NORMAL, "Submitted", "held suspended until Horizon plans it (" + store.submitted(ids, specs) + ")");
        translation.warnings().forEach(w -> writes.event(job, WARNING, "TranslationWarning", w));
    }

    /**
     * Releases the workload onto its placements. One the cluster cannot take yet (a device the DRA driver does not
     * publish, an object the API server refuses) stays suspended with the reason said once, and is tried again next pass.
     */
    private void release(HeldWorkload job, Map<String, SchedulerJob> jobs) {
        Release release;
        try {
            release = runOn(job, jobs);
        } catch (NotReleasable | KubernetesRefusal e) {
            writes.explain(job, false, "NotReleased", "planned by Horizon but not released: " + e.getMessage(), WARNING);
            return;
        }
        job.annotations().put(PLACEMENT, release.pinnedTo());
        writes.write(job);
        writes.explain(job, true, "Planned", "planned by Horizon: released " + release.summary(), NORMAL);
    }

    private static Release runOn(HeldWorkload job, Map<String, SchedulerJob> jobs) {
        if (job instanceof ComposableJob composable) {
            Map<String, PlannedPlacement> placements = new LinkedHashMap<>();
            jobs.forEach((name, planned) -> placements.put(name, planned.placement()));
            return composable.runOn(placements);
        }
        return ((GenericJob) job).runOn(jobs.values().iterator().next().placement()); // the only other kind of HeldWorkload
    }

    private void hold(HeldWorkload job, Map<String, SchedulerJob> jobs) {
        if (!job.isSuspended()) {
            boolean preempted = job.annotations().has(PLACEMENT);
            job.suspend();
            job.annotations().remove(PLACEMENT);
            writes.write(job);
            writes.event(job, WARNING, preempted ? "Preempted" : "Suspended", preempted
                    ? "preempted by Horizon: suspended until it is planned again"
                    : "suspended: Horizon has not planned it yet");
        }
        // a workload of several jobs waits for its last; the first one still pending says why
        String waiting = jobs.values().stream().filter(j -> j.state() == SchedulerJob.State.PENDING).map(SchedulerJob::id).findFirst()
                .orElse(jobs.values().iterator().next().id());
        writes.explain(job, false, "Pending", scheduler.explanation(waiting, false).sentence(clock), NORMAL);
    }
}
