package dev.horizon.agent;

import dev.horizon.nvml.GpuProcess;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.jboss.logging.Logger;

/**
 * Time-sliced processes share one GPU's memory with nothing to stop one from taking it all and crashing the
 * others (k8s-device-plugin#461). On every tick each process on a shared GPU is compared with its share; one
 * over it is reported once (log line, counter) and, with action KILL, terminated. Processes on MIG devices
 * are left alone: the hardware already confines them.
 */
@ApplicationScoped
public class MemoryGuard {
    private static final Logger LOG = Logger.getLogger(MemoryGuard.class);
    private static final long MIB = 1024L * 1024L;

    public enum Action { REPORT, KILL }

    /** A process over its share. */
    public record Violation(String gpuUuid, int pid, String name, long usedMiB, long allowedMiB, String share) {
        String describe() {
            return "process " + pid + (name == null ? "" : " (" + name + ")") + " on GPU " + gpuUuid + " uses " + usedMiB
                    + " MiB, over its " + allowedMiB + " MiB share (" + share + ")";
        }
    }

    @Inject
    Sharing sharing;
    @Inject
    AgentConfig config;
    @Inject
    MeterRegistry registry;

    private final List<Violation> violations = new CopyOnWriteArrayList<>();
    /** "uuid/pid" of the violations already reported, so a process is reported once, not every tick. */
    private final Set<String> reported = ConcurrentHashMap.newKeySet();

    void check(List<GpuSnapshot> gpus) {
        for (GpuSnapshot gpu : gpus) {
            sharing.of(gpu.uuid()).ifPresent(share -> {
                for (GpuProcess p : gpu.processes()) {
                    if (p.gpuInstanceId() != null || p.usedMemoryBytes() == null) continue;
                    long used = p.usedMemoryBytes() / MIB;
                    if (used > share.allowedMiB() && reported.add(gpu.uuid() + "/" + p.pid())) {
                        act(new Violation(gpu.uuid(), p.pid(), p.name(), used, share.allowedMiB(), share.describe()));
                    }
                }
            });
        }
    }

    private void act(Violation v) {
        violations.add(v);
        Counter.builder("horizon_agent_memory_violations_total").description("processes found over their GPU memory share")
                .tag("UUID", v.gpuUuid()).register(registry).increment();
        if (config.memoryGuardAction() == Action.KILL) {
            boolean signalled = ProcessHandle.of(v.pid()).map(ProcessHandle::destroyForcibly).orElse(false);
            LOG.warnf("memory guard: %s; %s", v.describe(), signalled ? "killed it" : "could not kill it (not visible from the agent)");
        } else {
            LOG.warnf("memory guard: %s; reported only (horizon.agent.memory-guard-action=REPORT)", v.describe());
        }
    }

    /** Every violation seen since the agent started. */
    public List<Violation> violations() {
        return List.copyOf(violations);
    }
}
