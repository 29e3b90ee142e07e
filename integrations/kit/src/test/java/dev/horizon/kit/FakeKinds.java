package dev.horizon.kit;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.horizon.api.GpuShape;
import dev.horizon.api.JobClass;
import dev.horizon.api.JobSpec;
import dev.horizon.api.integration.KubeObjects;
import dev.horizon.api.integration.PlannedPlacement;
import dev.horizon.kit.manifest.ManifestException;
import dev.horizon.kit.manifest.NoGpuRequested;
import dev.horizon.kit.manifest.Translation;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.JSONSchemaProps;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Two small kinds of group test.horizon.dev the reconciler's test holds: a Widget, one scheduler job of {@code spec.gpus}
 * whole GPUs that ends by its status conditions, and a Pair, two scheduler jobs ("NAME-left", "NAME-right") explained in
 * an annotation. Releasing writes where each part was pinned to {@code spec.pinned}.
 */
final class FakeKinds {
    static final String GROUP = "test.horizon.dev";

    private FakeKinds() {
    }

    static WorkloadKind widgets() {
        return new WorkloadKind("Widget", WorkloadKind.context(GROUP, "v1", "Widget", "widgets"), Widget::new);
    }

    static WorkloadKind pairs() {
        return new WorkloadKind("Pair", WorkloadKind.context(GROUP, "v1", "Pair", "pairs"), Pair::new);
    }

    /** Installs the kinds' CRDs: any content, with the status subresource. */
    static void install(KubernetesClient client) {
        for (String kind : List.of("Widget", "Pair")) {
            JSONSchemaProps open = new JSONSchemaProps();
            open.setType("object");
            open.setXKubernetesPreserveUnknownFields(true);
            String plural = kind.toLowerCase() + "s";
            client.apiextensions().v1().customResourceDefinitions().resource(new CustomResourceDefinitionBuilder()
                    .withNewMetadata().withName(plural + "." + GROUP).endMetadata()
                    .withNewSpec().withGroup(GROUP).withScope("Namespaced")
                    .withNewNames().withKind(kind).withPlural(plural).endNames()
                    .addNewVersion().withName("v1").withServed(true).withStorage(true)
                    .withNewSchema().withOpenAPIV3Schema(open).endSchema()
                    .withNewSubresources().withNewStatus().endStatus().endSubresources().endVersion()
                    .endSpec().build()).create();
        }
    }

    private abstract static class Fake {
        final ObjectNode object;

        Fake(ObjectNode object) {
            this.object = object;
        }

        public ObjectNode object() {
            return object;
        }

        public boolean isSuspended() {
            return object.path("spec").path("suspend").asBoolean(false);
        }

        public void suspend() {
            KubeObjects.child(object, "spec").put("suspend", true);
        }

        String name() {
            return object.path("metadata").path("name").asText();
        }

        /** Refused as not Horizon's for spec.gpus 0; refused, naming the field, below 0. */
        Translation translate(List<String> jobNames) {
            int gpus = object.path("spec").path("gpus").asInt(0);
            if (gpus < 0) throw new ManifestException("spec.gpus: " + gpus + " is below 0");
            if (gpus == 0) throw new NoGpus(name());
            return new Translation(jobNames.stream().map(n -> new JobSpec(n, "ml", JobClass.TRAINING, null, 1, null,
                    GpuShape.wholeGpus(gpus), true, null, null, null, null)).toList(), List.of("a warning about " + name()));
        }
    }

    private static final class NoGpus extends ManifestException implements NoGpuRequested {
        NoGpus(String name) {
            super(name + " asks for no GPU");
        }
    }

    static final class Widget extends Fake implements GenericJob, JobWithOutcome {
        Widget(ObjectNode object) {
            super(object);
        }

        @Override
        public String kind() {
            return "Widget";
        }

        @Override
        public Translation translate() {
            return translate(List.of(name()));
        }

        @Override
        public Release runOn(PlannedPlacement placement) {
            KubeObjects.child(object, "spec").put("pinned", String.join(",", placement.nodes())).put("suspend", false);
            return new Release(String.join(",", placement.nodes()), "on " + String.join(",", placement.nodes()));
        }

        @Override
        public Optional<Boolean> succeeded() {
            return JobWithOutcome.fromConditions(object, Set.of("Complete"));
        }
    }

    static final class Pair extends Fake implements ComposableJob {
        Pair(ObjectNode object) {
            super(object);
        }

        @Override
        public String kind() {
            return "Pair";
        }

        @Override
        public Translation translate() {
            return translate(List.of(name() + "-left", name() + "-right"));
        }

        @Override
        public Explanations explanations() {
            return Explanations.ANNOTATION;
        }

        @Override
        public Release runOn(Map<String, PlannedPlacement> placementsByJobName) {
            List<String> parts = new ArrayList<>();
            placementsByJobName.forEach((name, p) -> parts.add(name + " on " + String.join(",", p.nodes())));
            KubeObjects.child(object, "spec").put("pinned", String.join("; ", parts)).put("suspend", false);
            return new Release(String.join("; ", parts), "with " + String.join("; ", parts));
        }
    }
}
