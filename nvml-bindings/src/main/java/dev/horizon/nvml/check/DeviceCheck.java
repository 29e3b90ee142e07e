package dev.horizon.nvml.check;

import dev.horizon.nvml.DriverInfo;
import dev.horizon.nvml.GpuInstanceProfile;
import dev.horizon.nvml.GpuReading;
import dev.horizon.nvml.NvmlSession;
import dev.horizon.nvml.smi.Json;
import dev.horizon.nvml.smi.SmiJson;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The real-driver check (tests/device/run.sh): every NVML call the agent makes, read-only, on every GPU; then, only as
 * root and with HORIZON_ALLOW_MIG_CHANGES=1, one MIG enable/create/destroy cycle that leaves the GPU as it was. It prints
 * one JSON report (driver, NVML and CUDA versions; each step with each NVML call by name, its answer and its timing)
 * and writes it to --report FILE. A call that fails is reported and the check goes on.
 *
 * <p>Exit status: 0 when every step ran, 3 when some failed (the report says which), 1 when NVML could not be opened
 * (the report says why), 2 for bad arguments.
 */
public final class DeviceCheck {
    static final int OK = 0;
    static final int NO_NVML = 1;
    static final int USAGE = 2;
    static final int FAILED_STEPS = 3;

    private final CallLog log = new CallLog();
    private final Steps steps = new Steps(log);
    private final Map<String, Object> report = new LinkedHashMap<>();
    /** Each GPU's MIG profiles as read, by index, for its entry in the report's gpus. */
    private final Map<Integer, List<GpuInstanceProfile>> migProfiles = new HashMap<>();

    private DeviceCheck() {}

    public static void main(String[] args) {
        System.exit(run(args, System.getenv(), System.out, System.err));
    }

    static int run(String[] args, Map<String, String> env, PrintStream out, PrintStream err) {
        return run(args, env, uid(), out, err);
    }

    /** As run by main, for a caller that says which uid the check runs as. */
    static int run(String[] args, Map<String, String> env, int uid, PrintStream out, PrintStream err) {
        Path reportFile = null;
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--report") && i + 1 < args.length) {
                reportFile = Path.of(args[++i]);
            } else {
                err.println("horizon device-check: unknown argument '" + args[i] + "'; usage: run.sh [--report FILE]");
                return USAGE;
            }
        }
        DeviceCheck check = new DeviceCheck();
        int status = check.check("1".equals(env.get("HORIZON_ALLOW_MIG_CHANGES")), uid);
        String json = Json.write(check.report);
        out.println(json);
        if (reportFile != null) {
            try {
                Files.writeString(reportFile, json + "\n", StandardCharsets.UTF_8);
                err.println("horizon device-check: report written to " + reportFile);
            } catch (IOException e) {
                err.println("horizon device-check: cannot write the report to " + reportFile + ": " + e.getMessage());
            }
        }
        return status;
    }

    private int check(boolean migChangesAllowed, int uid) {
        report.put("check", "horizon device-check 1");
        report.put("startedAt", Instant.now().toString());
        report.put("host", hostName());
        report.put("uid", uid);
        NvmlSession nvml = steps.run("nvmlInit", () -> NvmlSession.open(log));
        if (nvml != null) {
            readOnly(nvml, migChangesAllowed, uid);
        }
        report.put("steps", steps.done());
        report.put("summary", summary());
        if (nvml == null) return NO_NVML;
        return steps.failed().isEmpty() ? OK : FAILED_STEPS;
    }

    private void readOnly(NvmlSession nvml, boolean migChangesAllowed, int uid) {
        DriverInfo driver = steps.run("driver, NVML and CUDA versions", nvml::driver);
        report.put("driver", SmiJson.tree(driver));
        Integer count = steps.run("device count", nvml::deviceCount);
        List<GpuReading> gpus = new ArrayList<>();
        List<Map<String, Object>> described = new ArrayList<>();
        for (int i = 0; count != null && i < count; i++) {
            GpuReading gpu = readGpu(nvml, i);
            if (gpu != null) gpus.add(gpu);
            described.add(gpu != null ? describe(gpu, migProfiles.getOrDefault(i, List.of()))
                    : Map.of("index", i, "unreadable", "see the step gpu " + i + ": inventory"));
        }
        report.put("gpus", described);
        steps.run("Xid event wait", () -> {
            try (NvmlSession.XidWatch watch = nvml.watchXid()) {
                return watch.next(Duration.ZERO).orElse(null);
            }
        });
        report.put("migCycle", new MigCycle(nvml, steps).run(migChangesAllowed, uid, gpus));
        steps.act("nvmlShutdown", nvml::close);
    }

    /** Every read the agent makes of one GPU, each its own step. */
    private GpuReading readGpu(NvmlSession nvml, int i) {
        String p = "gpu " + i + ": ";
        GpuReading gpu = steps.run(p + "inventory (name, UUID, PCI, memory, temperature, power, ECC, MIG mode)", () -> nvml.gpu(i));
        steps.run(p + "memory", () -> nvml.memory(i));
        steps.run(p + "utilization", () -> nvml.utilization(i));
        steps.run(p + "temperature", () -> nvml.temperatureC(i));
        steps.run(p + "power", () -> nvml.powerDrawMilliwatts(i));
        steps.run(p + "compute processes", () -> nvml.processes(i));
        List<GpuInstanceProfile> profiles = steps.run(p + "MIG profiles, placements, remaining capacity", () -> nvml.migProfiles(i));
        if (profiles != null) migProfiles.put(i, profiles);
        steps.run(p + "max MIG device count", () -> nvml.maxMigDeviceCount(i));
        if (gpu == null) return null;
        steps.run(p + "by UUID", () -> nvml.gpuByUuid(gpu.uuid()));
        if (gpu.migMode() != null) {
            steps.run(p + "GPU instances", () -> nvml.gpuInstances(i));
            steps.run(p + "MIG devices", () -> nvml.migDevices(i));
        }
        return gpu;
    }

    /**
     * The GPU, with its MIG profiles as the driver lists them (as `nvidia-smi mig -lgip` and `-lgipp` do): what the
     * simulated driver's table of the model (nvml-bindings/src/main/c/sim_models.c) is checked against.
     */
    private static Map<String, Object> describe(GpuReading gpu, List<GpuInstanceProfile> profiles) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("index", gpu.index());
        out.put("name", gpu.name());
        out.put("uuid", gpu.uuid());
        out.put("memoryMiB", gpu.memory() == null ? null : gpu.memory().totalMiB());
        out.put("migMode", gpu.migMode() == null ? "unsupported" : gpu.migMode().current() ? "enabled" : "disabled");
        out.put("migProfiles", SmiJson.tree(profiles));
        return out;
    }

    private Map<String, Object> summary() {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("ok", steps.failed().isEmpty());
        out.put("steps", steps.done().size());
        out.put("failedSteps", steps.failed());
        out.put("nvmlCalls", log.total());
        out.put("callsNotSucceeding", log.unsuccessful());
        return out;
    }

    /** The real uid from /proc/self/status; -1 where it cannot be read. */
    static int uid() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("Uid:")) return Integer.parseInt(line.substring(4).strip().split("\\s+")[0]);
            }
        } catch (IOException | RuntimeException e) {
            return -1;
        }
        return -1;
    }

    private static String hostName() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (IOException e) {
            return System.getenv().getOrDefault("HOSTNAME", "unknown");
        }
    }
}
