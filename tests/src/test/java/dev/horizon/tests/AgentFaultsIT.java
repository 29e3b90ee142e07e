package dev.horizon.tests;

import static dev.horizon.tests.Horizon.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.Test;

/**
 * What a GPU host does to the cluster, over real processes: a GPU falls off the bus (injected through the simulated
 * driver), an agent is SIGKILLed, the control plane goes away under a working agent, and a bare-metal agent restarts
 * after its host rebooted.
 */
class AgentFaultsIT extends OverProcesses {
    private static final String ADMIN = "faults-it-admin";
    /** Short, so that a silent agent's node is lost within seconds; telemetry comes every 500 ms. */
    private static final int HEARTBEAT_TIMEOUT_SECONDS = 3;

    private Horizon.Rest admin;
    private int port;

    @Test
    void aLostGpuIsReportedAndItsJobIsTakenOffIt() throws Exception {
        String token = startControlPlane();
        processes.add(Horizon.agent(dir, "lost-gpu", Horizon.freePort(), port, token));
        awaitNode("lost-gpu");
        String job = submit("train", 1);
        JsonNode running = awaitRunning(job);
        int held = firstGpu(running);
        String heldUuid = gpu(node("lost-gpu"), held).get("uuid").asText();

        Horizon.sim(dir, "lost-gpu", "fault gpu=" + held + " lost");
        // the agent registers the GPU as LOST and sends the GPU_LOST event; either may arrive first
        JsonNode drained = await("GPU " + held + " LOST with its event, and the node drained", 30, dir, () -> node("lost-gpu"),
                n -> "LOST".equals(gpu(n, held).path("health").asText()) && gpu(n, held).path("lastEvent").asText().startsWith("gpu lost on GPU " + heldUuid)
                        && "UNHEALTHY".equals(n.path("health").asText()));
        assertTrue(drained.get("healthReason").asText().contains(heldUuid), "the node says which GPU: " + drained.get("healthReason"));
        JsonNode replanned = await("the job taken off the lost GPU", 30, dir, () -> admin.json("GET", "/api/v1/jobs/" + job, null, 200),
                j -> "PENDING".equals(j.path("state").asText()));
        assertEquals(1, replanned.get("preemptions").asInt());
        // the only node is drained, so the job waits (the next plan says what for) rather than landing on the broken node again
        JsonNode explanation = admin.json("GET", "/api/v1/jobs/" + job + "/explanation", null, 200);
        assertTrue(explanation.get("lastPreemption").asText().contains("GPU " + held + " of lost-gpu fell off the bus"), explanation.toString());
    }

    @Test
    void aKilledAgentsNodeIsLostWithinTheHeartbeatTimeoutAndItsJobMoves() throws Exception {
        String token = startControlPlane();
        Process a = Horizon.agent(dir, "node-a", Horizon.freePort(), port, token);
        Process b = Horizon.agent(dir, "node-b", Horizon.freePort(), port, token);
        processes.add(a);
        processes.add(b);
        awaitNode("node-a");
        awaitNode("node-b");
        String job = submit("train", 8);
        String placement = awaitRunning(job).get("placement").asText();
        String victim = placement.startsWith("node-a[") ? "node-a" : "node-b";
        String survivor = victim.equals("node-a") ? "node-b" : "node-a";

        assertEquals(137, Horizon.kill9(victim.equals("node-a") ? a : b));
        long killed = System.currentTimeMillis();
        JsonNode lost = await(victim + " LOST", HEARTBEAT_TIMEOUT_SECONDS + 10, dir, () -> node(victim), n -> "LOST".equals(n.path("health").asText()));
        long silentFor = System.currentTimeMillis() - Horizon.millis(lost, "lastSeen");
        assertTrue(silentFor >= HEARTBEAT_TIMEOUT_SECONDS * 1000L, "lost only after the timeout, silent for " + silentFor + " ms");
        // telemetry every 500 ms, the check every second, and this poll every 200 ms: within the timeout plus about 2 s
        assertTrue(System.currentTimeMillis() - killed < (HEARTBEAT_TIMEOUT_SECONDS + 4) * 1000L, "lost " + (System.currentTimeMillis() - killed)
                + " ms after the kill");
        JsonNode moved = await("the job running on " + survivor, 30, dir, () -> admin.json("GET", "/api/v1/jobs/" + job, null, 200),
                j -> "RUNNING".equals(j.path("state").asText()) && j.path("placement").asText().startsWith(survivor + "["));
        assertEquals(1, moved.get("preemptions").asInt());
        assertTrue(admin.json("GET", "/api/v1/jobs/" + job + "/explanation", null, 200).get("lastPreemption").asText().contains("node lost"));
        assertEquals("HEALTHY", node(survivor).get("health").asText());
    }

