package dev.horizon.service;

import static dev.horizon.service.Api.ADMIN;
import static dev.horizon.service.Api.as;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.horizon.agent.v1.AgentHello;
import dev.horizon.agent.v1.Command;
import dev.horizon.agent.v1.Inventory;
import dev.horizon.agent.v1.MigDevice;
import dev.horizon.agent.v1.MigMode;
import dev.horizon.agent.v1.MutinyAgentServiceGrpc.MutinyAgentServiceStub;
import dev.horizon.service.kubernetes.GpuOperatorCommands;
import dev.horizon.service.planning.Planner;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
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
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * The control plane on Kubernetes in device-plugin mode (the fabric8 mock API server in CRUD mode; the test plays the
 * GPU Operator's MIG manager and device plugin by setting their labels and the node's allocatable): a 3g.40gb job's layout
 * becomes a mig-parted config and the node's label instead of a command to the agent; a failed state fails the command
 * and the next plan asks again; once applied and reported, the job runs with its planned MIG device.
 */
@QuarkusTest
@TestProfile(KubernetesProfile.class)
class GpuOperatorPlanningTest {
    private static final Duration WAIT = Duration.ofSeconds(10);
    private static final String NODE = "host-k";

    @TestHTTPResource("/")
    URL base;
    @Inject
    Planner planner;
    @Inject
    GpuOperatorCommands gpuOperator;

    private static List<Map<String, Object>> commands(String kind) {
        List<Map<String, Object>> all = as(ADMIN).get("/api/v1/nodes/" + NODE).then().extract().jsonPath().getList("commands");
        return all.stream().filter(c -> ((Map<?, ?>) c.get("action")).containsKey(kind)).toList(); // newest first
    }

    /** The command of that id: a finished command asks for a plan at once, so a newer one may be queued beside it any time. */
    private static Map<String, Object> command(String kind, Object id) {
        return commands(kind).stream().filter(c -> id.equals(c.get("id"))).findFirst().orElseThrow(() -> new AssertionError("no command " + id));
    }

    private static Map<String, String> labels(KubernetesClient kube) {
        return kube.nodes().withName(NODE).get().getMetadata().getLabels();
    }

    private static void migManagerSays(KubernetesClient kube, String state) {
        kube.nodes().withName(NODE).edit(n -> {
            n.getMetadata().getLabels().put("nvidia.com/mig.config.state", state);
            return n;
        });
    }

    private static void policy(int drainSeconds, int status) {
        as(ADMIN).body("{\"partitionableModels\":[\"H100-80GB\"],\"allowedProfiles\":[\"3g.40gb\"],\"layout\":\"DYNAMIC\",\"drainTimeSeconds\":"
                + drainSeconds + ",\"maxConcurrentReconfigurations\":1}").put("/api/v1/mig-policies/h100s").then().statusCode(status);
    }

