package dev.horizon.agent;

import dev.horizon.agent.v1.AgentHello;
import dev.horizon.agent.v1.AgentServiceGrpc;
import dev.horizon.agent.v1.Command;
import dev.horizon.agent.v1.CommandResult;
import dev.horizon.agent.v1.Inventory;
import dev.horizon.agent.v1.RegisterReply;
import dev.horizon.agent.v1.TelemetryAck;
import dev.horizon.agent.v1.TelemetryReport;
import io.grpc.Channel;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import io.grpc.stub.MetadataUtils;
import io.grpc.stub.StreamObserver;
import io.quarkus.grpc.GrpcClient;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.EnumSet;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

/**
 * The agent's side of horizon/agent/v1/agent.proto: register, keep the command stream open, stream telemetry.
 * Called from the agent's loop on every tick; while the control plane is unreachable the reports are buffered
 * (the newest {@code telemetry-buffer} of them) and connecting is retried with a doubling backoff.
 */
@ApplicationScoped
public class ControlPlaneLink {
    private static final Logger LOG = Logger.getLogger(ControlPlaneLink.class);
    private static final long CALL_DEADLINE_SECONDS = 10;
    /**
     * The longest wait between a node's asks whether an admin approved it, which double from one telemetry interval:
     * thousands of unapproved nodes asking every interval (5 s) would load the control plane for nothing; kubelet's
     * CSR polling backs off the same way.
     */
    static final Duration APPROVAL_ASK_MAX = Duration.ofSeconds(60);
    /** The codes of a control plane that answered and said no, unlike UNAVAILABLE or DEADLINE_EXCEEDED. */
    private static final Set<Status.Code> REFUSALS = EnumSet.of(Status.Code.INVALID_ARGUMENT, Status.Code.NOT_FOUND, Status.Code.ALREADY_EXISTS,
            Status.Code.PERMISSION_DENIED, Status.Code.FAILED_PRECONDITION, Status.Code.UNAUTHENTICATED);

    /** The channel quarkus.grpc.clients.control-plane.* configures; the streams need the plain async stub on it. */
    @GrpcClient("control-plane")
    Channel channel;
    @ConfigProperty(name = "quarkus.grpc.clients.control-plane.host")
    String host;
    @ConfigProperty(name = "quarkus.grpc.clients.control-plane.port")
    int port;
    @Inject
    AgentConfig config;
    @Inject
    CommandHandler commands;
    @Inject
    NodeCredential credential;

    /** Commands run one at a time, off the gRPC threads: a drain may wait for minutes. */
    private final ExecutorService commandRunner = Executors.newSingleThreadExecutor(r -> new Thread(r, "horizon-agent-commands"));
    private final Deque<TelemetryReport> unsent = new ArrayDeque<>();
    private volatile String nodeId;
    /**
     * The inventory the control plane last accepted. Any difference (a MIG layout applied, a GPU lost) registers again;
     * comparing rather than flagging changes means a snapshot read while a layout was half applied is followed by the
     * finished one.
     */
    private Inventory registered;
    /** What the last registration answered: the node waits for an admin's approval, and gets no work until it has it. */
    private volatile boolean awaitingApproval;
    private volatile StreamObserver<TelemetryReport> telemetry;
    private volatile ClientCallStreamObserver<AgentHello> commandStream;
    /** Why the link broke, set by the streams' callbacks; null while it is up. */
    private volatile String broken = "not connected yet";
    /** Which connection the streams' callbacks belong to: callbacks of an older one (cancelled by us) are ignored. */
    private final AtomicInteger generation = new AtomicInteger();
    /**
     * Set by stop(): the streams it cancels or completes call back as if the link broke, but nothing is lost then, so
     * nothing is warned about and nothing is retried.
     */
    private volatile boolean stopping;
    private long nextAttemptNanos;
    private long backoffMillis;
    /** The wait before asking again whether the node was approved; 0 while it is not awaiting approval. */
    private long approvalAskMillis;
    private long nextApprovalAskNanos;
    /** The clock the waits are timed on; tests move their own. */
    LongSupplier nanoTime = System::nanoTime;

    public boolean connected() {
        return broken == null;
    }

    /** Why the agent is not connected, null when it is. */
    public String problem() {
        return broken;
    }

