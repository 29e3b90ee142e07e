package dev.horizon.agent;

import dev.horizon.agent.v1.SetSharing;
import dev.horizon.nvml.Gpu;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.jboss.logging.Logger;

/**
 * How each GPU is shared, written as the NVIDIA device plugin's sharing config (version v1,
 * sharing.timeSlicing / sharing.mps, one resource entry per GPU UUID) so the node's plugin advertises the
 * replicas. The memory guard reads each GPU's share from here.
 */
@ApplicationScoped
public class Sharing {
    private static final Logger LOG = Logger.getLogger(Sharing.class);
    /** The device plugin's limits: MPS serves at most 48 clients per GPU; time-slicing has no hard cap, we keep it sane. */
    private static final int MAX_MPS_CLIENTS = 48;
    private static final int MAX_TIME_SLICES = 64;

    /** One GPU's share: what each of {@code replicas} processes may use. */
    public record Share(SetSharing.Mode mode, int replicas, int activeThreadPercentage, long memoryLimitMiB, long gpuMemoryMiB) {
        /** The GPU memory one process may hold. */
        long allowedMiB() {
            return memoryLimitMiB > 0 ? memoryLimitMiB : gpuMemoryMiB / replicas;
        }

        String describe() {
            return mode + " x" + replicas + (memoryLimitMiB > 0 ? ", " + memoryLimitMiB + " MiB each" : "");
        }
    }

    @Inject
    Nvml nvml;
    @Inject
    AgentConfig config;

    private final Map<String, Share> shares = new TreeMap<>();

    /** Checks the request against the GPU, then records it and rewrites the config file. */
    public synchronized void apply(SetSharing request) {
        Gpu gpu = nvml.session().gpuByUuid(request.getGpuUuid());
        Share share = check(request, gpu.memory().totalMiB());
        Map<String, Share> next = new TreeMap<>(shares);
        if (share == null) next.remove(gpu.uuid());
        else next.put(gpu.uuid(), share);
        write(next);
        shares.clear();
        shares.putAll(next);
        LOG.infof("GPU %s sharing: %s (written to %s)", gpu.uuid(), share == null ? "exclusive" : share.describe(), config.sharingConfig());
    }

    public synchronized Optional<Share> of(String gpuUuid) {
        return Optional.ofNullable(shares.get(gpuUuid));
    }

    /** The share to record, null for EXCLUSIVE (no sharing). */
    private static Share check(SetSharing r, long gpuMemoryMiB) {
        switch (r.getMode()) {
            case EXCLUSIVE:
                return null;
            case TIME_SLICING:
                if (r.getReplicas() < 2 || r.getReplicas() > MAX_TIME_SLICES) {
                    throw new CommandFailure("time-slicing needs 2 to " + MAX_TIME_SLICES + " replicas (got " + r.getReplicas()
                            + "); use EXCLUSIVE for an unshared GPU");
                }
                return new Share(r.getMode(), r.getReplicas(), 0, 0, gpuMemoryMiB);
            case MPS:
                if (r.getReplicas() < 2 || r.getReplicas() > MAX_MPS_CLIENTS) {
                    throw new CommandFailure("MPS needs 2 to " + MAX_MPS_CLIENTS + " replicas (got " + r.getReplicas() + ")");
                }
                if (r.getActiveThreadPercentage() < 1 || r.getActiveThreadPercentage() > 100) {
                    throw new CommandFailure("MPS active thread percentage must be 1 to 100 (got " + r.getActiveThreadPercentage() + ")");
                }
                if (r.getMemoryLimitMib() * r.getReplicas() > gpuMemoryMiB) {
                    throw new CommandFailure("MPS memory limits over-commit GPU " + r.getGpuUuid() + ": " + r.getReplicas() + " x "
                            + r.getMemoryLimitMib() + " MiB > " + gpuMemoryMiB + " MiB");
                }
                return new Share(r.getMode(), r.getReplicas(), r.getActiveThreadPercentage(), r.getMemoryLimitMib(), gpuMemoryMiB);
            default:
                throw new CommandFailure("sharing mode is missing: EXCLUSIVE, TIME_SLICING or MPS");
        }
    }

    /** Written to a temporary file and moved into place, so the device plugin never reads half a file. */
    private void write(Map<String, Share> next) {
        Path file = config.sharingConfig().toAbsolutePath();
        try {
            Files.createDirectories(file.getParent());
            Path tmp = Files.createTempFile(file.getParent(), file.getFileName().toString(), ".tmp");
            Files.writeString(tmp, yaml(next));
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new CommandFailure("cannot write the device plugin's sharing config " + file + ": " + e
                    + "; set horizon.agent.sharing-config to a writable path");
        }
    }

    static String yaml(Map<String, Share> shares) {
        StringBuilder y = new StringBuilder("# Written by the Horizon agent; the NVIDIA device plugin's sharing config for this node.\n")
                .append("version: v1\nsharing:\n");
        for (SetSharing.Mode mode : List.of(SetSharing.Mode.TIME_SLICING, SetSharing.Mode.MPS)) {
            List<Map.Entry<String, Share>> entries = shares.entrySet().stream().filter(e -> e.getValue().mode() == mode).toList();
            if (entries.isEmpty()) continue;
            y.append(mode == SetSharing.Mode.MPS ? "  mps:\n" : "  timeSlicing:\n").append("    resources:\n");
            for (Map.Entry<String, Share> e : entries) {
                y.append("      - name: nvidia.com/gpu\n")
                        .append("        replicas: ").append(e.getValue().replicas()).append('\n')
                        .append("        devices: [\"").append(e.getKey()).append("\"]\n");
            }
        }
        return y.toString();
    }
}
