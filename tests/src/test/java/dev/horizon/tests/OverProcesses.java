package dev.horizon.tests;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;

/** A test over real processes: a temporary directory for their data and logs, and every process it started stopped after each test. */
abstract class OverProcesses {
    @TempDir
    Path dir;
    final List<Process> processes = new ArrayList<>();

    @AfterEach
    void stopProcesses() throws Exception {
        for (Process p : processes) p.destroyForcibly().waitFor();
    }

    /** A ready control plane with an agent token (see {@link Horizon#readyControlPlane}), stopped after the test. */
    Horizon.ControlPlane controlPlane(String admin, String... options) throws Exception {
        Horizon.ControlPlane started = Horizon.readyControlPlane(dir, admin, options);
        processes.add(started.process());
        return started;
    }

    /** An agent for node on the simulated driver, registering with controlPlane (see {@link Horizon#agent}), stopped after the test. */
    Process agent(Horizon.ControlPlane controlPlane, String node) throws Exception {
        Process agent = Horizon.agent(dir, node, Horizon.freePort(), controlPlane.port(), controlPlane.agentToken());
        processes.add(agent);
        return agent;
    }
}
