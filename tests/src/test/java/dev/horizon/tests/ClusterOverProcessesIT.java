package dev.horizon.tests;

import static dev.horizon.tests.Horizon.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The whole path over real processes: the packaged control plane and one packaged agent on the simulated driver.
 * A job is planned onto the agent's node, the agent applies a MIG layout the control plane sends, and both
 * processes are SIGKILLed in turn.
 */
class ClusterOverProcessesIT {
    private static final String ADMIN = "e2e-admin-token";
    private static final String NODE = "e2e-node";
    private static final Pattern PLACEMENT = Pattern.compile(Pattern.quote(NODE) + "\\[(\\d+)-(\\d+)\\]");

    @TempDir
    Path dir;
    private Process controlPlane;
    private Process agent;

    @AfterEach
    void stop() throws Exception {
        for (Process p : new Process[] {agent, controlPlane}) {
            if (p != null) p.destroyForcibly().waitFor();
        }
    }

    @Test
    void submitPlanApplyMigThenSurviveKillingTheAgentAndTheControlPlane() throws Exception {
        Horizon.ControlPlane started = Horizon.readyControlPlane(dir, ADMIN);
        controlPlane = started.process();
        int port = started.port();
        Horizon.Rest admin = started.admin();
        agent = Horizon.agent(dir, NODE, Horizon.freePort(), port, started.agentToken());
        JsonNode node = await("the agent's node registering with 8 GPUs", 90, dir, () -> admin.json("GET", "/api/v1/nodes/" + NODE, null, 200),
                n -> n.path("gpus").size() == 8 && "agent".equals(n.path("source").asText()));
        assertEquals("HEALTHY", node.get("health").asText());

        admin.json("POST", "/api/v1/teams", "{\"name\":\"e2e\",\"share\":1.0}", 201);
        String jobId = admin.json("POST", "/api/v1/jobs", "{\"name\":\"sft\",\"team\":\"e2e\",\"class\":\"TRAINING\",\"replicas\":2,"
                + "\"perReplica\":{\"gpus\":1},\"durationEstimateSeconds\":7200}", 201).get("id").asText();
        JsonNode job = await("the job running on " + NODE, 30, dir, () -> admin.json("GET", "/api/v1/jobs/" + jobId, null, 200),
                j -> "RUNNING".equals(j.path("state").asText()) && PLACEMENT.matcher(j.path("placement").asText()).matches());

        // a MIG layout on a GPU the job does not hold: two 3g.40gb instances
        Matcher held = PLACEMENT.matcher(job.get("placement").asText());
        assertTrue(held.matches());
        int free = Integer.parseInt(held.group(1)) > 0 ? 0 : Integer.parseInt(held.group(2)) + 1;
        String gpu = node.get("gpus").get(free).get("uuid").asText();
        admin.json("POST", "/api/v1/nodes/" + NODE + "/commands", "{\"applyMigLayout\":{\"gpuUuid\":\"" + gpu
                + "\",\"slots\":[{\"profile\":\"3g.40gb\",\"start\":0},{\"profile\":\"3g.40gb\",\"start\":4}]}}", 201);
        JsonNode applied = await("the MIG layout SUCCEEDED and reported", 60, dir, () -> admin.json("GET", "/api/v1/nodes/" + NODE, null, 200),
                n -> "SUCCEEDED".equals(n.path("commands").path(0).path("state").asText()) && migProfiles(n, gpu).equals("3g.40gb,3g.40gb"));
        assertEquals("ENABLED", gpuOf(applied, gpu).path("migMode").asText(), "MIG mode is on: " + gpuOf(applied, gpu));

        // SIGKILL the agent: the control plane keeps serving and keeps the node as last reported. Inside the heartbeat
        // timeout (60 s by default; HeartbeatTest covers what happens after it) the node keeps its GPUs and the job its
        // placement; only lastSeen stops moving.
        assertEquals(137, Horizon.kill9(agent));
        String lastSeen = admin.json("GET", "/api/v1/nodes/" + NODE, null, 200).get("lastSeen").asText();
        Thread.sleep(2000);
        assertTrue(admin.ready(), "the control plane is still ready without its agent");
        JsonNode orphan = admin.json("GET", "/api/v1/nodes/" + NODE, null, 200);
        assertEquals(lastSeen, orphan.get("lastSeen").asText(), "nothing reports for the node after its agent died");
        assertEquals(8, orphan.get("gpus").size());
        assertEquals("3g.40gb,3g.40gb", migProfiles(orphan, gpu), "the last reported MIG layout is kept");
        assertEquals(job.get("placement").asText(), admin.json("GET", "/api/v1/jobs/" + jobId, null, 200).get("placement").asText());

        // more work while the agent is gone, then SIGKILL the control plane: after a restart on the same data dir no job is lost
        for (int i = 0; i < 20; i++) {
            admin.json("POST", "/api/v1/jobs", "{\"name\":\"batch-" + i + "\",\"team\":\"e2e\",\"class\":\"BATCH_INFERENCE\","
                    + "\"perReplica\":{\"gpus\":1},\"durationEstimateSeconds\":3600}", 201);
        }
        Map<String, String> before = states(admin);
        assertEquals(21, before.size());
        assertEquals(137, Horizon.kill9(controlPlane));
        controlPlane = Horizon.controlPlane(dir, port, ADMIN);
        admin.reconnect();
        await("the restarted control plane's readiness", 90, dir, admin::ready, Boolean::booleanValue);
        Map<String, String> after = states(admin);
        assertEquals(before.keySet(), after.keySet(), "every job is back");
        assertEquals("RUNNING", after.get(jobId), "the running job is still running");
        assertEquals(8, admin.json("GET", "/api/v1/nodes/" + NODE, null, 200).get("gpus").size(), "the node is back from the store");
    }

    private static Map<String, String> states(Horizon.Rest admin) throws Exception {
        Map<String, String> out = new TreeMap<>();
        admin.json("GET", "/api/v1/jobs?limit=10000", null, 200).forEach(j -> out.put(j.get("id").asText(), j.get("state").asText()));
        return out;
    }

    private static JsonNode gpuOf(JsonNode node, String uuid) {
        return StreamSupport.stream(node.path("gpus").spliterator(), false).filter(g -> uuid.equals(g.path("uuid").asText())).findFirst()
                .orElseThrow(() -> new AssertionError("no GPU " + uuid + " in " + node));
    }

    private static String migProfiles(JsonNode node, String uuid) {
        return String.join(",", StreamSupport.stream(gpuOf(node, uuid).path("migDevices").spliterator(), false)
                .map(m -> m.path("profile").asText()).sorted().toList());
    }
}
