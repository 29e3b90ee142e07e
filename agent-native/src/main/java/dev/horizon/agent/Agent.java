package dev.horizon.agent;

import dev.horizon.nvml.NvmlSession;
import dev.horizon.nvml.XidEvent;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.jboss.logging.Logger;

/**
 * The agent's two threads: the loop (read the GPUs, guard memory, update metrics, talk to the control plane,
 * every telemetry interval) and the Xid watcher (blocks in NVML's event wait). Enforcement does not depend on
 * the control plane: MIG layouts and sharing stay as last applied while it is unreachable.
 */
@ApplicationScoped
public class Agent {
    private static final Logger LOG = Logger.getLogger(Agent.class);
    private static final Duration XID_WAIT = Duration.ofSeconds(1);

    @Inject
    AgentConfig config;
    @Inject
    Nvml nvml;
    @Inject
    HostReader host;
    @Inject
    MemoryGuard memoryGuard;
    @Inject
    GpuMetrics metrics;
    @Inject
    ControlPlaneLink link;
    @Inject
    Sharing sharing;

    private volatile boolean running;
    private Thread loop;
    private Thread xidWatcher;
    private String nodeName;

    void start(@Observes StartupEvent event) {
        nvml.open();
        if (nvml.isOpen()) sharing.restore();
        nodeName = config.nodeName().orElseGet(Agent::hostName);
        running = true;
        loop = new Thread(this::loop, "horizon-agent-loop");
        loop.setDaemon(true);
        loop.start();
        if (nvml.isOpen()) {
            xidWatcher = new Thread(this::watchXid, "horizon-agent-xid");
            xidWatcher.setDaemon(true);
            xidWatcher.start();
        }
        LOG.infof("agent for node %s: telemetry every %s, sharing by %s, memory guard %s", nodeName, config.telemetryInterval(),
                config.sharingBackend(), config.memoryGuardAction());
    }

    void stop(@Observes ShutdownEvent event) {
        running = false;
        for (Thread t : new Thread[] {loop, xidWatcher}) {
            if (t == null) continue;
            t.interrupt();
            try {
                t.join(XID_WAIT.toMillis() * 2);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        link.stop();
        nvml.close();
    }

    private void loop() {
        while (running) {
            if (nvml.isOpen()) tick();
            try {
                Thread.sleep(config.telemetryInterval().toMillis());
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private void tick() {
        try {
            List<GpuSnapshot> gpus = host.snapshot();
            memoryGuard.check(gpus);
            metrics.update(nodeName, gpus);
            link.tick(host.inventory(nodeName, config.nvlinkDomain().orElse(""), gpus), host.telemetry(gpus, System.currentTimeMillis())
                    .toBuilder().addAllViolations(memoryGuard.takeUnreported()).build());
        } catch (RuntimeException e) {
            // One bad tick (NVML hiccup, a bug) must not end the loop that enforces the node's limits.
            LOG.errorf(e, "agent tick failed: %s", e.getMessage());
        }
    }

    private void watchXid() {
        try (NvmlSession.XidWatch watch = nvml.session().watchXid()) {
            while (running) {
                Optional<XidEvent> xid = watch.next(XID_WAIT);
                xid.ifPresent(e -> host.xid(e.gpuIndex(), e.xid()));
            }
        } catch (RuntimeException e) {
            if (running) LOG.warnf("Xid events are not watched: %s", e.getMessage());
        }
    }

    /** The host's name in lower case, as kubelets name their nodes: the control plane takes DNS-1123 names only. */
    private static String hostName() {
        String name;
        try {
            name = InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            name = Optional.ofNullable(System.getenv("HOSTNAME")).orElse("localhost");
        }
        return name.toLowerCase(java.util.Locale.ROOT);
    }
}
