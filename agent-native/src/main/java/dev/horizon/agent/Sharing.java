package dev.horizon.agent;

import dev.horizon.agent.v1.SetSharing;
import dev.horizon.nvml.GpuReading;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.io.IOException;
import java.io.Reader;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import org.jboss.logging.Logger;

/**
 * How each GPU is shared, enforced where the node runs: on Kubernetes as the NVIDIA device plugin's sharing config
 * (version v1, sharing.timeSlicing / sharing.mps, one resource entry per GPU UUID) so the node's plugin advertises the
 * replicas; on bare metal by an MPS control daemon per shared GPU with per-client limits ({@link MpsDaemons}). The
 * applied shares are kept in the state directory and applied again when the agent starts, so a restarted agent (or
 * host) enforces what the control plane last asked for. The memory guard reads each GPU's share from here.
 */
@ApplicationScoped
public class Sharing {
    private static final Logger LOG = Logger.getLogger(Sharing.class);
    /** The device plugin's limits: MPS serves at most 48 clients per GPU; time-slicing has no hard cap, we keep it sane. */
    private static final int MAX_MPS_CLIENTS = 48;
    private static final int MAX_TIME_SLICES = 64;
    private static final String APPLIED_FILE = "applied-sharing.properties";

    /** Where sharing is enforced; AUTO picks by where the agent runs (see {@link #detect}). */
    public enum Backend { AUTO, DEVICE_PLUGIN, MPS }

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
    private Backend backend;
    private MpsDaemons mps;

    /** KUBERNETES_SERVICE_HOST, which Kubernetes sets in every pod, means the device plugin hands out GPUs; otherwise MPS. */
    static Backend detect(Backend configured, Map<String, String> env) {
        if (configured != Backend.AUTO) return configured;
        String k8s = env.get("KUBERNETES_SERVICE_HOST");
        return k8s != null && !k8s.isBlank() ? Backend.DEVICE_PLUGIN : Backend.MPS;
    }

    /** At start: picks the backend and applies again the shares a previous run applied, for the GPUs still here. */
    synchronized void restore() {
        backend = detect(config.sharingBackend(), System.getenv());
        mps = new MpsDaemons(config.mpsControl(), config.stateDir().resolve("mps"));
        Map<String, Share> saved = load();
        LOG.infof("GPU sharing enforced by %s (horizon.agent.sharing-backend=%s); %d shares to apply again", backend, config.sharingBackend(),
                saved.size());
        Map<String, Share> present = new TreeMap<>();
        saved.forEach((uuid, share) -> {
            try {
                nvml.session().gpuByUuid(uuid);
                present.put(uuid, share);
            } catch (RuntimeException e) {
                LOG.warnf("GPU %s was shared (%s) but is not usable now (%s); its share is dropped", uuid, share.describe(), e.getMessage());
            }
        });
        if (present.isEmpty()) return;
        if (backend == Backend.DEVICE_PLUGIN) {
            try {
                write(present);
                shares.putAll(present);
            } catch (CommandFailure e) {
                LOG.errorf("could not write the saved GPU sharing again: %s; no GPU is shared until the control plane asks again", e.getMessage());
            }
            return;
        }
        // one GPU whose daemon does not start must not leave the others unshared (and unguarded)
        present.forEach((uuid, share) -> {
            try {
                mps.apply(uuid, share);
                shares.put(uuid, share);
            } catch (CommandFailure e) {
                LOG.errorf("could not start GPU %s's MPS daemon again: %s; it is unshared until the control plane asks again", uuid, e.getMessage());
            }
        });
    }

    /** Checks the request against the GPU, enforces it, then records it. */
    public synchronized void apply(SetSharing request) {
        GpuReading gpu = nvml.session().gpuByUuid(request.getGpuUuid());
        if (gpu.memory() == null) {
            throw new CommandFailure("GPU " + gpu.uuid() + "'s memory is not visible to the agent (only its MIG devices are), so"
                    + " its shares cannot be sized; share whole GPUs, or run the agent where it sees them");
        }
        Share share = check(request, gpu.memory().totalMiB());
        Map<String, Share> next = new TreeMap<>(shares);
        if (share == null) next.remove(gpu.uuid());
        else next.put(gpu.uuid(), share);
        enforce(next, Set.of(gpu.uuid()));
        save(next);
        shares.clear();
        shares.putAll(next);
        LOG.infof("GPU %s sharing: %s (%s)", gpu.uuid(), share == null ? "exclusive" : share.describe(),
                backend == Backend.MPS ? "MPS daemon, pipe " + mps.pipeDirectory(gpu.uuid()) : "written to " + config.sharingConfig());
    }

    /** Makes the backend enforce next for the GPUs changed (the device plugin's file always holds every share). */
    private void enforce(Map<String, Share> next, Set<String> changed) {
        if (backend == Backend.DEVICE_PLUGIN) {
            write(next);
            return;
        }
        for (String uuid : changed) {
            Share share = next.get(uuid);
            if (share == null) mps.stop(uuid);
            else mps.apply(uuid, share);
        }
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

    private void write(Map<String, Share> next) {
        // whole or not at all: the device plugin may read it at any moment
        StateFiles.writeAtomically(config.sharingConfig(), yaml(next), "horizon.agent.sharing-config");
    }

    /** One line per shared GPU: uuid=MODE,replicas,activeThreadPercentage,memoryLimitMiB,gpuMemoryMiB. */
    private void save(Map<String, Share> next) {
        Properties p = new Properties();
        next.forEach((uuid, sh) -> p.setProperty(uuid, sh.mode() + "," + sh.replicas() + "," + sh.activeThreadPercentage() + ","
                + sh.memoryLimitMiB() + "," + sh.gpuMemoryMiB()));
        StringWriter text = new StringWriter();
        try {
            p.store(text, "GPU sharing the Horizon agent applied; applied again when it starts");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        StateFiles.writeAtomically(config.stateDir().resolve(APPLIED_FILE), text.toString(), "horizon.agent.state-dir");
    }

    private Map<String, Share> load() {
        Path file = config.stateDir().resolve(APPLIED_FILE);
        Map<String, Share> saved = new TreeMap<>();
        if (!Files.exists(file)) return saved;
        Properties p = new Properties();
        try (Reader in = Files.newBufferedReader(file)) {
            p.load(in);
            for (String uuid : p.stringPropertyNames()) {
                String[] f = p.getProperty(uuid).split(",");
                saved.put(uuid, new Share(SetSharing.Mode.valueOf(f[0]), Integer.parseInt(f[1]), Integer.parseInt(f[2]), Long.parseLong(f[3]),
                        Long.parseLong(f[4])));
            }
        } catch (IOException | RuntimeException e) {
            // a damaged file must not keep the agent from starting: it starts unshared and the control plane can ask again
            LOG.errorf("cannot read the saved GPU sharing in %s (%s); starting with no GPU shared", file, e);
            saved.clear();
        }
        return saved;
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
