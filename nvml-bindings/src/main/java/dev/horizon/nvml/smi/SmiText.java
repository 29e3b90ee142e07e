package dev.horizon.nvml.smi;

import dev.horizon.nvml.DriverInfo;
import dev.horizon.nvml.GpuReading;
import dev.horizon.nvml.GpuProcess;
import dev.horizon.nvml.MemoryInfo;
import dev.horizon.nvml.MigDevice;
import dev.horizon.nvml.MigMode;
import dev.horizon.nvml.GpuInstanceProfile;
import java.util.List;
import java.util.stream.Collectors;

/** The nvidia-smi-like tables of `horizon smi`. */
final class SmiText {
    private static final long MIB = 1024L * 1024L;

    private SmiText() {}

    static String render(SmiReport report) {
        StringBuilder out = new StringBuilder(header(report.driver()));
        TextTable gpus = TextTable.of(">GPU", "Name", "UUID", "Bus-Id", ">Memory-Usage", ">GPU-Util", ">Temp", ">Power",
                "MIG", ">Uncorr. ECC");
        TextTable migs = TextTable.of(">GPU", ">GI", ">CI", "Profile", "Placement", ">SMs", "UUID", ">Memory-Usage");
        TextTable processes = TextTable.of(">GPU", ">GI", ">CI", ">PID", "Process name", ">GPU Memory");
        StringBuilder errors = new StringBuilder();
        for (SmiReport.Entry entry : report.gpus()) {
            GpuReading gpu = entry.gpu();
            if (gpu == null) {
                gpus.row(entry.index(), "ERR! " + entry.error().errorName(), "", "", "", "", "", "", "", "");
                errors.append("GPU ").append(entry.index()).append(": ").append(entry.error().getMessage()).append('\n');
                continue;
            }
            gpus.row(gpu.index(), gpu.name(), gpu.uuid(), gpu.pciBusId(), memory(gpu.memory()),
                    gpu.utilization() == null ? null : gpu.utilization().gpuPercent() + "%",
                    gpu.temperatureC() == null ? null : gpu.temperatureC() + "C",
                    power(gpu), mig(gpu.migMode()), gpu.ecc().uncorrectedErrors());
            for (MigDevice m : entry.migDevices()) {
                migs.row(m.gpuIndex(), m.gpuInstanceId(), m.computeInstanceId(), m.profile(), m.placement(),
                        m.multiprocessorCount(), m.uuid(), memory(m.memory()));
            }
            for (GpuProcess p : entry.processes()) {
                processes.row(entry.index(), dash(p.gpuInstanceId()), dash(p.computeInstanceId()), p.pid(),
                        p.name(), p.usedMemoryBytes() == null ? null : p.usedMemoryBytes() / MIB + "MiB");
            }
        }
        out.append(gpus.render()).append(errors);
        if (!migs.isEmpty()) out.append("\nMIG devices:\n").append(migs.render());
        out.append("\nProcesses:\n");
        out.append(processes.isEmpty() ? "  No running processes found\n" : processes.render());
        return out.toString();
    }

    static String profiles(int gpu, List<GpuInstanceProfile> profiles) {
        TextTable table = TextTable.of(">GPU", "Profile", ">ID", ">Free/Total", ">Memory", ">SMs", ">CE", ">DEC", ">ENC",
                ">JPEG", ">OFA", "Placements (start:size)");
        for (GpuInstanceProfile p : profiles) {
            table.row(gpu, "MIG " + p.name(), p.profileId(), p.remainingCapacity() + "/" + p.instanceCount(),
                    p.memoryMiB() + "MiB", p.multiprocessorCount(), p.copyEngines(), p.decoders(), p.encoders(),
                    p.jpegEngines(), p.ofaEngines(),
                    p.placements().stream().map(Object::toString).collect(Collectors.joining(" ")));
        }
        return "GPU instance profiles:\n" + table.render();
    }

    private static String header(DriverInfo driver) {
        StringBuilder out = new StringBuilder("Horizon SMI    Driver Version: ").append(driver.driverVersion())
                .append("    NVML Version: ").append(driver.nvmlVersion())
                .append("    CUDA Version: ").append(driver.cudaDriverVersion() == null ? "N/A" : driver.cudaDriverVersion())
                .append('\n');
        if (driver.simulated()) {
            out.append("Simulated driver: ").append(driver.simulation()).append(" (").append(driver.libraryFile()).append(")\n");
        }
        return out.toString();
    }

    private static String memory(MemoryInfo m) {
        if (m == null) return "not visible"; // the driver refuses it, e.g. in a container that sees only MIG devices
        return m.usedMiB() + "MiB / " + m.totalMiB() + "MiB";
    }

    private static String power(GpuReading gpu) {
        if (gpu.powerDrawMilliwatts() == null) return null;
        String draw = gpu.powerDrawMilliwatts() / 1000 + "W";
        return gpu.powerLimitMilliwatts() == null ? draw : draw + " / " + gpu.powerLimitMilliwatts() / 1000 + "W";
    }

    private static String mig(MigMode mode) {
        if (mode == null) return null;
        String current = mode.current() ? "Enabled" : "Disabled";
        return mode.changePending() ? current + " (pending " + (mode.pending() ? "Enabled" : "Disabled") + ")" : current;
    }

    private static Object dash(Integer id) {
        return id == null ? "-" : id;
    }
}
