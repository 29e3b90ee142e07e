package dev.horizon.tests;

import static dev.horizon.tests.Horizon.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.Test;

/**
 * The agent's must-show over real processes: the packaged control plane and one packaged agent on the simulated driver
 * (8 x H100). The agent registers, its telemetry shows in the control plane's REST API, a MIG layout queued for the node
 * is what NVML shows afterwards (read by `horizon smi --json`, a process of its own), and a process over its memory
 * share is reported to the control plane, in the node's view, the job's explanation and the metrics.
 */
class AgentOverProcessesIT extends OverProcesses {
    private static final String ADMIN = "agent-it-admin";
    private static final String NODE = "agent-it-node";
    /** A quarter of an H100-80GB's 81559 MiB: the share of one of four time-slicing replicas. */
    private static final long QUARTER_MIB = 81559 / 4;

    @Test
    void registersReportsAppliesAMigLayoutAndReportsAProcessOverItsMemoryShare() throws Exception {
        Horizon.ControlPlane controlPlane = controlPlane(ADMIN);
        Horizon.Rest admin = controlPlane.admin();
        agent(controlPlane, NODE);

        // registers: 8 H100s, as NVML names them
        JsonNode node = await("the agent's node registering with 8 GPUs", 90, dir, () -> admin.json("GET", "/api/v1/nodes/" + NODE, null, 200),
                n -> n.path("gpus").size() == 8 && "agent".equals(n.path("source").asText()));
        assertEquals("HEALTHY", node.get("health").asText());
        for (JsonNode g : node.get("gpus")) assertEquals("H100-80GB", g.get("model").asText(), g.toString());

        // telemetry: a process the driver reports on GPU 3 shows in the control plane with its memory
        Horizon.sim(dir, NODE, "process gpu=3 pid=31337 mem=4096 name=warmup.py");
        JsonNode reported = await("GPU 3's process in the control plane's telemetry", 30, dir,
                () -> gpu(admin.json("GET", "/api/v1/nodes/" + NODE, null, 200), 3),
                g -> g.path("processes").size() == 1 && g.path("memoryUsedMiB").asLong() >= 4096);
        assertEquals(31337, reported.get("processes").get(0).get("pid").asLong());
        assertEquals("warmup.py", reported.get("processes").get(0).get("name").asText());
        assertTrue(reported.get("utilization").isNumber(), "utilization is reported without MIG: " + reported);
        Horizon.sim(dir, NODE, "process-exit pid=31337");

        // a MIG layout queued for GPU 7 is what NVML shows afterwards, and the agent re-registers with its MIG devices
        String gpu7 = node.get("gpus").get(7).get("uuid").asText();
        admin.json("POST", "/api/v1/nodes/" + NODE + "/commands", "{\"applyMigLayout\":{\"gpuUuid\":\"" + gpu7
                + "\",\"slots\":[{\"profile\":\"4g.40gb\",\"start\":0},{\"profile\":\"3g.40gb\",\"start\":4}]}}", 201);
        JsonNode migNode = await("the MIG layout SUCCEEDED and re-registered", 60, dir, () -> admin.json("GET", "/api/v1/nodes/" + NODE, null, 200),
                n -> "SUCCEEDED".equals(n.path("commands").path(0).path("state").asText()) && gpu(n, 7).path("migDevices").size() == 2);
        assertEquals("ENABLED", gpu(migNode, 7).get("migMode").asText());
        JsonNode nvml = Horizon.smi(dir, NODE).get("gpus").get(7);
        assertEquals(gpu7, nvml.get("uuid").asText());
        assertEquals(List.of("3g.40gb", "4g.40gb"), sorted(nvml.get("migDevices"), "profile"), "NVML's MIG devices: " + nvml);
        assertEquals(sorted(nvml.get("migDevices"), "uuid"), sorted(gpu(migNode, 7).get("migDevices"), "uuid"),
                "the control plane knows the MIG device UUIDs NVML gives CUDA_VISIBLE_DEVICES");

        // a job runs on one GPU, shared four ways by time-slicing; a process there taking 30000 MiB is over its quarter
        admin.json("POST", "/api/v1/teams", "{\"name\":\"it\",\"share\":1.0}", 201);
        String jobId = admin.json("POST", "/api/v1/jobs", "{\"name\":\"notebook\",\"team\":\"it\",\"class\":\"INTERACTIVE\","
                + "\"perReplica\":{\"gpus\":1},\"durationEstimateSeconds\":3600}", 201).get("id").asText();
        JsonNode job = await("the job running on " + NODE, 30, dir, () -> admin.json("GET", "/api/v1/jobs/" + jobId, null, 200),
                j -> "RUNNING".equals(j.path("state").asText()));
        int held = Integer.parseInt(job.get("placement").asText().replaceAll(".*\\[(\\d+)-\\d+\\]", "$1"));
        String heldUuid = node.get("gpus").get(held).get("uuid").asText();
        admin.json("POST", "/api/v1/nodes/" + NODE + "/commands", "{\"setSharing\":{\"gpuUuid\":\"" + heldUuid
                + "\",\"mode\":\"TIME_SLICING\",\"replicas\":4}}", 201);
        await("the sharing command SUCCEEDED", 30, dir, () -> admin.json("GET", "/api/v1/nodes/" + NODE, null, 200),
                n -> "SUCCEEDED".equals(n.path("commands").path(0).path("state").asText()));
        Horizon.sim(dir, NODE, "process gpu=" + held + " pid=4242 mem=30000 name=hog.py");
        JsonNode violation = await("the memory guard's report in the node's view", 30, dir,
                () -> admin.json("GET", "/api/v1/nodes/" + NODE, null, 200).path("memoryViolations"), v -> v.size() == 1).get(0);
        assertEquals(4242, violation.get("pid").asLong());
        assertEquals(heldUuid, violation.get("gpuUuid").asText());
        assertEquals(30000, violation.get("usedMiB").asLong());
        assertEquals(QUARTER_MIB, violation.get("allowedMiB").asLong());
        assertEquals("REPORTED", violation.get("action").asText());
        assertEquals("hog.py", violation.get("processName").asText());
        assertEquals(jobId, violation.get("job").asText(), "matched to the job holding the GPU");

        JsonNode explanation = admin.json("GET", "/api/v1/jobs/" + jobId + "/explanation", null, 200);
        assertEquals(4242, explanation.path("memoryViolations").path(0).path("pid").asLong(), explanation.toString());
        String metrics = admin.metrics();
        assertTrue(metrics.lines().anyMatch(l -> l.startsWith("horizon_memory_violations_total{") && l.contains("node=\"" + NODE + "\"")
                && l.contains("action=\"REPORTED\"") && l.endsWith(" 1.0")), "the violation is counted in /q/metrics");
    }

    private static JsonNode gpu(JsonNode node, int index) {
        return StreamSupport.stream(node.path("gpus").spliterator(), false).filter(g -> g.path("index").asInt() == index).findFirst()
                .orElseThrow(() -> new AssertionError("no GPU " + index + " in " + node));
    }

    private static List<String> sorted(JsonNode list, String field) {
        return StreamSupport.stream(list.spliterator(), false).map(m -> m.path(field).asText()).sorted().toList();
    }
}