    @Test
    void withoutTheControlPlaneTheAgentKeepsItsLayoutAndCatchesUpAfter() throws Exception {
        String token = startControlPlane();
        int agentPort = Horizon.freePort();
        processes.add(Horizon.agent(dir, "cut-off", agentPort, port, token));
        JsonNode node = awaitNode("cut-off");
        String gpu5 = gpu(node, 5).get("uuid").asText();
        String gpu0 = gpu(node, 0).get("uuid").asText();
        command("cut-off", "{\"applyMigLayout\":{\"gpuUuid\":\"" + gpu5 + "\",\"slots\":[{\"profile\":\"3g.40gb\",\"start\":0},"
                + "{\"profile\":\"3g.40gb\",\"start\":4}]}}");
        command("cut-off", "{\"setSharing\":{\"gpuUuid\":\"" + gpu0 + "\",\"mode\":\"TIME_SLICING\",\"replicas\":2}}");
        await("both commands SUCCEEDED", 60, dir, () -> node("cut-off"), n -> StreamSupport.stream(n.path("commands").spliterator(), false)
                .filter(c -> "SUCCEEDED".equals(c.path("state").asText())).count() == 2 && gpu(n, 5).path("migDevices").size() == 2);
        List<String> layout = migUuids(Horizon.smi(dir, "cut-off"), 5);
        assertEquals(2, layout.size());

        Process controlPlane = processes.get(0);
        assertEquals(137, Horizon.kill9(controlPlane));
        long down = System.currentTimeMillis();
        await("the agent not ready without its control plane", 30, dir, () -> agentReady(agentPort), r -> !r);
        // while cut off: a process takes more than its half of GPU 0, and the agent must notice and keep the report
        Horizon.sim(dir, "cut-off", "process gpu=0 pid=5151 mem=50000 name=greedy.py");
        Thread.sleep(3000);
        assertEquals(layout, migUuids(Horizon.smi(dir, "cut-off"), 5), "the MIG layout is enforced as last applied, nothing torn down");
        assertTrue(processes.get(1).isAlive(), "the agent keeps running");

        processes.set(0, Horizon.controlPlane(dir, port, ADMIN, "-Dhorizon.agents.heartbeat-timeout-seconds=" + HEARTBEAT_TIMEOUT_SECONDS));
        admin.reconnect();
        await("the restarted control plane's readiness", 90, dir, admin::ready, Boolean::booleanValue);
        await("the agent ready again (reconnected)", 30, dir, () -> agentReady(agentPort), r -> r);
        // a re-registration replaces the GPUs' rows, so live telemetry (GPU 0's process) may take one more report to show
        JsonNode caughtUp = await("the violation seen while cut off, from the buffered telemetry, and live telemetry", 30, dir,
                () -> node("cut-off"), n -> n.path("memoryViolations").size() == 1 && Horizon.millis(n, "lastSeen") > down
                        && gpu(n, 0).path("processes").size() == 1);
        JsonNode violation = caughtUp.get("memoryViolations").get(0);
        assertEquals(5151, violation.get("pid").asLong());
        // the API gives times to the second
        assertTrue(Horizon.millis(violation, "observedAt") >= down / 1000 * 1000, "observed while the control plane was down: " + violation);
        assertEquals("HEALTHY", caughtUp.get("health").asText());
        assertEquals(layout, migUuids(caughtUp, 5), "the control plane sees the same MIG devices");
    }

