package dev.horizon.kubeflow.translate;

import dev.horizon.kit.crd.SchemaReleases;
import dev.horizon.kit.crd.StructuralSchema;
import java.util.EnumMap;
import java.util.Map;

/**
 * The schemas shipped inside the module: each kind's openAPIV3Schema from the Kubeflow CRDs (Apache-2.0), kept whole
 * where Horizon reads and with the pod spec's other fields left open, so a cluster without the fixtures still validates
 * what it translates. Trainer's kinds ship one schema per release.
 */
public final class CrdSchemas {
    /** What Trainer's release notes say about fields that moved, named where a manifest still uses them. */
    private static final Map<String, String> TRAINER_REMARKS = Map.of(
            "spec.mlPolicy.torch.numProcPerNode", "Trainer 2.2 moved it to the TrainJob's spec.trainer.numProcPerNode",
            "spec.podSpecOverrides", "Trainer 2.1 renamed it spec.podTemplateOverrides",
            "spec.podTemplateOverrides", "Trainer 2.2 replaced it with spec.runtimePatches");
    private static final Map<KubeflowKind, SchemaReleases> LOADED = new EnumMap<>(KubeflowKind.class);

    private CrdSchemas() {
    }

    public static synchronized SchemaReleases of(KubeflowKind kind) {
        return LOADED.computeIfAbsent(kind, CrdSchemas::load);
    }

    private static SchemaReleases load(KubeflowKind kind) {
        String what = kind.apiVersion() + " " + kind.kind();
        if (!kind.isTrainer()) return SchemaReleases.single(what, StructuralSchema.fromResource(CrdSchemas.class, kind.schemaResource("")));
        return new SchemaReleases("Trainer", what, kind.schemaReleases().stream()
                .map(r -> new SchemaReleases.Release(r, StructuralSchema.fromResource(CrdSchemas.class, kind.schemaResource(r)))).toList(),
                TRAINER_REMARKS);
    }
}
