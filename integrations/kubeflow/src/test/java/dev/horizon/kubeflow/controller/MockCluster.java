package dev.horizon.kubeflow.controller;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.horizon.kubeflow.translate.KubeflowKind;
import dev.horizon.kubeflow.translate.Manifests;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.JSONSchemaProps;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.Resource;

/** The fabric8 mock API server (CRUD mode) made to hold Kubeflow jobs: their CRDs, and jobs created from YAML. */
public final class MockCluster {
    private static final ObjectMapper JSON = new ObjectMapper();

    private MockCluster() {
    }

    /** A CRD that stores any content, with the status subresource the real ones have. */
    public static void installCrd(KubernetesClient client, KubeflowKind kind) {
        JSONSchemaProps open = new JSONSchemaProps();
        open.setType("object");
        open.setXKubernetesPreserveUnknownFields(true);
        client.apiextensions().v1().customResourceDefinitions().resource(new CustomResourceDefinitionBuilder()
                .withNewMetadata().withName(kind.plural() + "." + kind.group()).endMetadata()
                .withNewSpec().withGroup(kind.group()).withScope("Namespaced")
                .withNewNames().withKind(kind.kind()).withPlural(kind.plural()).endNames()
                .addNewVersion().withName(kind.version()).withServed(true).withStorage(true)
                .withNewSchema().withOpenAPIV3Schema(open).endSchema()
                .withNewSubresources().withNewStatus().endStatus().endSubresources().endVersion()
                .endSpec().build()).create();
    }

    /** Creates the first resource of the YAML (a Kubeflow kind) and returns its handle. */
    public static Resource<GenericKubernetesResource> create(KubernetesClient client, String yaml) {
        GenericKubernetesResource resource = JSON.convertValue(Manifests.parse(yaml).get(0), GenericKubernetesResource.class);
        KubeflowKind kind = KubeflowKind.of(resource.getApiVersion(), resource.getKind()).orElseThrow();
        Resource<GenericKubernetesResource> handle = client.genericKubernetesResources(KubeflowController.context(kind))
                .inNamespace(resource.getMetadata().getNamespace()).resource(resource);
        handle.create();
        return handle;
    }
}
