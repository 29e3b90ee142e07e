package dev.horizon.kit.manifest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The node selection rules: selector and affinity both hold, affinity terms are alternatives, GFD suffixes read as their product. */
class NodeSelectionTest {
    private static JsonNode pod(String yaml) {
        return ManifestFile.yamlObjects(yaml).get(0);
    }

    private static Optional<List<String>> models(String yaml) {
        return NodeSelection.of(pod(yaml), "spec", GpuModelTable.defaults()).models();
    }

    @Test
    void selectorAndAffinityIntersectAndTermsUnite() {
        String terms = "affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: ["
                + "{matchExpressions: [{key: karpenter.k8s.aws/instance-gpu-name, operator: In, values: [a100]}]},"
                + "{matchExpressions: [{key: karpenter.k8s.aws/instance-gpu-name, operator: In, values: [h100]}]}]}}}";
        assertEquals(Optional.of(List.of("A100-40GB", "A100-80GB", "H100-80GB")), models(terms));
        assertEquals(Optional.of(List.of("A100-80GB")), models(terms.replace("affinity", "nodeSelector: {node.kubernetes.io/instance-type: p4de.24xlarge}\naffinity")));
        ManifestException none = assertThrows(ManifestException.class, () -> models(terms.replace("affinity",
                "nodeSelector: {cloud.google.com/gke-accelerator: nvidia-l4}\naffinity")));
        assertTrue(none.getMessage().contains("pin GPU models with none in common"), none.getMessage());
    }

    @Test
    void aTermWithoutAGpuPinOrAPreferenceLeavesAnyModel() {
        assertEquals(Optional.empty(), models("affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: ["
                + "{matchExpressions: [{key: cloud.google.com/gke-accelerator, operator: In, values: [nvidia-l4]}]},"
                + "{matchExpressions: [{key: disk, operator: In, values: [ssd]}]}]}}}"));
        assertEquals(Optional.empty(), models("affinity: {nodeAffinity: {preferredDuringSchedulingIgnoredDuringExecution: [{weight: 1,"
                + " preference: {matchExpressions: [{key: cloud.google.com/gke-accelerator, operator: In, values: [nvidia-l4]}]}}]}}"));
        assertEquals(Optional.empty(), models("nodeSelector: {node.kubernetes.io/instance-type: m5.large}"));
    }

    @Test
    void featureDiscoverySuffixesNameTheProductTheyAreOn() {
        assertEquals(Optional.of(List.of("A100-40GB")), models("nodeSelector: {nvidia.com/gpu.product: NVIDIA-A100-SXM4-40GB-MIG-1g.5gb}"));
        assertEquals(Optional.of(List.of("L4-24GB")), models("nodeSelector: {nvidia.com/gpu.product: NVIDIA-L4-SHARED}"));
    }
}
