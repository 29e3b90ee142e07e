package dev.horizon.agent;

import dev.horizon.agent.v1.MemoryViolation;
import dev.horizon.nvml.GpuProcess;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.jboss.logging.Logger;

/**
 * Time-sliced processes share one GPU's memory with nothing to stop one from taking it all and crashing the
 * others (k8s-device-plugin#461). On every tick each process on a shared GPU is compared with its share; one
 * over it is reported once (log line, counter, the next telemetry report) and, with action KILL, terminated. Processes on MIG devices
 * are left alone: the hardware already confines them. A process is known by its GPU, PID and start time, and forgotten
 * once it is gone, so a PID the kernel hands out again is a new process; the guard keeps at most {@link #KEPT} violations.
 */
@ApplicationScoped
public class MemoryGuard {
    private static final Logger LOG = Logger.getLogger(MemoryGuard.class);
    private static final long MIB = 1024L * 1024L;

    public enum Action { REPORT, KILL }

    /** A process over its share, and what the guard did about it. */
    public record Violation(String gpuUuid, int pid, String name, long usedMiB, long allowedMiB, String share, MemoryViolation.Action action,
                            long observedAtMs) {
        String describe() {
            return "process " + pid + (name == null ? "" : " (" + name + ")") + " on GPU " + gpuUuid + " uses " + usedMiB
                    + " MiB, over its " + allowedMiB + " MiB share (" + share + ")";
        }

        MemoryViolation toReport() {
            return MemoryViolation.newBuilder().setPid(pid).setGpuUuid(gpuUuid).setUsedMib(usedMiB).setAllowedMib(allowedMiB).setAction(action)
                    .setProcessName(name == null ? "" : name).setShare(share).setObservedAtMs(observedAtMs).build();
        }
    }

    @Inject
    Sharing sharing;
    @Inject
    AgentConfig config;
    @Inject
    MeterRegistry registry;

    /** The most violations kept, both for {@link #violations()} and waiting for a telemetry report; the oldest go first. */
    static final int KEPT = 512;

    /** Guarded by this. */
    private final Deque<Violation> violations = new ArrayDeque<>();
    /** Violations not yet put in a telemetry report; guarded by this. */
    private final Deque<Violation> unreported = new ArrayDeque<>();
    /** Per GPU, the processes (see {@link #identity}) already reported and still running; only the loop thread touches it. */
    private final Map<String, Set<String>> reported = new HashMap<>();

    void check(List<GpuSnapshot> gpus) {
        for (GpuSnapshot gpu : gpus) {
            if (!gpu.readable()) continue; // its processes are unknown this tick, not gone
            Optional<Sharing.Share> share = sharing.of(gpu.uuid());
            Set<String> before = reported.getOrDefault(gpu.uuid(), Set.of());
            Set<String> still = new HashSet<>();
            for (GpuProcess p : gpu.processes()) {
                if (share.isEmpty() || p.gpuInstanceId() != null || p.usedMemoryBytes() == null) continue;
                String id = identity(gpu.uuid(), p.pid());
                long used = p.usedMemoryBytes() / MIB;
                if (before.contains(id)) {
                    still.add(id);
                } else if (used > share.get().allowedMiB()) {
                    act(gpu.uuid(), p, used, share.get());
                    still.add(id);
                }
            }
            if (still.isEmpty()) reported.remove(gpu.uuid());
            else reported.put(gpu.uuid(), still);
        }
    }

    /** GPU, PID and, where the agent sees the process (same PID namespace), its start time: PIDs are reused. */
    private static String identity(String gpuUuid, int pid) {
        String started = ProcessHandle.of(pid).flatMap(h -> h.info().startInstant()).map(Instant::toString).orElse("?");
        return gpuUuid + "/" + pid + "/" + started;
    }

    private void act(String gpuUuid, GpuProcess p, long usedMiB, Sharing.Share share) {
        MemoryViolation.Action action = MemoryViolation.Action.REPORTED;
        if (config.memoryGuardAction() == Action.KILL) {
            boolean signalled = ProcessHandle.of(p.pid()).map(ProcessHandle::destroyForcibly).orElse(false);
            action = signalled ? MemoryViolation.Action.KILLED : MemoryViolation.Action.KILL_FAILED;
        }
        Violation v = new Violation(gpuUuid, p.pid(), p.name(), usedMiB, share.allowedMiB(), share.describe(), action, System.currentTimeMillis());
        keep(v);
        Counter.builder("horizon_agent_memory_violations_total").description("processes found over their GPU memory share")
                .tag("UUID", v.gpuUuid()).register(registry).increment();
        switch (action) {
            case KILLED -> LOG.warnf("memory guard: %s; killed it", v.describe());
            case KILL_FAILED -> LOG.warnf("memory guard: %s; could not kill it (not visible from the agent)", v.describe());
            default -> LOG.warnf("memory guard: %s; reported only (horizon.agent.memory-guard-action=REPORT)", v.describe());
        }
    }

    private synchronized void keep(Violation v) {
        for (Deque<Violation> kept : List.of(violations, unreported)) {
            kept.addLast(v);
            if (kept.size() > KEPT) kept.removeFirst();
        }
    }

    /** The violations found since the last call (the newest {@link #KEPT}), for the next telemetry report; each is handed out once. */
    synchronized List<MemoryViolation> takeUnreported() {
        List<MemoryViolation> out = new ArrayList<>();
        for (Violation v; (v = unreported.pollFirst()) != null; ) out.add(v.toReport());
        return out;
    }

    /** The newest {@link #KEPT} violations seen since the agent started, oldest first. */
    public synchronized List<Violation> violations() {
        return List.copyOf(violations);
    }
}
