package dev.horizon.nvml;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.horizon.nvml.TestDriver.Run;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** `horizon smi`: the table, the JSON, the MIG commands, and one clear line when something is wrong. */
class SmiCommandTest {
    private static final Map<String, String> SIM_ENV = Map.of("HORIZON_SIM_GPUS", "2xH100-80GB");

    @Test
    void helpDescribesTheCommands() {
        Run run = TestDriver.smi("--help");
        assertEquals(0, run.status());
        assertTrue(run.out().startsWith("Usage: horizon smi [--json] [--gpu N]"), run.out());
        assertTrue(run.out().contains("mig create --gpu N --profile PROFILE"), run.out());
    }

    @Test
    void tableListsEveryGpuTheBindingsSee() {
        TestDriver.resetIfSimulated();
        Run run = TestDriver.smi();
        assertEquals(0, run.status(), run.err());
        try (NvmlSession nvml = NvmlSession.open()) {
            for (GpuReading gpu : nvml.gpus()) {
                assertTrue(run.out().contains("| " + gpu.name() + " "), gpu.name());
                assertTrue(run.out().contains(gpu.uuid()), gpu.uuid());
                assertTrue(run.out().contains(" / " + gpu.memory().totalMiB() + "MiB"), "memory of GPU " + gpu.index());
            }
        }
    }

    @Test
    void simulatedTableShowsRealModelsAndTheirMemory() {
        TestDriver.freshSim();
        String out = TestDriver.smi().out();
        assertTrue(out.contains("Simulated driver: " + TestDriver.SIM_GPUS), out);
        assertEquals(2, count(out, "| NVIDIA H100 80GB HBM3 "), out);
        assertTrue(out.contains("0MiB / 81559MiB"), out);
        assertTrue(out.contains("| NVIDIA H200 ") && out.contains("0MiB / 143771MiB"), out);
        assertTrue(out.contains("| NVIDIA A100-SXM4-40GB ") && out.contains("0MiB / 40960MiB"), out);
        assertTrue(out.contains("No running processes found"), out);
    }

    @Test
    void migDevicesCreatedThroughTheFacadeShowWithProfilesAndUuids() {
        var sim = TestDriver.freshSim();
        MigDevice small;
        MigDevice large;
        try (NvmlSession nvml = NvmlSession.open()) {
            nvml.setMigMode(TestDriver.H100, true);
            small = nvml.createMigDevice(TestDriver.H100, "1g.10gb", null);
            large = nvml.createMigDevice(TestDriver.H100, "3g.40gb", null);
        }
        sim.command("process gpu=0 pid=4321 mem=1500 gi=" + large.gpuInstanceId() + " ci=0 name=vllm");

        Run run = TestDriver.smi("--gpu", "0");
        assertEquals(0, run.status(), run.err());
        String out = run.out();
        assertTrue(out.contains("MIG devices:"), out);
        assertTrue(line(out, small.uuid()).contains("| 1g.10gb ") && line(out, small.uuid()).contains("0MiB / 9984MiB"), out);
        assertTrue(line(out, large.uuid()).contains("| 3g.40gb ") && line(out, large.uuid()).contains("1500MiB / 40448MiB"), out);
        assertTrue(line(out, "| vllm ").contains("| 4321 |"), out);
        assertFalse(out.contains("NVIDIA H200"), "--gpu 0 shows GPU 0 only");

        Map<String, Object> json = MiniJson.object(MiniJson.parse(TestDriver.smi("--json", "--gpu", "0").out()));
        Map<String, Object> gpu = MiniJson.object(MiniJson.array(json.get("gpus")).get(0));
        assertEquals("NVIDIA H100 80GB HBM3", gpu.get("name"));
        assertEquals(81559L * 1024 * 1024, MiniJson.object(gpu.get("memory")).get("totalBytes"));
        assertEquals(Boolean.TRUE, MiniJson.object(gpu.get("migMode")).get("current"));
        assertEquals(null, gpu.get("utilization"), "not reported while MIG is on");
        List<Object> migs = MiniJson.array(gpu.get("migDevices"));
        assertEquals(2, migs.size());
        Map<String, Object> first = MiniJson.object(migs.get(0));
        Map<String, Object> second = MiniJson.object(migs.get(1));
        assertEquals(List.of(large.uuid(), small.uuid()).stream().sorted().toList(),
                List.of((String) first.get("uuid"), (String) second.get("uuid")).stream().sorted().toList());
        Map<String, Object> process = MiniJson.object(MiniJson.array(gpu.get("processes")).get(0));
        assertEquals(4321L, process.get("pid"));
        assertEquals((long) large.gpuInstanceId(), process.get("gpuInstanceId"));
        assertEquals(true, MiniJson.object(json.get("driver")).get("simulated"));
    }

