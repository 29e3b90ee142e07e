package dev.horizon.service;

import static dev.horizon.service.Api.ADMIN;
import static dev.horizon.service.Api.as;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.horizon.agent.v1.MutinyAgentServiceGrpc.MutinyAgentServiceStub;
import dev.horizon.kubernetes.dra.DraCluster;
import dev.horizon.service.kubernetes.KubernetesCluster;
import dev.horizon.service.kubernetes.ResourceSliceInventory;
import dev.horizon.service.planning.Planner;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.path.json.JsonPath;
import jakarta.inject.Inject;
import java.net.URL;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * ResourceSlices as the second inventory source (the fabric8 mock API server in CRUD mode with slices shaped as NVIDIA's
 * DRA driver publishes them): a node of the pool set to dra mode whose slices lack a GPU its agent reports is drained with the difference named,
 * its running job's devices come back with their UUIDs, and it is undrained once the slices agree.
 */
@QuarkusTest
@TestProfile(KubernetesProfile.OwnStore.class)
class DraInventoryTest {
    private static final String NODE = "host-d";

    @TestHTTPResource("/")
    URL base;
    @Inject
    ResourceSliceInventory inventory;
    @Inject
    KubernetesCluster cluster;
    @Inject
    Planner planner;

    private static JsonPath node() {
        return as(ADMIN).get("/api/v1/nodes/" + NODE).then().extract().jsonPath();
    }

    @Test
    void aDraNodeWhoseResourceSlicesDisagreeWithItsAgentIsDrainedUntilTheyAgree() {
        KubernetesClient kube = KubernetesMockResource.client();
        ManagedChannel channel = ManagedChannelBuilder.forAddress(base.getHost(), base.getPort()).usePlaintext().build();
        try {
            MutinyAgentServiceStub agent = AgentStub.agent(channel, "Bearer " + Api.token("agent", null));
            // the fixtures' UUIDs are GPU-<node>-<index>, as AgentStub.host names the agent's GPUs
            agent.register(AgentStub.host(NODE, 2)).await().atMost(Duration.ofSeconds(10));
            DraCluster slices = DraCluster.node(kube, NODE, Map.of("horizon.dev/node-pool", "h200-dra")); // the pool in dra mode
            slices.gpu(0).publish();
            cluster.forgetLabels(); // the node list read when the agent registered is under a second old and lacks the new node

            inventory.check(1_796_255_940_999L);
            JsonPath drained = node();
            assertEquals("2026-12-02T23:59:00Z", drained.getString("resourceSlices.checkedAt"), "when it was checked, in the API's one time format");
            assertEquals("dra", drained.getString("gpuMode"));
            assertEquals("UNHEALTHY", drained.getString("health"));
            assertEquals("ResourceSlices disagree with the agent: GPU-host-d-1: the agent reports it, the DRA driver publishes no device for it",
                    drained.getString("healthReason"));
            assertEquals(1, drained.getInt("resourceSlices.publishedDevices"));
            assertEquals(List.of("GPU-host-d-1: the agent reports it, the DRA driver publishes no device for it"),
                    drained.getList("resourceSlices.differences"));

            slices.gpu(1).publish(); // the driver republishes the pool with both GPUs
            inventory.check(System.currentTimeMillis());
            JsonPath back = node();
            assertEquals("HEALTHY", back.getString("health"), back.prettify());
            assertTrue(back.getList("resourceSlices.differences").isEmpty());

            Api.team("ml", 0.5);
            String job = Api.submit(ADMIN, Api.job("train", "ml", "TRAINING", 2));
            planner.planNow();
            JsonPath running = as(ADMIN).get("/api/v1/jobs/" + job).then().extract().jsonPath();
            assertEquals("RUNNING", running.getString("state"));
            assertEquals(List.of("GPU-host-d-0", "GPU-host-d-1"), running.getList("devices.gpuUuid"));
            assertEquals(List.of("dra", "dra"), running.getList("devices.gpuMode"));
        } finally {
            channel.shutdownNow();
        }
    }
}
