package dev.horizon.kubeflow.controller;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.horizon.kit.manifest.ManifestFile;
import dev.horizon.kubeflow.translate.KubeflowKind;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.JSONSchemaProps;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;

/** The fabric8 mock API server (CRUD mode) made to hold Kubeflow jobs: their CRDs, and jobs created from YAML. */
public final class MockCluster {
    /**
     * Horovod on the mpi-operator's current API (kubeflow.org/v2beta1): a CPU launcher started once its two workers of
     * 2 GPUs each are ready; the controller's tests and tests/ run it.
     */
    public static final String MPI_JOB_V2BETA1 = """
            apiVersion: kubeflow.org/v2beta1
            kind: MPIJob
            metadata: {name: horovod-mnist, namespace: ml, annotations: {horizon.dev/duration-estimate: 2h}}
            spec:
              slotsPerWorker: 2
              mpiImplementation: OpenMPI
              launcherCreationPolicy: WaitForWorkersReady
              runPolicy: {cleanPodPolicy: Running}
              mpiReplicaSpecs:
                Launcher:
                  replicas: 1
                  template: {spec: {containers: [{name: launcher, image: x, command: [mpirun], resources: {limits: {cpu: 1}}}]}}
                Worker:
                  replicas: 2
                  template: {spec: {containers: [{name: worker, image: x, resources: {limits: {nvidia.com/gpu: 2}}}]}}
            """;
    private static final ObjectMapper JSON = new ObjectMapper();

    private MockCluster() {
    }

    /** A CRD that stores any content, with the status subresource the real ones have. */
    public static void installCrd(KubernetesClient client, KubeflowKind kind) {
        installCrd(client, KubeflowController.context(kind));
    }

    /** A CRD for any namespaced kind (JobSet, LeaderWorkerSet, KServe's InferenceService) that stores any content. */
    public static void installCrd(KubernetesClient client, ResourceDefinitionContext kind) {
        JSONSchemaProps open = new JSONSchemaProps();
        open.setType("object");
        open.setXKubernetesPreserveUnknownFields(true);
        client.apiextensions().v1().customResourceDefinitions().resource(new CustomResourceDefinitionBuilder()
                .withNewMetadata().withName(kind.getPlural() + "." + kind.getGroup()).endMetadata()
                .withNewSpec().withGroup(kind.getGroup()).withScope("Namespaced")
                .withNewNames().withKind(kind.getKind()).withPlural(kind.getPlural()).endNames()
                .addNewVersion().withName(kind.getVersion()).withServed(true).withStorage(true)
                .withNewSchema().withOpenAPIV3Schema(open).endSchema()
                .withNewSubresources().withNewStatus().endStatus().endSubresources().endVersion()
                .endSpec().build()).create();
    }

    /** Creates the first resource of the YAML (a Kubeflow kind) and returns its handle. */
    public static Resource<GenericKubernetesResource> create(KubernetesClient client, String yaml) {
        GenericKubernetesResource resource = JSON.convertValue(ManifestFile.parse(yaml).get(0), GenericKubernetesResource.class);
        KubeflowKind kind = KubeflowKind.of(resource.getApiVersion(), resource.getKind()).orElseThrow();
        Resource<GenericKubernetesResource> handle = client.genericKubernetesResources(KubeflowController.context(kind))
                .inNamespace(resource.getMetadata().getNamespace()).resource(resource);
        handle.create();
        return handle;
    }
}
