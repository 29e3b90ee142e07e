package dev.horizon.kubernetes.dra;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.horizon.kubernetes.dra.InventoryCheck.AgentGpu;
import dev.horizon.kubernetes.dra.InventoryCheck.AgentMig;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** ResourceSlices read from the fabric8 mock API server (CRUD mode) and checked against what the agent reports. */
@EnableKubernetesMockClient(crud = true)
class InventoryCheckTest {
    KubernetesClient client;

    private static AgentGpu gpu(String node, int i, AgentMig... migs) {
        return new AgentGpu(DraCluster.uuid(node, i), List.of(migs));
    }

    @Test
    void theNewestGenerationOfEachPoolIsTheInventoryAndEveryDisagreementIsNamed() {
        DraCluster n1 = DraCluster.node(client, "node-1", Map.of()).gpus(2).publish();
        n1.mig(1, "3g.40gb", 0, "MIG-a").publish(); // generation 2 replaces generation 1
        DraCluster.node(client, "node-2", Map.of()).gpus(1).mig(0, "1g.10gb", 0, null).publish();

        Map<String, List<DraDevice>> published = new ResourceSlices(client).byNode();
        assertEquals(List.of("gpu-0", "gpu-1", "gpu-1-mig-3g40gb-0"), published.get("node-1").stream().map(DraDevice::name).toList(),
                "generation 1's devices are not counted twice");

        assertEquals(List.of(), InventoryCheck.differences(List.of(gpu("node-1", 0), gpu("node-1", 1, new AgentMig("3g.40gb", "MIG-a"))),
                published.get("node-1")));
        assertEquals(List.of(), InventoryCheck.differences(List.of(gpu("node-2", 0, new AgentMig("1g.10gb", "MIG-b"))), published.get("node-2")),
                "dynamic MIG publishes the possible instance without a UUID: same profile on the same GPU agrees");

        List<String> off = InventoryCheck.differences(List.of(gpu("node-1", 0, new AgentMig("1g.10gb", "MIG-z")), gpu("node-1", 7)), published.get("node-1"));
        assertEquals(List.of(
                "GPU-node-1-1: the DRA driver publishes it (device gpu-1), the agent does not report it",
                "GPU-node-1-7: the agent reports it, the DRA driver publishes no device for it",
                "MIG-z (1g.10gb on GPU-node-1-0): the agent reports it, the DRA driver does not publish it"), off);
    }
}
