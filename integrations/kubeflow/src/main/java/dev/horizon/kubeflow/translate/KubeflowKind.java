package dev.horizon.kubeflow.translate;

import com.fasterxml.jackson.databind.JsonNode;
import dev.horizon.kit.manifest.KindsRead;
import dev.horizon.kit.manifest.Manifests;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * The Kubeflow kinds Horizon reads: the training-operator jobs (kubeflow.org/v1), the mpi-operator's MPIJob
 * (kubeflow.org/v2beta1), Trainer's TrainJob, and the runtimes a TrainJob refers to. Trainer kept v1alpha1 while its
 * shape changed, so its kinds are checked against the schema of every release that shipped it.
 */
public enum KubeflowKind {
    PYTORCH_JOB("kubeflow.org", "v1", "PyTorchJob", "pytorchjobs", "pytorchReplicaSpecs"),
    TF_JOB("kubeflow.org", "v1", "TFJob", "tfjobs", "tfReplicaSpecs"),
    MPI_JOB("kubeflow.org", "v1", "MPIJob", "mpijobs", "mpiReplicaSpecs"),
    /** The mpi-operator's current API (Launcher and Worker; runPolicy, slotsPerWorker, mpiImplementation, launcherCreationPolicy). */
    MPI_JOB_V2BETA1("kubeflow.org", "v2beta1", "MPIJob", "mpijobs", "mpiReplicaSpecs"),
    XGBOOST_JOB("kubeflow.org", "v1", "XGBoostJob", "xgboostjobs", "xgbReplicaSpecs"),
    PADDLE_JOB("kubeflow.org", "v1", "PaddleJob", "paddlejobs", "paddleReplicaSpecs"),
    JAX_JOB("kubeflow.org", "v1", "JAXJob", "jaxjobs", "jaxReplicaSpecs"),
    TRAIN_JOB("trainer.kubeflow.org", "v1alpha1", "TrainJob", "trainjobs", null),
    TRAINING_RUNTIME("trainer.kubeflow.org", "v1alpha1", "TrainingRuntime", "trainingruntimes", null),
    CLUSTER_TRAINING_RUNTIME("trainer.kubeflow.org", "v1alpha1", "ClusterTrainingRuntime", "clustertrainingruntimes", null);

    /** Trainer's releases whose CRDs ship a schema here, oldest first. */
    public static final List<String> TRAINER_RELEASES = List.of("2.0", "2.1", "2.2", "2.3");
    /** What {@code translate kubeflow} reads, and what it says of the other documents of a file. */
    public static final KindsRead READ = new KindsRead("Kubeflow training job",
            Arrays.stream(values()).map(k -> new KindsRead.KindAt(k.apiVersion(), k.kind)).toList());

    private final String group;
    private final String version;
    private final String kind;
    private final String plural;
    private final String replicaSpecsField;

    KubeflowKind(String group, String version, String kind, String plural, String replicaSpecsField) {
        this.group = group;
        this.version = version;
        this.kind = kind;
        this.plural = plural;
        this.replicaSpecsField = replicaSpecsField;
    }

    public static Optional<KubeflowKind> of(String apiVersion, String kind) {
        return Arrays.stream(values()).filter(k -> k.apiVersion().equals(apiVersion) && k.kind.equals(kind)).findFirst();
    }

    public static Optional<KubeflowKind> of(JsonNode manifest) {
        return of(Manifests.apiVersion(manifest), Manifests.kind(manifest));
    }

    /** The kinds that are jobs (the runtimes are templates a TrainJob refers to). */
    public static List<KubeflowKind> jobs() {
        return Arrays.stream(values()).filter(KubeflowKind::isJob).toList();
    }

    public boolean isJob() {
        return this != TRAINING_RUNTIME && this != CLUSTER_TRAINING_RUNTIME;
    }

    public boolean isRuntime() {
        return !isJob();
    }

    /** The training-operator and mpi-operator jobs keep their pods in a map of replica specs; TrainJob does not. */
    public boolean hasReplicaSpecs() {
        return replicaSpecsField != null;
    }

    public boolean isTrainer() {
        return group.equals("trainer.kubeflow.org");
    }

    public String group() {
        return group;
    }

    public String version() {
        return version;
    }

    public String apiVersion() {
        return group + "/" + version;
    }

    public String kind() {
        return kind;
    }

    public String plural() {
        return plural;
    }

    public boolean namespaced() {
        return this != CLUSTER_TRAINING_RUNTIME;
    }

    public String replicaSpecsField() {
        return replicaSpecsField;
    }

    /** The releases whose schema ships for this kind: Trainer's, or one (named "") for the kinds whose shape held. */
    public List<String> schemaReleases() {
        return isTrainer() ? TRAINER_RELEASES : List.of("");
    }

    /** Where the shipped schema of this kind in a release (from {@link #schemaReleases}) lives on the class path. */
    public String schemaResource(String release) {
        return "/dev/horizon/kubeflow/schema/" + group + "_" + version + "_" + kind + (release.isEmpty() ? "" : "_" + release) + ".json";
    }
}