    @Test
    void migCommandsCreateAndDestroy() {
        TestDriver.freshSim();
        assertEquals(0, TestDriver.smi("mig", "enable", "--gpu", "1").status());
        Run profiles = TestDriver.smi("mig", "profiles", "--gpu", "1");
        assertTrue(line(profiles.out(), "MIG 3g.40gb").contains(" 2/2 |") && line(profiles.out(), "MIG 3g.40gb").contains("0:4 4:4"),
                profiles.out());

        Run created = TestDriver.smi("mig", "create", "--gpu", "1", "--profile", "3g.40gb", "--json");
        assertEquals(0, created.status(), created.err());
        Map<String, Object> device = MiniJson.object(MiniJson.parse(created.out()));
        assertEquals("3g.40gb", device.get("profile"));
        assertTrue(((String) device.get("uuid")).startsWith("MIG-"));
        assertTrue(line(TestDriver.smi("mig", "profiles", "--gpu", "1").out(), "MIG 3g.40gb").contains(" 1/2 |"));

        Run full = TestDriver.smi("mig", "create", "--gpu", "1", "--profile", "7g.80gb");
        assertEquals(1, full.status());
        assertEquals(1, full.errLines().size(), full.err());
        assertTrue(full.err().startsWith("horizon smi: nvmlDeviceCreateGpuInstance: NVML_ERROR_INSUFFICIENT_RESOURCES"), full.err());

        Run destroyed = TestDriver.smi("mig", "destroy", "--gpu", "1", "--uuid", (String) device.get("uuid"));
        assertEquals(0, destroyed.status(), destroyed.err());
        assertTrue(destroyed.out().contains("Destroyed GPU instance " + ((Long) device.get("gpuInstanceId"))), destroyed.out());
        assertFalse(TestDriver.smi().out().contains("MIG devices:"));
    }

    @Test
    void usageErrorsAreOneLine() {
        TestDriver.freshSim();
        TestDriver.smi("mig", "enable", "--gpu", "0");
        Run unknownProfile = TestDriver.smi("mig", "create", "--gpu", "0", "--profile", "2g.5gb");
        assertEquals(2, unknownProfile.status());
        assertEquals(List.of("horizon smi: unknown MIG profile \"2g.5gb\" for GPU 0 (NVIDIA H100 80GB HBM3); valid profiles:"
                + " 1g.10gb, 1g.10gb+me, 1g.20gb, 2g.20gb, 3g.40gb, 4g.40gb, 7g.80gb (see horizon smi --help)"),
                unknownProfile.errLines());
        for (String[] args : List.of(new String[] {"frobnicate"}, new String[] {"mig", "create", "--profile", "1g.10gb"},
                new String[] {"--gpu", "x"}, new String[] {"--gpu"}, new String[] {"--gpu", "9"})) {
            Run run = TestDriver.smi(args);
            assertEquals(2, run.status(), String.join(" ", args));
            assertEquals(1, run.errLines().size(), run.err());
            assertTrue(run.err().startsWith("horizon smi: "), run.err());
        }
    }

    @Test
    void aLostGpuShowsAsAnErrorRowNotACrash() {
        var sim = TestDriver.freshSim();
        sim.command("fault gpu=1 lost");
        Run run = TestDriver.smi();
        assertEquals(0, run.status(), run.err());
        assertTrue(line(run.out(), "|   1 |").contains("ERR! NVML_ERROR_GPU_IS_LOST"), run.out());
        assertTrue(run.out().contains("GPU 1: nvmlDeviceGetHandleByIndex_v2: NVML_ERROR_GPU_IS_LOST"), run.out());
        Map<String, Object> json = MiniJson.object(MiniJson.parse(TestDriver.smi("--json").out()));
        Map<String, Object> lost = MiniJson.object(MiniJson.array(json.get("gpus")).get(1));
        assertEquals("NVML_ERROR_GPU_IS_LOST", MiniJson.object(lost.get("error")).get("name"));
    }

    @Test
    void aMissingDriverLibraryIsOneClearLine() {
        Run run = TestDriver.smiProcess(Map.of(), List.of("-Dhorizon.nvml.library=nvidia-ml-not-installed"));
        assertEquals(1, run.status());
        assertEquals("", run.out());
        assertEquals(1, run.errLines().size(), run.err());
        String line = run.errLines().get(0);
        assertTrue(line.startsWith("horizon smi: load libnvidia-ml: NVML_ERROR_LIBRARY_NOT_FOUND (looked for"
                + " nvidia-ml-not-installed in jna.library.path="), line);
        assertTrue(line.contains("hint: install the NVIDIA driver") && line.contains("HORIZON_NVML_LIBRARY_PATH"), line);
        assertFalse(line.contains("Exception") || line.contains("\tat "), line);
    }