    /** Whether the control plane said this node waits for an admin's approval (./horizon node approve NAME). */
    public boolean awaitingApproval() {
        return awaitingApproval;
    }

    /** The node's name as the control plane knows it, null before the first registration. */
    public String nodeId() {
        return nodeId;
    }

    /**
     * One tick: connect if due, re-register when the inventory changed or, while the node awaits approval, when asking
     * again is due (the reply says when it was approved), send this report and any buffered ones.
     */
    void tick(Inventory inventory, TelemetryReport report) {
        if (stopping) return;
        unsent.addLast(report);
        while (unsent.size() > Math.max(1, config.telemetryBuffer())) unsent.removeFirst();
        try {
            if (!connected()) {
                if (nanoTime.getAsLong() < nextAttemptNanos) return;
                connect(inventory);
            } else if (!inventory.equals(registered) || approvalAskDue()) {
                register(inventory);
            }
            flush();
        } catch (RuntimeException e) {
            lost(generation.get(), describe(e), refused(e));
        }
    }

    private void connect(Inventory inventory) {
        register(inventory);
        int current = generation.incrementAndGet();
        broken = null;
        asyncStub().commands(AgentHello.newBuilder().setNodeId(nodeId).build(), new ClientResponseObserver<AgentHello, Command>() {
            @Override
            public void beforeStart(ClientCallStreamObserver<AgentHello> call) {
                commandStream = call;
            }

            @Override
            public void onNext(Command command) {
                commandRunner.execute(() -> report(command));
            }

            @Override
            public void onError(Throwable t) {
                lost(current, "command stream: " + describe(t), refused(t));
            }

            @Override
            public void onCompleted() {
                lost(current, "the control plane closed the command stream", false);
            }
        });
        telemetry = asyncStub().telemetry(new StreamObserver<TelemetryAck>() {
            @Override
            public void onNext(TelemetryAck ack) {
                LOG.debugf("control plane acknowledged %d reports", ack.getReports());
            }

            @Override
            public void onError(Throwable t) {
                lost(current, "telemetry stream: " + describe(t), refused(t));
            }

            @Override
            public void onCompleted() {
                lost(current, "the control plane closed the telemetry stream", false);
            }
        });
        backoffMillis = 0;
        LOG.infof("connected to the control plane at %s:%d as node %s", host, port, nodeId);
    }

    /**
     * Registers; a kept credential the control plane refuses is followed at once by a try with horizon.agent.token. An
     * enrollment carries the node's enrollment nonce, so a retry whose first reply was lost gets the same credential.
     */
    private void register(Inventory inventory) {
        RegisterReply reply;
        try {
            reply = blockingStub().register(credential.withEnrollmentNonce(inventory));
        } catch (StatusRuntimeException e) {
            if (e.getStatus().getCode() != Status.Code.UNAUTHENTICATED || !credential.refused(describe(e))) throw e;
            reply = blockingStub().register(credential.withEnrollmentNonce(inventory));
        }
        if (!reply.getNodeCredential().isEmpty()) credential.issued(reply.getNodeCredential());
        nodeId = reply.getNodeId();
        // asking again while the node awaits approval is no new registration, and a line every tick would bury the rest
        if (!inventory.equals(registered)) LOG.infof("registered with the control plane as node %s (%d GPUs)", nodeId, inventory.getGpusCount());
        registered = inventory;
        approval(reply.getAwaitingApproval());
        nextApprovalAsk(reply.getAwaitingApproval());
    }

    private boolean approvalAskDue() {
        return awaitingApproval && nanoTime.getAsLong() >= nextApprovalAskNanos;
    }

    /** While the node awaits approval each ask waits twice the last, up to APPROVAL_ASK_MAX; approved, the next wait starts over. */
    private void nextApprovalAsk(boolean awaiting) {
        if (!awaiting) {
            approvalAskMillis = 0;
            return;
        }
        approvalAskMillis = approvalAskMillis == 0 ? config.telemetryInterval().toMillis() : Math.min(approvalAskMillis * 2, APPROVAL_ASK_MAX.toMillis());
        nextApprovalAskNanos = nanoTime.getAsLong() + TimeUnit.MILLISECONDS.toNanos(approvalAskMillis);
    }

