package dev.horizon.agent;

import dev.horizon.agent.v1.GpuInventory;
import dev.horizon.agent.v1.GpuTelemetry;
import dev.horizon.agent.v1.Health;
import dev.horizon.agent.v1.HealthEvent;
import dev.horizon.agent.v1.Inventory;
import dev.horizon.agent.v1.MigMode;
import dev.horizon.agent.v1.TelemetryReport;
import dev.horizon.nvml.GpuReading;
import dev.horizon.nvml.GpuProcess;
import dev.horizon.nvml.MigDevice;
import dev.horizon.nvml.NvmlSession;
import dev.horizon.nvml.error.NvmlException;
import dev.horizon.nvml.error.NvmlGpuLostException;
import dev.horizon.nvml.error.NvmlPermissionException;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.jboss.logging.Logger;

/**
 * Reads the host's GPUs through NVML into the protocol's inventory and telemetry, and turns changes of
 * health (a GPU lost, uncorrectable ECC errors, Xids from the watcher) into health events, each sent once.
 */
@ApplicationScoped
public class HostReader {
    private static final Logger LOG = Logger.getLogger(HostReader.class);
    private static final long MIB = 1024L * 1024L;

    @Inject
    Nvml nvml;

    /** UUIDs by index as last read, so that a GPU that is lost can still be named. */
    private final Map<Integer, String> uuids = new ConcurrentHashMap<>();
    /**
     * Each GPU as last read, so that a lost GPU keeps its model and memory in the inventory: the control plane refuses
     * an inventory without them, and an agent re-registering after a reconnect must still be let in.
     */
    private final Map<Integer, GpuSnapshot> lastRead = new ConcurrentHashMap<>();
    private final Map<Integer, Health> lastHealth = new ConcurrentHashMap<>();
    private final Queue<HealthEvent> events = new ConcurrentLinkedQueue<>();

    /** Every GPU now; one that fails to read is reported as such instead of failing the others. */
    public List<GpuSnapshot> snapshot() {
        NvmlSession session = nvml.session();
        List<GpuSnapshot> gpus = new ArrayList<>();
        for (int i = 0, n = session.deviceCount(); i < n; i++) {
            GpuSnapshot gpu = read(session, i);
            noteHealth(gpu);
            gpus.add(gpu);
        }
        return gpus;
    }

    private GpuSnapshot read(NvmlSession session, int index) {
        try {
            GpuReading gpu = session.gpu(index);
            uuids.put(index, gpu.uuid());
            List<GpuProcess> processes = session.processes(index);
            try {
                List<MigDevice> mig = gpu.migEnabled() ? session.migDevices(index) : List.of();
                GpuSnapshot read = new GpuSnapshot(index, gpu.uuid(), gpu, processes, mig, Health.HEALTHY, null, null);
                if (read.memory() != null) lastRead.put(index, read);
                boolean eccTrouble = gpu.ecc() != null && gpu.ecc().needsAttention();
                if (!eccTrouble) return read;
                return new GpuSnapshot(index, gpu.uuid(), gpu, processes, mig, Health.UNHEALTHY,
                        "uncorrectable ECC errors or a pending memory repair", HealthEvent.Kind.ECC_UNCORRECTABLE);
            } catch (NvmlPermissionException e) {
                // Not root: the GPU reads, its MIG devices do not. The control plane must not plan on instances it cannot see.
                return new GpuSnapshot(index, gpu.uuid(), gpu, processes, List.of(), Health.UNHEALTHY, e.getMessage(), null);
            }
        } catch (NvmlGpuLostException e) {
            return new GpuSnapshot(index, uuids.getOrDefault(index, "GPU-index-" + index), null, List.of(), List.of(), Health.LOST,
                    e.getMessage(), HealthEvent.Kind.GPU_LOST);
        } catch (NvmlException e) {
            return new GpuSnapshot(index, uuids.getOrDefault(index, "GPU-index-" + index), null, List.of(), List.of(),
                    Health.UNHEALTHY, e.getMessage(), null);
        }
    }

