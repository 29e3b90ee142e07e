package dev.horizon.kubeflow.controller;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.horizon.api.manifest.ManifestFile;
import dev.horizon.kubeflow.translate.KubeflowKind;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.JSONSchemaProps;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import java.util.Locale;

/** The fabric8 mock API server (CRUD mode) made to hold Kubeflow jobs: their CRDs, and jobs created from YAML. */
public final class MockCluster {
    private static final ObjectMapper JSON = new ObjectMapper();

    private MockCluster() {
    }

    /** A CRD that stores any content, with the status subresource the real ones have. */
    public static void installCrd(KubernetesClient client, KubeflowKind kind) {
        installCrd(client, kind.group(), kind.version(), kind.kind(), kind.plural());
    }

    /** The same for a kind given by its names, as the operator that owns it installs it. */
    public static void installCrd(KubernetesClient client, String group, String version, String kind, String plural) {
        JSONSchemaProps open = new JSONSchemaProps();
        open.setType("object");
        open.setXKubernetesPreserveUnknownFields(true);
        client.apiextensions().v1().customResourceDefinitions().resource(new CustomResourceDefinitionBuilder()
                .withNewMetadata().withName(plural + "." + group).endMetadata()
                .withNewSpec().withGroup(group).withScope("Namespaced")
                .withNewNames().withKind(kind).withPlural(plural).endNames()
                .addNewVersion().withName(version).withServed(true).withStorage(true)
                .withNewSchema().withOpenAPIV3Schema(open).endSchema()
                .withNewSubresources().withNewStatus().endStatus().endSubresources().endVersion()
                .endSpec().build()).create();
    }

    /** Creates the first resource of the YAML (a kind whose CRD is installed, its plural the kind's plus "s") and returns its handle. */
    public static Resource<GenericKubernetesResource> create(KubernetesClient client, String yaml) {
        GenericKubernetesResource resource = JSON.convertValue(ManifestFile.parse(yaml).get(0), GenericKubernetesResource.class);
        String[] groupVersion = resource.getApiVersion().split("/");
        Resource<GenericKubernetesResource> handle = client.genericKubernetesResources(new ResourceDefinitionContext.Builder()
                        .withGroup(groupVersion[0]).withVersion(groupVersion[1]).withKind(resource.getKind())
                        .withPlural(resource.getKind().toLowerCase(Locale.ROOT) + "s").withNamespaced(true).build())
                .inNamespace(resource.getMetadata().getNamespace()).resource(resource);
        handle.create();
        return handle;
    }
}
