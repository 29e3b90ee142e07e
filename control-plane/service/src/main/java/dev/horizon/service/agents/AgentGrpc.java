package dev.horizon.service.agents;

import dev.horizon.agent.v1.AgentHello;
import dev.horizon.agent.v1.AgentService;
import dev.horizon.agent.v1.Command;
import dev.horizon.agent.v1.CommandResult;
import dev.horizon.agent.v1.HealthEvent;
import dev.horizon.agent.v1.Inventory;
import dev.horizon.agent.v1.RegisterReply;
import dev.horizon.agent.v1.ResultAck;
import dev.horizon.agent.v1.TelemetryAck;
import dev.horizon.agent.v1.TelemetryReport;
import dev.horizon.service.clock.ServiceClock;
import dev.horizon.service.jobs.JobRow;
import dev.horizon.service.jobs.JobState;
import dev.horizon.service.jobs.JobStore;
import dev.horizon.service.nodes.CommandQueue;
import dev.horizon.service.nodes.CommandStore;
import dev.horizon.service.nodes.MemoryViolations;
import dev.horizon.service.nodes.Node;
import dev.horizon.service.nodes.NodeCommand;
import dev.horizon.service.nodes.NodeStore;
import dev.horizon.service.planning.Planner;
import io.grpc.Status;
import io.quarkus.grpc.GrpcService;
import io.quarkus.grpc.RegisterInterceptor;
import io.smallrye.common.annotation.Blocking;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.Uni;
import io.smallrye.mutiny.infrastructure.Infrastructure;
import jakarta.inject.Inject;
import java.util.List;
import java.util.stream.Collectors;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

/**
 * The control plane's side of the agent protocol (horizon/agent/v1/agent.proto). A node's id is its name. Every call
 * touches the store, so each runs on a worker thread, never on the event loop.
 */
@GrpcService
@RegisterInterceptor(AgentTokenInterceptor.class)
public class AgentGrpc implements AgentService {
    private static final Logger LOG = Logger.getLogger(AgentGrpc.class);

    @Inject
    ServiceClock clock;
    @Inject
    NodeStore nodes;
    @Inject
    CommandStore commands;
    @Inject
    CommandQueue queue;
    @Inject
    Planner planner;
    @Inject
    MemoryViolations violations;
    @Inject
    JobStore jobs;
    @ConfigProperty(name = "horizon.planner.step-seconds")
    long stepSeconds;

    @Override
    @Blocking
    public Uni<RegisterReply> register(Inventory inventory) {
        Node node = AgentMessages.node(inventory, clock.millis());
        if (nodes.upsert(node)) {
            LOG.infof("node %s registered by its agent: %d GPUs, %s", node.name(), node.gpus().size(), node.health());
            planner.requestPlan();
        }
        return Uni.createFrom().item(RegisterReply.newBuilder().setNodeId(node.name()).setStepSeconds(stepSeconds).build());
    }

    @Override
    public Uni<TelemetryAck> telemetry(Multi<TelemetryReport> reports) {
        return reports.emitOn(Infrastructure.getDefaultWorkerPool()).onItem().invoke(this::record).collect().with(Collectors.counting())
                .map(n -> TelemetryAck.newBuilder().setReports(n).build());
    }

    private void record(TelemetryReport report) {
        String node = registered(report.getNodeId());
        if (nodes.telemetry(node, AgentMessages.readings(report.getGpusList()), clock.millis())) {
            LOG.infof("node %s is reporting again", node);
            planner.requestPlan();
        }
        for (HealthEvent e : report.getEventsList()) {
            String event = AgentMessages.describe(e);
            if (nodes.healthEvent(node, e.getGpuUuid(), AgentMessages.healthAfter(e), event)) {
                LOG.warnf("node %s drained: %s", node, event);
                planner.requestPlan();
            }
        }
        if (report.getViolationsCount() > 0) recordViolations(node, report);
    }

    private void recordViolations(String nodeName, TelemetryReport report) {
        Node node = nodes.find(nodeName).orElseThrow();
        List<JobRow> running = jobs.active().stream().filter(j -> j.state() == JobState.RUNNING).toList();
        for (var v : report.getViolationsList()) {
            MemoryViolations.Violation recorded = AgentMessages.violation(node, v, running, clock.millis());
            violations.record(recorded);
            LOG.warnf("node %s: process %d on GPU %s used %d MiB, over its %d MiB share (%s); %s%s", nodeName, recorded.pid(), recorded.gpuUuid(),
                    recorded.usedMiB(), recorded.allowedMiB(), recorded.share(), recorded.action(),
                    recorded.job() == null ? "" : "; the GPU is held by job " + recorded.job());
        }
    }

    @Override
    public Multi<Command> commands(AgentHello hello) {
        return Multi.createFrom().deferred(() -> queue.stream(registered(hello.getNodeId()))).map(AgentMessages::command)
                .runSubscriptionOn(Infrastructure.getDefaultWorkerPool());
    }

    @Override
    @Blocking
    public Uni<ResultAck> reportResult(CommandResult result) {
        String node = registered(result.getNodeId());
        if (!result.getSuccess() && result.getError().isBlank()) throw AgentMessages.invalid("error: a failed command needs the reason, for people");
        NodeCommand command = commands.find(node, result.getCommandId()).orElseThrow(() -> Status.NOT_FOUND
                .withDescription("node " + node + " has no command '" + result.getCommandId() + "'").asRuntimeException());
        commands.finish(command.id(), result.getSuccess(), result.getError(), clock.millis());
        return Uni.createFrom().item(ResultAck.newBuilder().setState(commands.find(node, command.id()).orElseThrow().state()).build());
    }

    /** The node id of a registered agent node, or NOT_FOUND telling the agent to register first. */
    private String registered(String nodeId) {
        nodes.find(nodeId).filter(n -> Node.FROM_AGENT.equals(n.source())).orElseThrow(() -> Status.NOT_FOUND
                .withDescription("node '" + nodeId + "' is not registered; call Register with its inventory first").asRuntimeException());
        return nodeId;
    }
}
