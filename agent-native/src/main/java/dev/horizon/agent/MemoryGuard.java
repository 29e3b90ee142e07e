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
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import org.jboss.logging.Logger;

/**
 * Time-sliced processes share one GPU's memory with nothing to stop one from taking it all and crashing the
 * others (k8s-device-plugin#461). On every tick each process on a shared GPU is compared with its share; one
 * over it on two ticks in a row is reported once (log line, counter, the next telemetry report) and, with action KILL,
 * terminated. One tick is not enough: the control plane makes a GPU exclusive in the same plan that starts a whole-GPU
 * job on it, and the job's process can appear before the agent applies that command, so for a tick it is held to the
 * share the GPU no longer has (the demo's day showed four such reports; with KILL they would have killed the job). Processes on MIG devices
 * are left alone: the hardware already confines them. A process is known by its GPU and PID, and forgotten once it is
 * gone, so a PID the kernel hands out again is a new process; the guard keeps at most {@link #KEPT} violations.
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
    /**
     * A PID's start time where the agent sees the process (same PID namespace), empty where it does not. A process
     * outside the agent's namespace can share its PID with one inside, so the answer may come and go for one process.
     */
    Function<Integer, Optional<Instant>> startTimes = pid -> ProcessHandle.of(pid).flatMap(h -> h.info().startInstant());

    /** Per GPU, the PIDs already reported and still running, with their start time where one was read; only the loop thread touches it. */
    private final Map<String, Map<Integer, Optional<Instant>>> reported = new HashMap<>();
    /** Per GPU, the PIDs found over their share on the last tick and not yet acted on, with their start time; the loop thread's. */
    private final Map<String, Map<Integer, Optional<Instant>>> overLastTick = new HashMap<>();

    void check(List<GpuSnapshot> gpus) {
        for (GpuSnapshot gpu : gpus) {
            if (!gpu.readable()) continue; // its processes are unknown this tick, not gone
            Optional<Sharing.Share> share = sharing.of(gpu.uuid());
            Map<Integer, Optional<Instant>> before = reported.getOrDefault(gpu.uuid(), Map.of());
            Map<Integer, Optional<Instant>> wasOver = overLastTick.getOrDefault(gpu.uuid(), Map.of());
            Map<Integer, Optional<Instant>> still = new HashMap<>();
            Map<Integer, Optional<Instant>> over = new HashMap<>();
            for (GpuProcess p : gpu.processes()) {
                if (share.isEmpty() || p.gpuInstanceId() != null || p.usedMemoryBytes() == null) continue;
                Optional<Instant> started = startTimes.apply(p.pid());
                Optional<Instant> known = before.get(p.pid());
                Optional<Instant> suspected = wasOver.get(p.pid());
                long used = p.usedMemoryBytes() / MIB;
                if (known != null && sameProcess(known, started)) {
                    still.put(p.pid(), started.or(() -> known));
                } else if (used > share.get().allowedMiB() && suspected != null && sameProcess(suspected, started)) {
                    act(gpu.uuid(), p, used, share.get());
                    still.put(p.pid(), started.or(() -> suspected));
                } else if (used > share.get().allowedMiB()) {
                    over.put(p.pid(), started);
                }
            }
            keepOrDrop(reported, gpu.uuid(), still);
            keepOrDrop(overLastTick, gpu.uuid(), over);
        }
    }

    private static void keepOrDrop(Map<String, Map<Integer, Optional<Instant>>> byGpu, String gpuUuid, Map<Integer, Optional<Instant>> pids) {
        if (pids.isEmpty()) byGpu.remove(gpuUuid);
        else byGpu.put(gpuUuid, pids);
    }

    /**
     * A PID listed on the GPU tick after tick is one process unless two start times read for it differ (the PID was
     * reused between ticks). A start time that could not be read says nothing: reporting again on it would repeat one
     * violation whenever an unrelated process in the agent's namespace took that PID number.
     */
    private static boolean sameProcess(Optional<Instant> before, Optional<Instant> now) {
        return before.isEmpty() || now.isEmpty() || before.equals(now);
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
