package dev.horizon.kubeflow.translate;

import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/** The Kubeflow kinds Horizon reads: the training-operator jobs, Trainer's TrainJob, and the runtimes a TrainJob refers to. */
public enum KubeflowKind {
    PYTORCH_JOB("kubeflow.org", "v1", "PyTorchJob", "pytorchjobs", "pytorchReplicaSpecs"),
    TF_JOB("kubeflow.org", "v1", "TFJob", "tfjobs", "tfReplicaSpecs"),
    MPI_JOB("kubeflow.org", "v1", "MPIJob", "mpijobs", "mpiReplicaSpecs"),
    XGBOOST_JOB("kubeflow.org", "v1", "XGBoostJob", "xgboostjobs", "xgbReplicaSpecs"),
    PADDLE_JOB("kubeflow.org", "v1", "PaddleJob", "paddlejobs", "paddleReplicaSpecs"),
    JAX_JOB("kubeflow.org", "v1", "JAXJob", "jaxjobs", "jaxReplicaSpecs"),
    TRAIN_JOB("trainer.kubeflow.org", "v1alpha1", "TrainJob", "trainjobs", null),
    TRAINING_RUNTIME("trainer.kubeflow.org", "v1alpha1", "TrainingRuntime", "trainingruntimes", null),
    CLUSTER_TRAINING_RUNTIME("trainer.kubeflow.org", "v1alpha1", "ClusterTrainingRuntime", "clustertrainingruntimes", null);

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

    /** The training-operator (kubeflow.org/v1) jobs keep their pods in a map of replica specs; TrainJob does not. */
    public boolean hasReplicaSpecs() {
        return replicaSpecsField != null;
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

    /** Where the shipped schema of this kind lives on the class path. */
    public String schemaResource() {
        return "/dev/horizon/kubeflow/schema/" + group + "_" + version + "_" + kind + ".json";
    }
}
