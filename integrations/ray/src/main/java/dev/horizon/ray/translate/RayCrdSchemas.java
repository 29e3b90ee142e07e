package dev.horizon.ray.translate;

import dev.horizon.kit.crd.SchemaReleases;
import dev.horizon.kit.crd.StructuralSchema;
import java.util.EnumMap;
import java.util.Map;

/**
 * The schemas shipped inside the module: each kind's ray.io/v1 openAPIV3Schema from the KubeRay CRDs (Apache-2.0),
 * with pod specs left open where Horizon does not read, so translation validates without a cluster.
 */
public final class RayCrdSchemas {
    private static final Map<RayKind, SchemaReleases> LOADED = new EnumMap<>(RayKind.class);

    private RayCrdSchemas() {
    }

    public static synchronized SchemaReleases of(RayKind kind) {
        return LOADED.computeIfAbsent(kind, k -> SchemaReleases.single(RayKind.API_VERSION + " " + k.kind(),
                StructuralSchema.fromResource(RayCrdSchemas.class, k.schemaResource())));
    }
}