    @Test
    void aMigJobGoesThroughTheMigManagerAFailedLayoutIsPlannedAgainAndSharingThroughTheDevicePluginConfig() {
        KubernetesClient kube = KubernetesMockResource.client();
        kube.nodes().resource(new NodeBuilder().withNewMetadata().withName(NODE).addToLabels("nvidia.com/gpu.present", "true").endMetadata()
                .withNewStatus().addToAllocatable("nvidia.com/gpu", new Quantity("2")).endStatus().build()).create();
        ManagedChannel channel = ManagedChannelBuilder.forAddress(base.getHost(), base.getPort()).usePlaintext().build();
        List<Command> toAgent = new CopyOnWriteArrayList<>();
        try {
            MutinyAgentServiceStub agent = AgentStub.enrolled(channel, AgentStub.host(NODE, 2));
            agent.commands(AgentHello.newBuilder().setNodeId(NODE).build()).subscribe().with(toAgent::add);
            policy(600, 201); // a long drain: a failed layout must not hold the GPU for it

            Api.team("serving", 0.5);
            String job = Api.submit(ADMIN, "{\"name\":\"quant\",\"team\":\"serving\",\"class\":\"QUANTIZATION\",\"perReplica\":{\"migProfile\":\"3g.40gb\"}}");
            planner.planNow();
            assertEquals("QUEUED", commands("applyMigLayout").get(0).get("state"));

            gpuOperator.pass(System.currentTimeMillis());
            Map<?, ?> first = commands("applyMigLayout").get(0);
            assertEquals("SENT", first.get("state"), "handed to the MIG manager");
            String config = labels(kube).get("nvidia.com/mig.config");
            assertTrue(config.startsWith("horizon-"), labels(kube).toString());
            String file = kube.configMaps().inNamespace("gpu-operator").withName("horizon-mig-parted-config").get().getData().get("config.yaml");
            assertTrue(file.contains(config + ":") && file.contains("\"3g.40gb\": 2"), file);

            migManagerSays(kube, "failed");
            gpuOperator.pass(System.currentTimeMillis());
            Map<?, ?> failed = command("applyMigLayout", first.get("id"));
            assertEquals("FAILED", failed.get("state"));
            assertTrue(((String) failed.get("error")).contains("nvidia.com/mig.config.state=failed for layout " + config), failed.toString());

            planner.planNow();
            List<Map<String, Object>> layouts = commands("applyMigLayout");
            assertEquals(2, layouts.size(), "the GPU whose layout failed is planned again: " + layouts);
            Map<?, ?> second = layouts.get(0);
            assertEquals("QUEUED", second.get("state"));
            gpuOperator.pass(System.currentTimeMillis());
            policy(0, 200); // so the applied layout's GPU serves at once
            String again = labels(kube).get("nvidia.com/mig.config");
            assertNotEquals(config, again, "a new label value, so the MIG manager acts again");
            migManagerSays(kube, "success");
            gpuOperator.pass(System.currentTimeMillis());
            Map<?, ?> applied = command("applyMigLayout", second.get("id"));
            assertEquals("SUCCEEDED", applied.get("state"), applied.toString());
            assertEquals("PENDING", as(ADMIN).get("/api/v1/jobs/" + job).then().extract().jsonPath().getString("state"),
                    "the job waits until the agent reports the new MIG devices");
            planner.planNow();
            assertEquals(2, commands("applyMigLayout").size(), "a plan before the agent's report does not ask for the applied layout again");

            String gpu = (String) ((Map<?, ?>) ((Map<?, ?>) applied.get("action")).get("applyMigLayout")).get("gpuUuid");
            Inventory.Builder inv = Inventory.newBuilder().setNodeName(NODE);
            for (int i = 0; i < 2; i++) {
                String uuid = "GPU-" + NODE + "-" + i;
                inv.addGpus(!uuid.equals(gpu) ? AgentStub.h100(uuid, i) : AgentStub.h100(uuid, i).toBuilder().setMigMode(MigMode.MIG_ENABLED)
                        .addMigDevices(MigDevice.newBuilder().setUuid("MIG-" + i + "-0").setProfile("3g.40gb").setPlacementStart(0).setPlacementSize(4))
                        .addMigDevices(MigDevice.newBuilder().setUuid("MIG-" + i + "-4").setProfile("3g.40gb").setPlacementStart(4).setPlacementSize(4))
                        .build());
            }
            agent.register(inv.build()).await().atMost(WAIT);
            planner.planNow();
            JsonPath running = as(ADMIN).get("/api/v1/jobs/" + job).then().extract().jsonPath();
            assertEquals("RUNNING", running.getString("state"), () -> as(ADMIN).get("/api/v1/jobs/" + job + "/explanation").asString());
            Map<String, Object> device = running.getMap("devices[0]");
            assertEquals(NODE, device.get("node"));
            assertEquals(gpu, device.get("gpuUuid"));
            assertEquals("3g.40gb", device.get("migProfile"));
            assertTrue(((String) device.get("migUuid")).startsWith("MIG-"), device.toString());
            assertEquals("device-plugin", device.get("gpuMode"));
            assertEquals("device-plugin", as(ADMIN).get("/api/v1/nodes/" + NODE).then().extract().jsonPath().getString("gpuMode"));

            String share = Api.submit(ADMIN, "{\"name\":\"notebook\",\"team\":\"serving\",\"class\":\"INTERACTIVE\",\"perReplica\":{\"gpuMilli\":500,"
                    + "\"memoryMiB\":20000}}");
            planner.planNow();
            assertEquals("RUNNING", as(ADMIN).get("/api/v1/jobs/" + share).then().extract().jsonPath().getString("state"));
            gpuOperator.pass(System.currentTimeMillis());
            assertEquals("horizon-time-slicing-2", labels(kube).get("nvidia.com/device-plugin.config"));
            assertEquals("SENT", commands("setSharing").get(0).get("state"), "until the device plugin advertises the replicas");
            kube.nodes().withName(NODE).editStatus(n -> {
                n.getStatus().getAllocatable().put("nvidia.com/gpu", new Quantity("2")); // one whole GPU left, 2 replicas of it
                return n;
            });
            gpuOperator.pass(System.currentTimeMillis());
            assertEquals("SUCCEEDED", commands("setSharing").get(0).get("state"));

            // the node's last share ends: its GPUs go back to whole ones, so whole-GPU work may come back
            as(ADMIN).delete("/api/v1/jobs/" + share).then().statusCode(200);
            planner.planNow();
            assertEquals("EXCLUSIVE", ((Map<?, ?>) ((Map<?, ?>) commands("setSharing").get(0).get("action")).get("setSharing")).get("mode"));
            gpuOperator.pass(System.currentTimeMillis());
            assertEquals("horizon-exclusive", labels(kube).get("nvidia.com/device-plugin.config"));
            kube.nodes().withName(NODE).editStatus(n -> {
                n.getStatus().getAllocatable().put("nvidia.com/gpu", new Quantity("1"));
                return n;
            });
            gpuOperator.pass(System.currentTimeMillis());
            assertEquals("SUCCEEDED", commands("setSharing").get(0).get("state"));
            planner.planNow();
            assertEquals(2, commands("setSharing").size(), "one command each way, none repeated");
            assertTrue(toAgent.stream().noneMatch(c -> c.hasApplyMigLayout() || c.hasSetSharing()),
                    "the agent never touches MIG or sharing on a GPU Operator node: " + toAgent);
        } finally {
            channel.shutdownNow();
        }
    }
}
