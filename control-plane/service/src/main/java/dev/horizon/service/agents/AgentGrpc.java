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
import dev.horizon.api.Limits;
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
import dev.horizon.service.plans.PlanRequests;
import dev.horizon.service.plans.PlannerSettings;
import dev.horizon.service.security.NodeCredentials;
import dev.horizon.service.security.Tokens;
import io.grpc.Status;
import io.quarkus.grpc.GrpcService;
import io.quarkus.grpc.RegisterInterceptor;
import io.smallrye.common.annotation.Blocking;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.Uni;
import io.smallrye.mutiny.infrastructure.Infrastructure;
import jakarta.inject.Inject;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.jboss.logging.Logger;

/**
 * The control plane's side of the agent protocol (horizon/agent/v1/agent.proto). A node's id is its name, and every call
 * acts only for the node its credential is bound to. Every call touches the store, so each runs on a worker thread,
 * never on the event loop.
 */
@GrpcService
@RegisterInterceptor(AgentTokenInterceptor.class)
public class AgentGrpc implements AgentService {
    private static final Logger LOG = Logger.getLogger(AgentGrpc.class);

    @Inject
    ShuttingDown shuttingDown;
    @Inject
    ServiceClock clock;
    @Inject
    NodeStore nodes;
    @Inject
    CommandStore commands;
    @Inject
    CommandQueue queue;
    @Inject
    PlanRequests planner;
    @Inject
    MemoryViolations violations;
    @Inject
    JobStore jobs;
    @Inject
    NodeCredentials credentials;
    @Inject
    AgentStreams streams;
    @Inject
    PlannerSettings settings;

    /**
     * With an enrollment token, enrolls the node (once, or again for a retry with the same nonce; NodeCredentials) and
     * answers its credential, the node waiting for an admin's approval when the token requires it (the reply says whether it
     * still waits, so its agent re-registers to learn of the approval); with a node credential,
     * only that node's inventory may be written, with no more GPUs and no other models than it enrolled with. A GPU uuid
     * another node registered is refused either way.
     */
    @Override
    @Blocking
    public Uni<RegisterReply> register(Inventory inventory) {
        Tokens.Grant grant = AgentTokenInterceptor.grant();
        Node node = AgentMessages.node(inventory, clock.millis());
        RegisterReply.Builder reply = RegisterReply.newBuilder().setNodeId(node.name()).setStepSeconds(settings.stepSeconds());
        try {
            if (grant.enrollsOnly()) {
                nodes.refuseClaimed(node);
                var attempt = new NodeCredentials.Attempt(grant, AgentTokenInterceptor.enrollmentSecret(), AgentMessages.nonce(inventory));
                Tokens.Created credential = credentials.enroll(node.name(), attempt, awaitApproval -> enroll(node, grant, awaitApproval));
                nodes.bound(node, credential.info().id());
                reply.setNodeCredential(credential.token());
                LOG.infof("node %s enrolled with enrollment token %s; its agent got its own credential", node.name(), grant.id());
            } else {
                own(grant, node.name());
                nodes.bound(node, grant.id());
                write(node);
            }
        } catch (NodeCredentials.Refused | NodeStore.BeyondEnrollment e) {
            throw Status.PERMISSION_DENIED.withDescription(e.getMessage()).asRuntimeException();
        } catch (NodeStore.GpuClaimed e) {
            throw Status.ALREADY_EXISTS.withDescription("invalid inventory: " + e.getMessage()).asRuntimeException();
        }
        // the agent says so in its log and readiness, as only this process's log did
        reply.setAwaitingApproval(nodes.awaitsApproval(node.name()));
        return Uni.createFrom().item(reply.build());
    }

    /** The inventory's first write; a node whose enrollment token requires approval is marked waiting before it. */
    private void enroll(Node node, Tokens.Grant enrollment, boolean awaitApproval) {
        if (awaitApproval) {
            nodes.awaitApproval(node.name(), enrollment.id(), clock.millis());
            LOG.infof("node %s waits for an admin's approval (./horizon node approve %s) before the planner places work on it", node.name(), node.name());
        }
        write(node);
    }

    private void write(Node node) {
        if (nodes.upsert(node)) {
            LOG.infof("node %s registered by its agent: %d GPUs, %s", node.name(), node.gpus().size(), node.health());
            planner.requestPlan();
        }
    }

    @Override
    public Uni<TelemetryAck> telemetry(Multi<TelemetryReport> reports) {
        Tokens.Grant grant = AgentTokenInterceptor.grant();
        // a report that arrives once shutdown has begun is left alone: the agent reports again to the replica that leads next
        return streams.untilRevoked(grant.id(), reports).emitOn(Infrastructure.getDefaultWorkerPool()).select().where(r -> !shuttingDown.begun())
                .onItem().invoke(r -> record(grant, r))
                .collect().with(Collectors.counting()).map(n -> TelemetryAck.newBuilder().setReports(n).build());
    }

    private void record(Tokens.Grant grant, TelemetryReport report) {
        String node = registered(own(grant, report.getNodeId()));
        AgentMessages.checkSize(report);
        AgentMessages.ownGpus(node, nodes.gpuUuids(node), report);
        List<NodeStore.Reading> readings = AgentMessages.readings(report.getGpusList());
        if (nodes.telemetry(node, readings, clock.millis())) {
            LOG.infof("node %s is reporting again", node);
            planner.requestPlan();
        }
        Map<String, Long> memory = new HashMap<>();
        readings.forEach(r -> memory.put(r.uuid(), r.memoryUsedMiB()));
        jobs.measured(node, memory);
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
        Tokens.Grant grant = AgentTokenInterceptor.grant();
        String node = own(grant, hello.getNodeId());
        return streams.untilRevoked(grant.id(), Multi.createFrom().deferred(() -> queue.stream(registered(node))).map(AgentMessages::command))
                .runSubscriptionOn(Infrastructure.getDefaultWorkerPool());
    }

    @Override
    @Blocking
    public Uni<ResultAck> reportResult(CommandResult result) {
        String node = registered(own(AgentTokenInterceptor.grant(), result.getNodeId()));
        if (!result.getSuccess() && result.getError().isBlank()) throw AgentMessages.invalid("error: a failed command needs the reason, for people");
        NodeCommand command = commands.find(node, result.getCommandId()).orElseThrow(() -> Status.NOT_FOUND
                .withDescription("node " + node + " has no command " + Limits.quote(result.getCommandId())).asRuntimeException());
        commands.finish(command.id(), result.getSuccess(), result.getError(), clock.millis());
        return Uni.createFrom().item(ResultAck.newBuilder().setState(commands.find(node, command.id()).orElseThrow().state()).build());
    }

    /** nodeId, when the call's credential is that node's; PERMISSION_DENIED when it is another node's. */
    private static String own(Tokens.Grant grant, String nodeId) {
        if (grant.node().equals(nodeId)) return nodeId;
        throw Status.PERMISSION_DENIED.withDescription("this credential (" + grant.id() + ") is node " + grant.node() + "'s; it cannot act for node "
                + Limits.quote(nodeId)).asRuntimeException();
    }

    /** The node id of a registered agent node, or NOT_FOUND telling the agent to register first. */
    private String registered(String nodeId) {
        nodes.find(nodeId).filter(n -> Node.FROM_AGENT.equals(n.source())).orElseThrow(() -> Status.NOT_FOUND
                .withDescription("node " + Limits.quote(nodeId) + " is not registered; call Register with its inventory first").asRuntimeException());
        return nodeId;
    }
}
