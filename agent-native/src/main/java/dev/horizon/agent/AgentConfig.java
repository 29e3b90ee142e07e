package dev.horizon.agent;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

/** horizon.agent.*: who this node is, how it talks to the control plane and what it enforces. */
@ConfigMapping(prefix = "horizon.agent")
public interface AgentConfig {
    /** The node's name in the cluster; the host name when unset. */
    Optional<String> nodeName();

    /** Hosts sharing an NVLink domain; unset: the node is its own. */
    Optional<String> nvlinkDomain();

    /**
     * An agent token (POST /api/v1/tokens {"role":"agent"}), sent as "authorization: Bearer ..." until the control plane
     * answers this node's own credential, which the agent keeps in state-dir and uses from then on (NodeCredential).
     */
    Optional<String> token();

    /**
     * TLS to the control plane: the PEM file of the CA its certificate is verified against (the launcher's --ca). Read at
     * start by {@link ControlPlaneTls}, which configures the gRPC client from it.
     */
    Optional<Path> controlPlaneCa();

    /** true: TLS to the control plane, verified by the JVM's trust store; false: plaintext even with a CA set. */
    Optional<Boolean> controlPlaneTls();

    @WithDefault("5s")
    Duration telemetryInterval();

    /** Reports kept while the control plane is unreachable; the oldest go first. */
    @WithDefault("120")
    int telemetryBuffer();

    /** First wait before reconnecting; it doubles after each failure up to reconnect-max. */
    @WithDefault("1s")
    Duration reconnectInitial();

    @WithDefault("60s")
    Duration reconnectMax();

    /** The NVIDIA device plugin's sharing config this node's plugin reads (time-slicing and MPS replicas), on Kubernetes. */
    @WithDefault("/var/lib/horizon-agent/device-plugin-sharing.yaml")
    Path sharingConfig();

    /**
     * How GPU sharing is enforced: DEVICE_PLUGIN (Kubernetes: the device plugin's sharing config), MPS (bare metal: an
     * MPS control daemon per shared GPU with per-client limits), or AUTO: DEVICE_PLUGIN where KUBERNETES_SERVICE_HOST is set.
     */
    @WithDefault("AUTO")
    Sharing.Backend sharingBackend();

    /** The MPS control command, a name on PATH or a path (bare metal). */
    @WithDefault("nvidia-cuda-mps-control")
    String mpsControl();

    /**
     * What the agent keeps across restarts: its node credential, the sharing it applied (re-applied at start), the highest
     * leader epoch seen and the MPS daemons' pipe and log directories.
     */
    @WithDefault("/var/lib/horizon-agent")
    Path stateDir();

    /** REPORT logs and counts a process over its memory share; KILL also terminates it. */
    @WithDefault("REPORT")
    MemoryGuard.Action memoryGuardAction();

    /** How long a drain waits for the GPUs' processes to exit before it reports failure. */
    @WithDefault("10m")
    Duration drainTimeout();
}