    /** Says that the node waits for an admin's approval, and that it was approved, once each: not on every registration. */
    private void approval(boolean awaiting) {
        if (awaiting == awaitingApproval) return;
        awaitingApproval = awaiting;
        if (awaiting) {
            LOG.warnf("node %s waits for an admin's approval and gets no work until then: an admin runs ./horizon node approve %s", nodeId, nodeId);
        } else {
            LOG.infof("node %s was approved by an admin; it takes work now", nodeId);
        }
    }

    /** Sends the buffered reports oldest first. A report handed to a stream that breaks just after is lost with it. */
    private void flush() {
        StreamObserver<TelemetryReport> stream = telemetry;
        while (connected() && !unsent.isEmpty()) {
            stream.onNext(unsent.removeFirst().toBuilder().setNodeId(nodeId).build());
        }
    }

    private void report(Command command) {
        CommandResult result = commands.handle(nodeId, command);
        try {
            blockingStub().reportResult(result);
        } catch (RuntimeException e) {
            // The control plane sends unanswered commands again on the next command stream, and every
            // command is safe to repeat, so the result is not kept here.
            LOG.warnf("could not report command %s's result (%s); the control plane will send it again", command.getId(),
                    describe(e));
        }
    }

    /**
     * refused: the control plane answered and turned this agent away (a used-up enrollment token, a revoked credential,
     * GPUs registered on another node), which an admin must fix; "unreachable" sent operators looking at the network.
     */
    private synchronized void lost(int connection, String why, boolean refused) {
        if (!generation.compareAndSet(connection, connection + 1)) return;
        if (stopping) {
            // our own stop() closed the streams: the agent is going, not the control plane
            broken = "the agent is stopping";
            LOG.debugf("closed the link to the control plane at %s:%d as the agent stops (%s)", host, port, why);
            return;
        }
        broken = why;
        long initial = config.reconnectInitial().toMillis();
        backoffMillis = backoffMillis == 0 ? initial : Math.min(backoffMillis * 2, config.reconnectMax().toMillis());
        nextAttemptNanos = nanoTime.getAsLong() + TimeUnit.MILLISECONDS.toNanos(backoffMillis);
        // Both streams go, so the next connection does not receive every command twice.
        StreamObserver<TelemetryReport> stream = telemetry;
        ClientCallStreamObserver<AgentHello> commandCall = commandStream;
        telemetry = null;
        commandStream = null;
        if (stream != null) stream.onError(Status.CANCELLED.withDescription("reconnecting").asRuntimeException());
        if (commandCall != null) commandCall.cancel("reconnecting", null);
        LOG.warnf("control plane at %s:%d %s (%s); retrying in %d ms, %d telemetry reports buffered", host, port,
                refused ? "refused this agent" : "unreachable", why, backoffMillis, unsent.size());
    }

    void stop() {
        stopping = true;
        commandRunner.shutdownNow();
        StreamObserver<TelemetryReport> stream = telemetry;
        ClientCallStreamObserver<AgentHello> commandCall = commandStream;
        if (stream != null) stream.onCompleted();
        if (commandCall != null) commandCall.cancel("the agent is stopping", null);
    }

    private static boolean refused(Throwable t) {
        return REFUSALS.contains(Status.fromThrowable(t).getCode());
    }

    /** One line: the gRPC code, its description and the cause's message, without the stack trace Status.toString() carries. */
    private static String describe(Throwable t) {
        Status status = Status.fromThrowable(t);
        StringBuilder text = new StringBuilder(status.getCode().name());
        if (status.getDescription() != null) text.append(": ").append(status.getDescription());
        if (status.getCause() != null) text.append(" (").append(status.getCause().getMessage()).append(')');
        return text.toString();
    }

    private AgentServiceGrpc.AgentServiceBlockingStub blockingStub() {
        return AgentServiceGrpc.newBlockingStub(channel).withInterceptors(MetadataUtils.newAttachHeadersInterceptor(authorization()))
                .withDeadlineAfter(CALL_DEADLINE_SECONDS, TimeUnit.SECONDS);
    }

    private AgentServiceGrpc.AgentServiceStub asyncStub() {
        return AgentServiceGrpc.newStub(channel).withInterceptors(MetadataUtils.newAttachHeadersInterceptor(authorization()));
    }

    private Metadata authorization() {
        Metadata headers = new Metadata();
        credential.current().ifPresent(t -> headers.put(Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER), "Bearer " + t));
        return headers;
    }
}
