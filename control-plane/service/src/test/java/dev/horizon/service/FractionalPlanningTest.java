package dev.horizon.service;

import static dev.horizon.service.Api.ADMIN;
import static dev.horizon.service.Api.as;
import static org.hamcrest.Matchers.containsString;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.horizon.agent.v1.CommandResult;
import dev.horizon.agent.v1.Inventory;
import dev.horizon.agent.v1.MigDevice;
import dev.horizon.agent.v1.MigMode;
import dev.horizon.agent.v1.MutinyAgentServiceGrpc.MutinyAgentServiceStub;
import dev.horizon.service.planning.Planner;
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
 * Fractional jobs through the whole service: a dynamic MIG policy, an agent node, jobs that need MIG instances its
 * GPUs lack (one ApplyMigLayout, then both jobs on one GPU once the agent reports the layout) and time-slicing shares
 * (one GPU, one SetSharing).
 */
@QuarkusTest
@TestProfile(FractionalProfile.class)
class FractionalPlanningTest {
    private static final Duration WAIT = Duration.ofSeconds(10);

    @TestHTTPResource("/")
    URL base;
    @Inject
    Planner planner;

    private static String mig(String name, String profile) {
        return "{\"name\":\"" + name + "\",\"team\":\"serving\",\"class\":\"BATCH_INFERENCE\",\"perReplica\":{\"migProfile\":\"" + profile + "\"}}";
    }

    private static String share(String name, int milli) {
        return "{\"name\":\"" + name + "\",\"team\":\"serving\",\"class\":\"BATCH_INFERENCE\",\"perReplica\":{\"gpuMilli\":" + milli
                + ",\"memoryMiB\":20000}}";
    }

    private static JsonPath job(String id) {
        return as(ADMIN).get("/api/v1/jobs/" + id).then().extract().jsonPath();
    }

    private static List<Map<String, Object>> commands(String kind) {
        List<Map<String, Object>> all = as(ADMIN).get("/api/v1/nodes/host-m").then().extract().jsonPath().getList("commands");
        return all.stream().filter(c -> ((Map<?, ?>) c.get("action")).containsKey(kind)).toList();
    }

