package dev.horizon.ray.translate;

import com.fasterxml.jackson.databind.JsonNode;
import dev.horizon.api.JobClass;
import dev.horizon.kit.manifest.KindsRead;
import dev.horizon.kit.manifest.Manifests;
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
    /** What {@code translate ray} reads, and what it says of the other documents of a file. */
    public static final KindsRead READ = new KindsRead("KubeRay RayCluster, RayJob or RayService",
            Arrays.stream(values()).map(k -> new KindsRead.KindAt(API_VERSION, k.kind)).toList());

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

    public static Optional<RayKind> of(JsonNode manifest) {
        return of(Manifests.apiVersion(manifest), Manifests.kind(manifest));
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