    @Test
    void aRestartedBareMetalAgentStartsItsMpsDaemonAgainWithTheLimits() throws Exception {
        String token = startControlPlane();
        // no KUBERNETES_SERVICE_HOST (Horizon.agent removes it): AUTO picks MPS, here a stand-in on PATH that records its calls
        Map<String, String> bareMetal = Map.of("PATH", Horizon.ROOT.resolve("agent-native/src/test/resources/fake-mps") + ":" + System.getenv("PATH"));
        Process first = Horizon.agent(dir, "bare", Horizon.freePort(), port, token, bareMetal, "-Dhorizon.agent.sharing-backend=AUTO");
        processes.add(first);
        String gpu2 = gpu(awaitNode("bare"), 2).get("uuid").asText();
        command("bare", "{\"setSharing\":{\"gpuUuid\":\"" + gpu2 + "\",\"mode\":\"MPS\",\"replicas\":4,\"activeThreadPercentage\":25,"
                + "\"memoryLimitMiB\":16000}}");
        await("the MPS command SUCCEEDED", 30, dir, () -> node("bare"), n -> "SUCCEEDED".equals(n.path("commands").path(0).path("state").asText()));
        Path calls = dir.resolve("bare-state/mps/calls.txt");
        assertEquals(List.of("CALL -d " + gpu2, "STDIN set_default_active_thread_percentage 25", "STDIN set_default_device_pinned_mem_limit 0 16000M"),
                mpsStarts(Files.readAllLines(calls)));

        assertEquals(137, Horizon.kill9(first));
        // the host rebooted meanwhile: no MPS daemon serves the GPU any more
        Files.delete(dir.resolve("bare-state/mps/" + gpu2 + "/pipe/control"));
        int before = Files.readAllLines(calls).size();
        processes.add(Horizon.agent(dir, "bare", Horizon.freePort(), port, token, bareMetal, "-Dhorizon.agent.sharing-backend=AUTO"));
        await("the restarted agent starting GPU 2's MPS daemon with its limits", 60, dir,
                () -> mpsStarts(Files.readAllLines(calls).subList(before, Files.readAllLines(calls).size())), c -> c.size() == 3);
        // and its memory guard holds processes to the restored share
        Horizon.sim(dir, "bare", "process gpu=2 pid=6161 mem=20000 name=big.py");
        JsonNode violation = await("the violation against the restored 16000 MiB limit", 30, dir, () -> node("bare").path("memoryViolations"),
                v -> v.size() == 1).get(0);
        assertEquals(6161, violation.get("pid").asLong());
        assertEquals(16000, violation.get("allowedMiB").asLong());
        assertEquals("MPS x4, 16000 MiB each", violation.get("share").asText());
    }

    /** The calls that start a daemon and set limits, as "CALL -d GPU" and "STDIN command", without the liveness probes. */
    private static List<String> mpsStarts(List<String> calls) {
        return calls.stream().filter(c -> c.endsWith(" args=-d") || (c.startsWith("STDIN ") && !c.contains("get_default")))
                .map(c -> c.startsWith("CALL") ? "CALL -d " + c.replaceAll(".*visible=(\\S+).*", "$1") : c).toList();
    }

    /** A control plane with the short heartbeat timeout and team "it"; returns an agent token. */
    private String startControlPlane() throws Exception {
        Horizon.ControlPlane controlPlane = controlPlane(ADMIN, "-Dhorizon.agents.heartbeat-timeout-seconds=" + HEARTBEAT_TIMEOUT_SECONDS);
        port = controlPlane.port();
        admin = controlPlane.admin();
        admin.json("POST", "/api/v1/teams", "{\"name\":\"it\",\"share\":1.0}", 201);
        return controlPlane.agentToken();
    }

    private JsonNode awaitNode(String name) throws Exception {
        return await(name + " registering with 8 GPUs", 90, dir, () -> node(name), n -> n.path("gpus").size() == 8);
    }

    private JsonNode node(String name) throws Exception {
        return admin.json("GET", "/api/v1/nodes/" + name, null, 200);
    }

    private String submit(String name, int gpus) throws Exception {
        return admin.json("POST", "/api/v1/jobs", "{\"name\":\"" + name + "\",\"team\":\"it\",\"class\":\"TRAINING\",\"perReplica\":{\"gpus\":" + gpus
                + "},\"durationEstimateSeconds\":7200}", 201).get("id").asText();
    }

    private JsonNode awaitRunning(String job) throws Exception {
        return await("job " + job + " running", 30, dir, () -> admin.json("GET", "/api/v1/jobs/" + job, null, 200),
                j -> "RUNNING".equals(j.path("state").asText()));
    }

    private void command(String node, String body) throws Exception {
        admin.json("POST", "/api/v1/nodes/" + node + "/commands", body, 201);
    }

    private static boolean agentReady(int agentPort) throws Exception {
        HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + agentPort + "/q/health/ready"))
                .build(), HttpResponse.BodyHandlers.ofString());
        return r.statusCode() == 200;
    }

    private static int firstGpu(JsonNode job) {
        return Integer.parseInt(job.get("placement").asText().replaceAll(".*\\[(\\d+)-\\d+\\]", "$1"));
    }

    private static JsonNode gpu(JsonNode node, int index) {
        return StreamSupport.stream(node.path("gpus").spliterator(), false).filter(g -> g.path("index").asInt() == index).findFirst()
                .orElseThrow(() -> new AssertionError("no GPU " + index + " in " + node));
    }

    private static List<String> migUuids(JsonNode node, int index) {
        return StreamSupport.stream(gpu(node, index).path("migDevices").spliterator(), false).map(m -> m.path("uuid").asText()).sorted().toList();
    }
}
