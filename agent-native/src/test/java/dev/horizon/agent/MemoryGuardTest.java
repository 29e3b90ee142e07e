package dev.horizon.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.horizon.agent.v1.Health;
import dev.horizon.agent.v1.SetSharing;
import dev.horizon.nvml.GpuReading;
import dev.horizon.nvml.GpuProcess;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.lang.reflect.Proxy;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.IntStream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The memory guard's bookkeeping: a process is reported once it has been over its share on two ticks in a row, a PID used
 * again is a new process, one process is reported once, and what it keeps is bounded.
 */
class MemoryGuardTest {
    private static final String GPU = "GPU-11111111-2222-4333-8444-555555555555";
    private static final long MIB = 1024L * 1024L;
    /** A quarter of an H100's 81559 MiB: 20389 MiB per process. */
    private static final Sharing.Share QUARTER = new Sharing.Share(SetSharing.Mode.TIME_SLICING, 4, 0, 0, 81559);
    /** PIDs no process on this machine has (above any pid_max), so the guard cannot read a start time for them. */
    private static final int FIRST_PID = 1 << 23;

    private final MemoryGuard guard = new MemoryGuard();
    /** The GPU's share as the agent applies it now; empty once it is made exclusive. */
    private Optional<Sharing.Share> applied = Optional.of(QUARTER);

    @BeforeEach
    void wire() {
        guard.sharing = new Sharing() {
            @Override
            public synchronized Optional<Share> of(String gpuUuid) {
                return GPU.equals(gpuUuid) ? applied : Optional.empty();
            }
        };
        guard.config = (AgentConfig) Proxy.newProxyInstance(AgentConfig.class.getClassLoader(), new Class<?>[] {AgentConfig.class},
                (proxy, method, args) -> method.getName().equals("memoryGuardAction") ? MemoryGuard.Action.REPORT : null);
        guard.registry = new SimpleMeterRegistry();
    }

    private static final GpuReading H100 = new GpuReading(0, GPU, "NVIDIA H100 80GB HBM3", null, null, null, null, null, null, null, null, null);

    private void tick(GpuProcess... processes) {
        guard.check(List.of(new GpuSnapshot(0, GPU, H100, List.of(processes), List.of(), Health.HEALTHY, null, null)));
    }

    private static GpuProcess over(int pid) {
        return new GpuProcess(pid, "greedy.py", 30000 * MIB, null, null);
    }

    @Test
    void aProcessOverItsShareOnTwoTicksInARowIsReportedOnce() {
        tick(over(FIRST_PID));
        assertEquals(0, guard.violations().size(), "one tick over its share is not yet a violation");
        tick(over(FIRST_PID));
        tick(over(FIRST_PID));
        assertEquals(1, guard.violations().size(), "one process, reported once");
    }

    @Test
    void aWholeGpuJobsProcessSeenBeforeItsGpuIsMadeExclusiveIsNotReported() {
        // the plan that starts a whole-GPU job also makes its GPU exclusive; the job's process can come first
        tick(over(FIRST_PID));
        applied = Optional.empty();
        tick(over(FIRST_PID));
        tick(over(FIRST_PID));
        assertEquals(0, guard.violations().size(), "held for one tick to a share the GPU no longer has");
    }

    @Test
    void aPidUsedAgainByANewProcessIsReportedAgain() {
        tick(over(FIRST_PID));
        tick(over(FIRST_PID));
        assertEquals(1, guard.violations().size(), "one process, reported once");
        tick();
        tick(over(FIRST_PID));
        tick(over(FIRST_PID));
        assertEquals(2, guard.violations().size(), "the PID came back as another process");
        assertEquals(2, guard.takeUnreported().size());
    }

    @Test
    void aProcessWhoseStartTimeComesAndGoesIsReportedOnce() {
        Instant started = Instant.parse("2026-12-05T09:00:00Z");
        List<Optional<Instant>> seen = new ArrayList<>(List.of(Optional.empty(), Optional.of(started), Optional.empty(), Optional.of(started)));
        guard.startTimes = pid -> seen.remove(0);
        for (int i = 0; i < 4; i++) tick(over(FIRST_PID));
        assertEquals(1, guard.violations().size(), "an unrelated process in the agent's namespace taking the PID number now and then");
    }

    @Test
    void aPidWhoseStartTimeChangesBetweenTicksIsANewProcess() {
        List<Optional<Instant>> seen = new ArrayList<>(List.of(Optional.of(Instant.parse("2026-12-05T09:00:00Z")), Optional.empty(),
                Optional.of(Instant.parse("2026-12-05T09:00:07Z")), Optional.of(Instant.parse("2026-12-05T09:00:07Z"))));
        guard.startTimes = pid -> seen.remove(0);
        for (int i = 0; i < 4; i++) tick(over(FIRST_PID));
        assertEquals(2, guard.violations().size(), "the first process exited and the PID was handed out again within one tick");
    }

    @Test
    void keepsTheNewestViolationsOnly() {
        int many = MemoryGuard.KEPT + 88;
        GpuProcess[] greedy = IntStream.range(0, many).mapToObj(i -> over(FIRST_PID + i)).toArray(GpuProcess[]::new);
        tick(greedy);
        tick(greedy);
        List<MemoryGuard.Violation> kept = guard.violations();
        assertEquals(MemoryGuard.KEPT, kept.size());
        assertEquals(FIRST_PID + many - 1, kept.get(kept.size() - 1).pid(), "the newest is kept");
        assertEquals(MemoryGuard.KEPT, new ArrayList<>(guard.takeUnreported()).size());
    }
}
