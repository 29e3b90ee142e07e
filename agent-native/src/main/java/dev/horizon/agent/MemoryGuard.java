package dev.horizon.agent;

import dev.horizon.agent.v1.MemoryViolation;
import dev.horizon.nvml.GpuProcess;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import org.jboss.logging.Logger;

/**
 * Time-sliced processes share one GPU's memory with nothing to stop one from taking it all and crashing the
 * others (k8s-device-plugin#461). On every tick each process on a shared GPU is compared with its share; one
 * over it is reported once (log line, counter, the next telemetry report) and, with action KILL, terminated. Processes on MIG devices
 * are left alone: the hardware already confines them.
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

    private final List<Violation> violations = new CopyOnWriteArrayList<>();
    /** Violations not yet put in a telemetry report. */
    private final Queue<Violation> unreported = new ConcurrentLinkedQueue<>();
    /** "uuid/pid" of the violations already reported, so a process is reported once, not every tick. */
    private final Set<String> reported = ConcurrentHashMap.newKeySet();

    void check(List<GpuSnapshot> gpus) {
        for (GpuSnapshot gpu : gpus) {
            sharing.of(gpu.uuid()).ifPresent(share -> {
                for (GpuProcess p : gpu.processes()) {
                    if (p.gpuInstanceId() != null || p.usedMemoryBytes() == null) continue;
                    long used = p.usedMemoryBytes() / MIB;
                    if (used > share.allowedMiB() && reported.add(gpu.uuid() + "/" + p.pid())) {
                        act(gpu.uuid(), p, used, share);
                    }
                }
            });
        }
    }

    private void act(String gpuUuid, GpuProcess p, long usedMiB, Sharing.Share share) {
        MemoryViolation.Action action = MemoryViolation.Action.REPORTED;
        if (config.memoryGuardAction() == Action.KILL) {
            boolean signalled = ProcessHandle.of(p.pid()).map(ProcessHandle::destroyForcibly).orElse(false);
            action = signalled ? MemoryViolation.Action.KILLED : MemoryViolation.Action.KILL_FAILED;
        }
        Violation v = new Violation(gpuUuid, p.pid(), p.name(), usedMiB, share.allowedMiB(), share.describe(), action, System.currentTimeMillis());
        violations.add(v);
        unreported.add(v);
        Counter.builder("horizon_agent_memory_violations_total").description("processes found over their GPU memory share")
                .tag("UUID", v.gpuUuid()).register(registry).increment();
        switch (action) {
            case KILLED -> LOG.warnf("memory guard: %s; killed it", v.describe());
            case KILL_FAILED -> LOG.warnf("memory guard: %s; could not kill it (not visible from the agent)", v.describe());
            default -> LOG.warnf("memory guard: %s; reported only (horizon.agent.memory-guard-action=REPORT)", v.describe());
        }
    }

    /** The violations found since the last call, for the next telemetry report; each is handed out once. */
    List<MemoryViolation> takeUnreported() {
        List<MemoryViolation> out = new ArrayList<>();
        for (Violation v; (v = unreported.poll()) != null; ) out.add(v.toReport());
        return out;
    }

    /** Every violation seen since the agent started. */
    public List<Violation> violations() {
        return List.copyOf(violations);
    }
}
