package dev.horizon.agent;

import dev.horizon.agent.v1.Command;
import dev.horizon.agent.v1.CommandResult;
import dev.horizon.nvml.GpuProcess;
import dev.horizon.nvml.MigDevice;
import dev.horizon.nvml.error.NvmlException;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;
import org.jboss.logging.Logger;

/** Carries out one command from the control plane and says how it went, as the CommandResult to report. */
@ApplicationScoped
public class CommandHandler {
    private static final Logger LOG = Logger.getLogger(CommandHandler.class);

    @Inject
    MigLayouts migLayouts;
    @Inject
    Sharing sharing;
    @Inject
    HostReader host;
    @Inject
    AgentConfig config;
    @Inject
    MeterRegistry registry;

    private final AtomicBoolean draining = new AtomicBoolean();

    /** Refuses commands from a leader older than one already followed. */
    private EpochFence epochs;

    @PostConstruct
    void readEpoch() {
        epochs = new EpochFence(config.stateDir());
    }

    public CommandResult handle(String nodeId, Command command) {
        CommandResult.Builder result = CommandResult.newBuilder().setNodeId(nodeId).setCommandId(command.getId());
        String action = command.getActionCase().name().toLowerCase();
        try {
            fence(command);
            switch (command.getActionCase()) {
                case APPLY_MIG_LAYOUT -> {
                    List<MigDevice> devices = migLayouts.apply(command.getApplyMigLayout());
                    LOG.infof("command %s: GPU %s MIG layout applied: %s", command.getId(), command.getApplyMigLayout().getGpuUuid(),
                            devices.isEmpty() ? "MIG off" : devices.stream().map(d -> d.profile() + "@" + d.placement().start() + " " + d.uuid())
                                    .collect(Collectors.joining(", ")));
                }
                case SET_SHARING -> sharing.apply(command.getSetSharing());
                case DRAIN -> drain(command.getDrain().getReason());
                default -> throw new CommandFailure("command " + command.getId() + " has no action this agent knows; upgrade the agent");
            }
            result.setSuccess(true);
        } catch (CommandFailure | IllegalArgumentException | IllegalStateException | NvmlException e) {
            LOG.warnf("command %s (%s) failed: %s", command.getId(), action, e.getMessage());
            result.setSuccess(false).setError(e.getMessage());
        }
        registry.counter("horizon_agent_commands_total", "action", action, "outcome", result.getSuccess() ? "succeeded" : "failed")
                .increment();
        return result.build();
    }

    /**
     * Refuses a command queued by a leader older than one whose command this agent already took: after a failover the
     * old leader may still be sending, and only the newest leader's view of the cluster counts.
     */
    private void fence(Command command) {
        epochs.admit(command.getId(), command.getLeaderEpoch());
    }

    /** Waits, up to the drain timeout, until no process runs on any GPU of the node. */
    private void drain(String reason) {
        draining.set(true);
        LOG.infof("draining: %s; waiting up to %s for the GPUs' processes to exit", reason.isBlank() ? "asked by the control plane" : reason,
                config.drainTimeout());
        long deadline = System.nanoTime() + config.drainTimeout().toNanos();
        while (true) {
            List<String> running = host.snapshot().stream().flatMap(g -> g.processes().stream().map(GpuProcess::pid)
                    .map(pid -> pid + " on GPU " + g.index())).toList();
            if (running.isEmpty()) {
                LOG.info("drained: no process runs on the GPUs");
                return;
            }
            if (System.nanoTime() > deadline) {
                throw new CommandFailure("drain timed out after " + config.drainTimeout() + "; still running: " + String.join(", ", running));
            }
            sleep(config.telemetryInterval().toMillis());
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CommandFailure("the agent is stopping");
        }
    }

    public boolean draining() {
        return draining.get();
    }
}
