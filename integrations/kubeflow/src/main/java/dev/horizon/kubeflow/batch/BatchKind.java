package dev.horizon.kubeflow.batch;

import com.fasterxml.jackson.databind.JsonNode;
import dev.horizon.kit.manifest.KindsRead;
import dev.horizon.kit.manifest.Manifests;
import java.util.Arrays;
import java.util.Optional;

/**
 * The batch kinds Horizon reads beside the Kubeflow jobs: Kubernetes' own Job and Pod, JobSet (what Trainer 2.x
 * creates, and how multi-slice training is written) and Volcano's Job. Each names the GPU pods it creates in pod
 * templates, which {@link PodGroups} reads the same way for every kind.
 */
public enum BatchKind {
    JOB("batch", "v1", "Job", "jobs", true),
    POD("", "v1", "Pod", "pods", false),
    JOB_SET("jobset.x-k8s.io", "v1alpha2", "JobSet", "jobsets", true),
    VOLCANO_JOB("batch.volcano.sh", "v1alpha1", "Job", "jobs", false);

    /** What these kinds are called where a file holds none of them. */
    public static final KindsRead READ = new KindsRead("Kubernetes batch workload",
            Arrays.stream(values()).map(k -> new KindsRead.KindAt(k.apiVersion(), k.kind)).toList());

    private final String group;
    private final String version;
    private final String kind;
    private final String plural;
    private final boolean suspendable;

    BatchKind(String group, String version, String kind, String plural, boolean suspendable) {
        this.group = group;
        this.version = version;
        this.kind = kind;
        this.plural = plural;
        this.suspendable = suspendable;
    }

    public static Optional<BatchKind> of(JsonNode manifest) {
        return Arrays.stream(values()).filter(k -> k.apiVersion().equals(Manifests.apiVersion(manifest)) && k.kind.equals(Manifests.kind(manifest)))
                .findFirst();
    }

    public String apiVersion() {
        return group.isEmpty() ? version : group + "/" + version;
    }

    public String group() {
        return group;
    }

    public String version() {
        return version;
    }

    public String kind() {
        return kind;
    }

    public String plural() {
        return plural;
    }

    /** The kind as scheduler jobs' sources name it: kubectl's KIND.GROUP where two groups share a kind ("Job.batch.volcano.sh"). */
    public String sourceKind() {
        return this == VOLCANO_JOB ? kind + "." + group : kind;
    }

    /** Whether the kind has {@code spec.suspend}, which the controller holds it by (a Pod and a Volcano Job have none). */
    public boolean suspendable() {
        return suspendable;
    }
}
