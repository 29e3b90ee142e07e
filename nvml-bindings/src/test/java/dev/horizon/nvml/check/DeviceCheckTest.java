package dev.horizon.nvml.check;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import dev.horizon.nvml.MiniJson;
import dev.horizon.nvml.NvmlSession;
import dev.horizon.nvml.sim.SimulatedDriver;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The device check on the simulated driver (surefire's five GPUs): what it reads, what it reports, what it changes. */
class DeviceCheckTest {
    @TempDir
    Path dir;
    private SimulatedDriver sim;

    @BeforeEach
    void freshSimulator() {
        assumeFalse("1".equals(System.getenv("HORIZON_NVML_REAL")), "needs the simulated driver");
        sim = SimulatedDriver.require();
        sim.command("reset");
    }

    private record Result(int status, Map<String, Object> report, String stdout) {}

    private Result check(Map<String, String> env, int uid) throws Exception {
        Path file = dir.resolve("report.json");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int status = DeviceCheck.run(new String[] {"--report", file.toString()}, env, uid,
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
        String printed = out.toString(StandardCharsets.UTF_8);
        assertEquals(printed, Files.readString(file), "the report printed is the report written");
        return new Result(status, MiniJson.object(MiniJson.parse(printed)), printed);
    }

    private static Map<String, Object> step(Map<String, Object> report, String name) {
        return MiniJson.array(report.get("steps")).stream().map(MiniJson::object).filter(s -> name.equals(s.get("step"))).findFirst()
                .orElseThrow(() -> new AssertionError("no step " + name));
    }

    private static List<String> functions(Map<String, Object> step) {
        return MiniJson.array(step.get("calls")).stream().map(c -> (String) MiniJson.object(c).get("function")).toList();
    }

    @Test
    void readsEveryGpuAndReportsEachCallByName() throws Exception {
        Result r = check(Map.of(), 0);
        assertEquals(DeviceCheck.OK, r.status(), r.stdout());
        assertEquals("550.90.07", MiniJson.object(r.report().get("driver")).get("driverVersion"));
        assertEquals("12.4", MiniJson.object(r.report().get("driver")).get("cudaDriverVersion"));
        assertEquals(5, MiniJson.array(r.report().get("gpus")).size());
        // each GPU's MIG profiles as the driver lists them, to hold the simulated driver's table against a real card's
        List<Map<String, Object>> profiles = MiniJson.array(MiniJson.object(MiniJson.array(r.report().get("gpus")).get(0)).get("migProfiles"))
                .stream().map(MiniJson::object).toList();
        assertEquals(7, profiles.size(), profiles.toString());
        Map<String, Object> whole = profiles.get(profiles.size() - 1);
        assertEquals(7, ((Number) whole.get("sliceCount")).intValue(), whole.toString());
        assertTrue(((String) whole.get("name")).startsWith("7g."), whole.toString());
        assertEquals(Map.of("start", 0L, "size", 8L), MiniJson.object(MiniJson.array(whole.get("placements")).get(0)), whole.toString());
        assertEquals(7, MiniJson.array(profiles.get(0).get("placements")).size(), profiles.get(0).toString());
        assertTrue(functions(step(r.report(), "gpu 0: MIG profiles, placements, remaining capacity"))
                .containsAll(List.of("nvmlDeviceGetGpuInstanceProfileInfoV", "nvmlDeviceGetGpuInstancePossiblePlacements_v2")));
        assertTrue(functions(step(r.report(), "gpu 3: temperature")).contains("nvmlDeviceGetTemperatureV"));
        Map<String, Object> call = MiniJson.object(MiniJson.array(step(r.report(), "device count").get("calls")).get(0));
        assertEquals("NVML_SUCCESS", call.get("result"));
        assertTrue(call.containsKey("totalMs") && call.containsKey("maxMs"), call.toString());
        Map<String, Object> cycle = MiniJson.object(r.report().get("migCycle"));
        assertEquals(false, cycle.get("ran"));
        assertTrue(((String) cycle.get("reason")).contains("HORIZON_ALLOW_MIG_CHANGES=1"), cycle.toString());
    }

    @Test
    void aFailingCallIsReportedByNameAndTheCheckGoesOn() throws Exception {
        sim.command("fault gpu=1 fail=nvmlDeviceGetPowerUsage:UNKNOWN");
        sim.command("fault fail=nvmlEventSetCreate:NO_PERMISSION");
        Result r = check(Map.of(), 0);
        assertEquals(DeviceCheck.FAILED_STEPS, r.status());
        Map<String, Object> summary = MiniJson.object(r.report().get("summary"));
        assertEquals(false, summary.get("ok"));
        List<Object> failed = MiniJson.array(summary.get("failedSteps"));
        assertTrue(failed.stream().anyMatch(f -> ((String) f).startsWith("gpu 1: power: nvmlDeviceGetPowerUsage: NVML_ERROR_UNKNOWN")), failed.toString());
        assertTrue(failed.stream().anyMatch(f -> ((String) f).contains("nvmlEventSetCreate: NVML_ERROR_NO_PERMISSION")), failed.toString());
        assertEquals("ok", step(r.report(), "gpu 2: power").get("outcome"), "the GPUs after it are still read");
        assertEquals("ok", step(r.report(), "nvmlShutdown").get("outcome"));
        assertTrue(MiniJson.object(summary.get("callsNotSucceeding")).containsKey("nvmlDeviceGetPowerUsage NVML_ERROR_UNKNOWN"));
    }

    @Test
    void asRootWithMigChangesAllowedOneCycleLeavesTheGpuAsItWas() throws Exception {
        Result r = check(Map.of("HORIZON_ALLOW_MIG_CHANGES", "1"), 0);
        assertEquals(DeviceCheck.OK, r.status(), r.stdout());
        Map<String, Object> cycle = MiniJson.object(r.report().get("migCycle"));
        assertEquals(true, cycle.get("ran"), cycle.toString());
        assertEquals(0L, ((Number) cycle.get("gpu")).longValue());
        assertEquals("1g.10gb", cycle.get("profile"));
        assertTrue(((String) cycle.get("created")).startsWith("MIG-"), cycle.toString());
        assertEquals(true, cycle.get("restored"));
        assertTrue(functions(step(r.report(), "gpu 0: create MIG device 1g.10gb"))
                .containsAll(List.of("nvmlDeviceCreateGpuInstance", "nvmlGpuInstanceCreateComputeInstance")));
        try (NvmlSession nvml = NvmlSession.open()) {
            assertFalse(nvml.migMode(0).current(), "MIG is off again, as the check found it");
        }
    }

    @Test
    void withoutRootTheMigCycleDoesNotRun() throws Exception {
        Map<String, Object> cycle = MiniJson.object(check(Map.of("HORIZON_ALLOW_MIG_CHANGES", "1"), 1000).report().get("migCycle"));
        assertEquals(false, cycle.get("ran"));
        assertTrue(((String) cycle.get("reason")).contains("not root (uid 1000)"), cycle.toString());
    }
}
