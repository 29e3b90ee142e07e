package dev.horizon.ray.translate;

import dev.horizon.api.JobClass;
import java.util.Arrays;
import java.util.Optional;

/**
 * The KubeRay ray.io/v1 kinds Horizon plans, where each keeps its RayCluster spec, what class of work it is by
 * default, and whether its GPU workers form a gang.
 */
public enum RayKind {
    /** A bare cluster: Ray work submitted to it expects every worker KubeRay creates. */
    RAY_CLUSTER("RayCluster", "rayclusters", "spec", JobClass.TRAINING, true),
    /** A batch job: the entrypoint runs once the cluster it creates is whole. */
    RAY_JOB("RayJob", "rayjobs", "spec.rayClusterSpec", JobClass.TRAINING, true),
    /** Ray Serve: replicas serve on whichever workers exist, so a partial cluster already answers requests. */
    RAY_SERVICE("RayService", "rayservices", "spec.rayClusterConfig", JobClass.REALTIME_INFERENCE, false);

    public static final String GROUP = "ray.io";
    public static final String VERSION = "v1";
    public static final String API_VERSION = GROUP + "/" + VERSION;

    private final String kind;
    private final String plural;
    private final String clusterSpecPath;
    private final JobClass defaultClass;
    private final boolean gang;

    RayKind(String kind, String plural, String clusterSpecPath, JobClass defaultClass, boolean gang) {
        this.kind = kind;
        this.plural = plural;
        this.clusterSpecPath = clusterSpecPath;
        this.defaultClass = defaultClass;
        this.gang = gang;
    }

    public static Optional<RayKind> of(String apiVersion, String kind) {
        if (!API_VERSION.equals(apiVersion)) return Optional.empty();
        return Arrays.stream(values()).filter(k -> k.kind.equals(kind)).findFirst();
    }

    public String kind() {
        return kind;
    }

    public String plural() {
        return plural;
    }

    /** Dotted path of the RayCluster spec inside a manifest of this kind ("spec.rayClusterSpec"). */
    public String clusterSpecPath() {
        return clusterSpecPath;
    }

    public JobClass defaultClass() {
        return defaultClass;
    }

    public boolean gang() {
        return gang;
    }

    /** The shipped schema, cut from the CRD ray.io_&lt;plural&gt;.yaml. */
    public String schemaResource() {
        return "/dev/horizon/ray/schema/" + GROUP + "_" + VERSION + "_" + kind + ".json";
    }
}