    @Test
    void anUnknownSimulatedModelNamesTheVariableAndTheKnownModels() {
        TestDriver.assumeSimulated();
        Run run = TestDriver.smiProcess(Map.of("HORIZON_SIM_GPUS", "2xH100-80GB,4xB300"), List.of());
        assertEquals(1, run.status());
        assertEquals(1, run.errLines().size(), run.err());
        assertTrue(run.err().contains("HORIZON_SIM_GPUS=\"2xH100-80GB,4xB300\": unknown GPU model \"B300\"; known models:"
                + " H100-80GB, H200-141GB, A100-80GB, A100-40GB"), run.err());
    }

    @Test
    void processesSharingAStateFileSeeTheSameGpus(@TempDir Path dir) throws IOException {
        TestDriver.assumeSimulated();
        Path state = dir.resolve("gpus.state");
        Map<String, String> env = new HashMap<>(SIM_ENV);
        env.put("HORIZON_SIM_STATE", state.toString());

        assertEquals(0, TestDriver.smiProcess(env, List.of(), "mig", "enable", "--gpu", "0").status());
        Run created = TestDriver.smiProcess(env, List.of(), "mig", "create", "--gpu", "0", "--profile", "1g.10gb", "--json");
        assertEquals(0, created.status(), created.err());
        String uuid = (String) MiniJson.object(MiniJson.parse(created.out())).get("uuid");
        assertTrue(Files.readString(state).contains("gi gpu=0 id=13 profile=19 start=6 size=1"), Files.readString(state));

        Files.writeString(state, Files.readString(state) + "fault gpu=1 lost\n");
        env.put("HORIZON_SIM_GPUS", null); // the state file alone is enough
        Run seen = TestDriver.smiProcess(env, List.of(), "--json");
        assertEquals(0, seen.status(), seen.err());
        List<Object> gpus = MiniJson.array(MiniJson.object(MiniJson.parse(seen.out())).get("gpus"));
        Map<String, Object> gpu0 = MiniJson.object(gpus.get(0));
        assertEquals(uuid, MiniJson.object(MiniJson.array(gpu0.get("migDevices")).get(0)).get("uuid"));
        assertEquals("NVML_ERROR_GPU_IS_LOST", MiniJson.object(MiniJson.object(gpus.get(1)).get("error")).get("name"));

        env.put("HORIZON_SIM_GPUS", "1xA100-40GB");
        Run mismatch = TestDriver.smiProcess(env, List.of());
        assertEquals(1, mismatch.status());
        assertEquals(1, mismatch.errLines().size(), mismatch.err());
        assertTrue(mismatch.err().contains("holds GPUs 2xH100-80GB but HORIZON_SIM_GPUS=1xA100-40GB; delete the file"), mismatch.err());
    }

    @Test
    void unprivilegedMigChangesSayWhatIsNeeded() {
        TestDriver.assumeSimulated();
        Map<String, String> env = new HashMap<>(SIM_ENV);
        env.put("HORIZON_SIM_UNPRIVILEGED", "1");
        Run run = TestDriver.smiProcess(env, List.of(), "mig", "enable", "--gpu", "0");
        assertEquals(1, run.status());
        assertEquals(List.of("horizon smi: nvmlDeviceSetMigMode: NVML_ERROR_NO_PERMISSION (Insufficient Permissions); hint:"
                + " changing MIG needs root or CAP_SYS_ADMIN: run the agent as root, or grant it CAP_SYS_ADMIN and access"
                + " to /dev/nvidia-caps"), run.errLines());
    }

    @Test
    void faultsFromTheEnvironmentAndXidEvents() {
        TestDriver.assumeSimulated();
        Map<String, String> env = new HashMap<>(SIM_ENV);
        env.put("HORIZON_SIM_FAULTS", "fault gpu=1 xid=79;fault gpu=0 fail=nvmlDeviceGetPowerUsage:NOT_SUPPORTED");
        Run events = TestDriver.smiProcess(env, List.of(), "events", "--timeout", "1");
        assertEquals(0, events.status(), events.err());
        assertEquals("GPU 1: Xid 79\n", events.out());
        Run table = TestDriver.smiProcess(env, List.of());
        assertTrue(line(table.out(), "|   0 |").contains(" N/A |"), table.out());
    }

    private static String line(String text, String containing) {
        return text.lines().filter(l -> l.contains(containing)).findFirst().orElse("<no line with " + containing + ">");
    }

    private static int count(String text, String what) {
        int n = 0;
        for (int i = text.indexOf(what); i >= 0; i = text.indexOf(what, i + 1)) n++;
        return n;
    }
}