    private void noteHealth(GpuSnapshot gpu) {
        Health before = lastHealth.put(gpu.index(), gpu.health());
        if (gpu.health() == before || gpu.health() == Health.HEALTHY) {
            if (before != null && before != Health.HEALTHY && gpu.health() == Health.HEALTHY) {
                LOG.infof("GPU %d (%s) is healthy again", gpu.index(), gpu.uuid());
            }
            return;
        }
        LOG.warnf("GPU %d (%s) is %s: %s", gpu.index(), gpu.uuid(), gpu.health(), gpu.problem());
        if (gpu.event() != null) {
            events.add(HealthEvent.newBuilder().setGpuUuid(gpu.uuid()).setKind(gpu.event()).setDetail(gpu.problem()).build());
        }
    }

    /** An Xid the watcher saw on GPU {@code index}; it goes out with the next report. */
    void xid(int index, long xid) {
        String uuid = uuids.getOrDefault(index, "GPU-index-" + index);
        LOG.warnf("Xid %d on GPU %d (%s)", xid, index, uuid);
        events.add(HealthEvent.newBuilder().setGpuUuid(uuid).setKind(HealthEvent.Kind.XID).setXid((int) xid)
                .setDetail("critical Xid " + xid + " reported by the driver").build());
    }

    public Inventory inventory(String nodeName, String nvlinkDomain, List<GpuSnapshot> gpus) {
        Inventory.Builder inv = Inventory.newBuilder().setNodeName(nodeName).setNvlinkDomain(nvlinkDomain);
        for (GpuSnapshot s : gpus) {
            GpuInventory.Builder g = GpuInventory.newBuilder().setIndex(s.index()).setUuid(s.uuid()).setHealth(s.health());
            if (s.problem() != null) g.setHealthReason(s.problem());
            GpuSnapshot known = s.memory() != null ? s : lastRead.get(s.index());
            if (known != null) {
                long totalMiB = known.memoryTotalMiB();
                String product = known.gpu().name();
                g.setModel(GpuModels.horizonName(product, totalMiB)).setProductName(product).setMemoryMib(totalMiB);
            }
            if (s.readable()) {
                g.setMigMode(migMode(s));
                s.migDevices().forEach(d -> g.addMigDevices(dev.horizon.agent.v1.MigDevice.newBuilder().setUuid(d.uuid())
                        .setProfile(d.profile()).setPlacementStart(d.placement().start()).setPlacementSize(d.placement().size())));
            }
            inv.addGpus(g);
        }
        return inv.build();
    }

    private static MigMode migMode(GpuSnapshot s) {
        if (s.gpu().migMode() == null) return MigMode.MIG_UNSUPPORTED;
        if (s.gpu().migMode().changePending()) return MigMode.MIG_PENDING;
        return s.gpu().migEnabled() ? MigMode.MIG_ENABLED : MigMode.MIG_DISABLED;
    }

    /** The report for these readings, carrying (and consuming) the health events seen since the last one. */
    public TelemetryReport telemetry(List<GpuSnapshot> gpus, long observedAtMs) {
        TelemetryReport.Builder report = TelemetryReport.newBuilder().setObservedAtMs(observedAtMs);
        for (GpuSnapshot s : gpus) {
            if (!s.readable()) continue;
            GpuTelemetry.Builder t = GpuTelemetry.newBuilder().setUuid(s.uuid());
            if (s.memory() != null) t.setMemoryUsedMib(s.memory().usedMiB());
            if (s.gpu().utilization() != null) t.setUtilizationPercent(s.gpu().utilization().gpuPercent());
            for (GpuProcess p : s.processes()) {
                t.addProcesses(dev.horizon.agent.v1.GpuProcess.newBuilder().setPid(p.pid())
                        .setUsedMemoryMib(p.usedMemoryBytes() == null ? 0 : p.usedMemoryBytes() / MIB)
                        .setName(p.name() == null ? "" : p.name()));
            }
            report.addGpus(t);
        }
        for (HealthEvent e; (e = events.poll()) != null; ) report.addEvents(e);
        return report.build();
    }
}