    @Test
    void migJobsWaitForOneReconfigurationThenShareAGpuAndSharesShareAnother() {
        ManagedChannel channel = ManagedChannelBuilder.forAddress(base.getHost(), base.getPort()).usePlaintext().build();
        try {
            MutinyAgentServiceStub agent = AgentStub.enrolled(channel, AgentStub.host("host-m", 2));
            as(ADMIN).body("{\"partitionableModels\":[\"H100-80GB\"],\"allowedProfiles\":[\"1g.10gb\",\"3g.40gb\"],\"layout\":\"DYNAMIC\","
                    + "\"drainTimeSeconds\":0,\"maxConcurrentReconfigurations\":1}").put("/api/v1/mig-policies/h100s").then().statusCode(201);
            Api.team("serving", 0.5);
            String a = Api.submit(ADMIN, mig("a", "3g.40gb"));
            String b = Api.submit(ADMIN, mig("b", "3g.40gb"));
            planner.planNow();
            planner.planNow();
            assertEquals("PENDING", job(a).getString("state"));
            // the plan's waiting entry says what it asks for, as the job JSON does, for the web view's GPUs column ("1x3g.40gb")
            Map<String, Object> waiting = as(ADMIN).get("/api/v1/plan").then().extract().jsonPath().getMap("pending.find { it.jobId == '" + a + "' }");
            assertEquals(List.of(1, "3g.40gb"), List.of(waiting.get("replicas"), waiting.get("migProfile")), "a MIG job's ask in the plan: " + waiting);
            assertEquals(null, waiting.get("gpuMilli"), "and no share");
            as(ADMIN).get("/api/v1/jobs/" + b + "/explanation").then().body("reason", containsString("re-partitioned"));
            List<Map<String, Object>> layouts = commands("applyMigLayout");
            assertEquals(1, layouts.size(), "one GPU is re-partitioned for both jobs, once: " + layouts);
            Map<?, ?> apply = (Map<?, ?>) ((Map<?, ?>) layouts.get(0).get("action")).get("applyMigLayout");
            assertEquals("[{profile=3g.40gb, start=0}, {profile=3g.40gb, start=4}]", apply.get("slots").toString());

            // the agent applies it and reports the GPU's new MIG devices
            String gpu = (String) apply.get("gpuUuid");
            agent.reportResult(CommandResult.newBuilder().setNodeId("host-m").setCommandId((String) layouts.get(0).get("id")).setSuccess(true).build())
                    .await().atMost(WAIT);
            Inventory.Builder inv = Inventory.newBuilder().setNodeName("host-m");
            for (int i = 0; i < 2; i++) {
                String uuid = "GPU-host-m-" + i;
                if (!uuid.equals(gpu)) {
                    inv.addGpus(AgentStub.h100(uuid, i));
                    continue;
                }
                inv.addGpus(AgentStub.h100(uuid, i).toBuilder().setMigMode(MigMode.MIG_ENABLED)
                        .addMigDevices(MigDevice.newBuilder().setUuid("MIG-0").setProfile("3g.40gb").setPlacementStart(0).setPlacementSize(4))
                        .addMigDevices(MigDevice.newBuilder().setUuid("MIG-4").setProfile("3g.40gb").setPlacementStart(4).setPlacementSize(4)));
            }
            agent.register(inv.build()).await().atMost(WAIT);
            planner.planNow();
            String onGpu = "host-m[" + gpu.substring(gpu.length() - 1) + "-" + gpu.substring(gpu.length() - 1) + ":3g.40gb@";
            assertEquals("RUNNING", job(a).getString("state"), () -> as(ADMIN).get("/api/v1/jobs/" + a + "/explanation").asString());
            assertEquals("RUNNING", job(b).getString("state"), () -> as(ADMIN).get("/api/v1/jobs/" + b + "/explanation").asString());
            assertTrue(job(a).getString("placement").startsWith(onGpu), job(a).getString("placement"));
            assertTrue(job(b).getString("placement").startsWith(onGpu), job(b).getString("placement"));
            assertEquals(1, commands("applyMigLayout").size(), "no further re-partitioning");
            int busyBefore = planner.lastPlan().busyGpus();

            String half = Api.submit(ADMIN, share("half", 500));
            String other = Api.submit(ADMIN, share("other", 400));
            planner.planNow();
            String free = gpu.endsWith("0") ? "1" : "0";
            assertEquals("host-m[" + free + "-" + free + ":500m/20000MiB]", job(half).getString("placement"));
            assertEquals("host-m[" + free + "-" + free + ":400m/20000MiB]", job(other).getString("placement"));
            assertEquals(busyBefore + 1, planner.lastPlan().busyGpus(), "two shares of one GPU make one busy GPU, not two");
            List<Map<String, Object>> sharing = commands("setSharing");
            assertEquals(1, sharing.size(), "one SetSharing for the shared GPU: " + sharing);
            assertEquals("{gpuUuid=GPU-host-m-" + free + ", mode=TIME_SLICING, replicas=2}", ((Map<?, ?>) sharing.get(0).get("action")).get("setSharing").toString());

            // both shares end; whole-GPU work on that GPU makes it exclusive again, or the agent would keep it time-sliced
            for (String id : List.of(half, other)) as(ADMIN).body("{\"state\":\"SUCCEEDED\"}").post("/api/v1/jobs/" + id + "/outcome").then().statusCode(200);
            String whole = Api.submit(ADMIN, "{\"name\":\"whole\",\"team\":\"serving\",\"class\":\"BATCH_INFERENCE\",\"perReplica\":{\"gpus\":1}}");
            planner.planNow();
            assertEquals("host-m[" + free + "-" + free + "]", job(whole).getString("placement"));
            sharing = commands("setSharing"); // newest first
            assertEquals(2, sharing.size(), "one more SetSharing, for the GPU the whole job starts on: " + sharing);
            assertEquals("{gpuUuid=GPU-host-m-" + free + ", mode=EXCLUSIVE}", ((Map<?, ?>) sharing.get(0).get("action")).get("setSharing").toString());
        } finally {
            channel.shutdownNow();
        }
    }
}
