package dev.horizon.kubeflow.controller;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.horizon.api.integration.GpuMode;
import dev.horizon.api.integration.PlannedPlacement;
import dev.horizon.kit.Explanations;
import dev.horizon.kit.GenericJob;
import dev.horizon.kit.HeldWorkload;
import dev.horizon.kit.JobHeldOnlyBeforeItRuns;
import dev.horizon.kit.JobWithOutcome;
import dev.horizon.kit.Release;
import dev.horizon.kit.WorkloadReconciler;
import dev.horizon.kit.manifest.Translation;
import dev.horizon.kubeflow.batch.BatchKind;
import dev.horizon.kubeflow.batch.BatchTranslator;
import dev.horizon.kubeflow.batch.PodGroups;
import dev.horizon.kubeflow.translate.GpuAsk;
import dev.horizon.kubernetes.dra.NotReleasable;
import dev.horizon.kubernetes.release.PodRelease;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * A Volcano Job held the way a bare Pod is ({@link GatedPod}): a Volcano Job has no {@code spec.suspend}, so it is held
 * when every task template carries the scheduling gate {@value GatedPod#GATE}, and each pod Volcano makes from them
 * waits gated. It is one scheduler job, its tasks a gang of {@code minAvailable}. Released once Volcano has made every
 * GPU pod: each is pinned to its planned node and ungated, the pods taking the planned devices in task order, then by
 * name (Volcano names them JOB-TASK-INDEX). A gate cannot be added back, so a preempted running job is deleted
 * ({@link JobHeldOnlyBeforeItRuns}). A pod Volcano makes again alone (RestartPod, RestartTask) waits gated until the whole
 * job restarts; the job itself is never edited but for Horizon's annotations, since Volcano's
 * admission refuses changes to its tasks' templates.
 */
record GatedVolcanoJob(ObjectNode object, BatchTranslator translator, PodRelease release, KubernetesClient kube)
        implements GenericJob, JobWithOutcome, JobHeldOnlyBeforeItRuns {
    /** The label Volcano puts on every pod of a job, naming the job. */
    static final String JOB_NAME = "volcano.sh/job-name";
    /** Where Volcano names the task a pod was made from (an annotation; newer releases also label it). */
    static final String TASK_SPEC = "volcano.sh/task-spec";
    private static final ObjectMapper JSON = new ObjectMapper();

    /** Gated for Horizon in every task, or already submitted by it; and not a job another workload controls. */
    static boolean held(JsonNode job) {
        return BatchWorkload.heldOnItsOwn(job) && (gated(job) || job.path("metadata").path("annotations").has(WorkloadReconciler.JOB_ID));
    }

    /** Every task's pods gated: one ungated task would start its pods before the gang is planned. */
    private static boolean gated(JsonNode job) {
        JsonNode tasks = job.path("spec").path("tasks");
        if (tasks.isEmpty()) return false;
        for (JsonNode task : tasks) if (!GatedPod.gated(task.path("template"))) return false;
        return true;
    }

    @Override
    public String kind() {
        return BatchKind.VOLCANO_JOB.sourceKind();
    }

    @Override
    public Translation translate() {
        return translator.translate(object);
    }

    /**
     * Held until released (its templates keep the gate: Volcano refuses edits to them, so where it was pinned says it was
     * released); and held again when every pod it has is gated, as when Volcano restarts the whole job (RestartJob) and
     * makes its pods again from the gated templates: nothing of it runs, and it is released again onto its plan.
     */
    @Override
    public boolean isSuspended() {
        if (!gated(object)) return false;
        return !object.path("metadata").path("annotations").has(WorkloadReconciler.PLACEMENT) || pods().stream().allMatch(GatedPod::gated);
    }

    /** Held by its templates' gate from creation (the reconciler holds only gated jobs); one that ran is deleted, never held again. */
    @Override
    public void suspend() {
    }

    /** Volcano's status has no conditions of the Kubernetes shape (its schema would prune Horizon's), so the annotation says why. */
    @Override
    public Explanations explanations() {
        return Explanations.ANNOTATION;
    }

    @Override
    public Release runOn(PlannedPlacement placement) {
        if (placement.devices().stream().anyMatch(d -> d.gpuMode() == GpuMode.DRA)) {
            throw new NotReleasable("a Volcano Job's pods cannot change their GPU limits once made, and a claim replaces them; Volcano Jobs are released"
                    + " in device-plugin mode only, so plan it on a device-plugin pool (gpuTypes)");
        }
        List<ObjectNode> pods = pods();
        List<String> released = new ArrayList<>();
        PlannedSlices slices = new PlannedSlices(placement.devices());
        for (PodGroups.Group task : PodGroups.of(BatchKind.VOLCANO_JOB, object).groups()) {
            GpuAsk ask = GpuAsk.ofPod(task.template().path("spec"), "");
            if (!ask.any() || task.pods() == 0) continue;
            List<ObjectNode> mine = pods.stream().filter(p -> task.name().equals(taskOf(p))).toList();
            if (mine.size() < task.pods()) {
                throw new NotReleasable("Volcano has made " + mine.size() + " of task " + task.name() + "'s " + task.pods() + " pods; they are released"
                        + " once all exist (Volcano makes them when its scheduler enqueues the job's PodGroup)");
            }
            for (ObjectNode pod : mine) {
                String name = pod.path("metadata").path("name").asText();
                released.add(release.release(HeldWorkload.owner(object, kind()), name, pod, slices.next(1, ask), placement.nodes(), placement.migProfile()));
            }
        }
        // ungated only once every GPU pod is pinned, so a refusal above leaves the whole gang held; a pod ungated on an
        // earlier, interrupted pass is already the scheduler's and may not change its affinity again
        for (ObjectNode pod : pods) {
            if (!GatedPod.gated(pod)) continue;
            GatedPod.ungate(pod);
            kube.pods().inNamespace(pod.path("metadata").path("namespace").asText()).resource(JSON.convertValue(pod, Pod.class)).update();
        }
        return new Release(String.join(",", placement.nodes()), String.join("; ", released));
    }

    /** The job's pods, by the label Volcano gives them, in name order (JOB-TASK-INDEX). */
    private List<ObjectNode> pods() {
        String namespace = object.path("metadata").path("namespace").asText();
        return kube.pods().inNamespace(namespace).withLabel(JOB_NAME, object.path("metadata").path("name").asText()).list().getItems().stream()
                .map(p -> (ObjectNode) JSON.valueToTree(p)).sorted(Comparator.comparing(p -> p.path("metadata").path("name").asText())).toList();
    }

    private static String taskOf(JsonNode pod) {
        JsonNode metadata = pod.path("metadata");
        return metadata.path("annotations").path(TASK_SPEC).asText(metadata.path("labels").path(TASK_SPEC).asText(""));
    }

    /** Volcano's end phases: Completed; Failed, Aborted (by a policy or the user) and Terminated (by an outside event). */
    @Override
    public Optional<Boolean> succeeded() {
        return switch (object.path("status").path("state").path("phase").asText()) {
            case "Completed" -> Optional.of(true);
            case "Failed", "Aborted", "Terminated" -> Optional.of(false);
            default -> Optional.empty();
        };
    }
}
