package dev.horizon.agent;

import dev.horizon.agent.v1.AgentHello;
import dev.horizon.agent.v1.AgentServiceGrpc;
import dev.horizon.agent.v1.Command;
import dev.horizon.agent.v1.CommandResult;
import dev.horizon.agent.v1.Inventory;
import dev.horizon.agent.v1.RegisterReply;
import dev.horizon.agent.v1.ResultAck;
import dev.horizon.agent.v1.TelemetryAck;
import dev.horizon.agent.v1.TelemetryReport;
import io.grpc.Contexts;
import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.StreamObserver;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * A control plane that keeps what agents send (registrations with their authorization header, telemetry,
 * results) and pushes commands to the agent's open command stream. It can stop and start again on the same
 * port, to see the agent reconnect.
 */
final class FakeControlPlane extends AgentServiceGrpc.AgentServiceImplBase {
    private static final Metadata.Key<String> AUTHORIZATION = Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);
    private static final io.grpc.Context.Key<String> CALLER = io.grpc.Context.key("authorization");

    final List<Inventory> registrations = new CopyOnWriteArrayList<>();
    final List<String> authorizations = new CopyOnWriteArrayList<>();
    final List<TelemetryReport> reports = new CopyOnWriteArrayList<>();
    final BlockingQueue<CommandResult> results = new LinkedBlockingQueue<>();
    static final String ENROLLMENT = "Bearer test-agent-token";
    private volatile StreamObserver<Command> commandStream;

    static String credential(String node) {
        return "node-credential-of-" + node;
    }
    private Server server;
    private int port;

    synchronized void start() {
        ServerInterceptor caller = new ServerInterceptor() {
            @Override
            public <Q, R> io.grpc.ServerCall.Listener<Q> interceptCall(io.grpc.ServerCall<Q, R> call, Metadata headers,
                    io.grpc.ServerCallHandler<Q, R> next) {
                return Contexts.interceptCall(io.grpc.Context.current().withValue(CALLER, headers.get(AUTHORIZATION)), call, headers, next);
            }
        };
        if (port != 0) {
            server = bound(port, caller);
            return;
        }
        IOException taken = null;
        for (int tries = 0; tries < 100 && server == null; tries++) {
            try {
                server = bound(FIRST_PORT + ThreadLocalRandom.current().nextInt(PORTS), caller);
            } catch (UncheckedIOException e) {
                taken = e.getCause();
            }
        }
        if (server == null) throw new UncheckedIOException("no free port below the ephemeral range", taken);
        port = server.getPort();
    }

    /**
     * Ports below Linux's ephemeral range (32768-60999). With a port from that range (port 0), an outgoing connection
     * could be given the same local port while this server is stopped (the agent's own reconnects to it among them),
     * and the restart could not bind it again (CI saw "Failed to bind to address 0.0.0.0:39327").
     */
    private static final int FIRST_PORT = 20_000, PORTS = 12_000;

    private Server bound(int at, ServerInterceptor caller) {
        try {
            return NettyServerBuilder.forPort(at).addService(ServerInterceptors.intercept(this, caller)).build().start();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    synchronized void stop() throws InterruptedException {
        commandStream = null;
        if (server == null) return;
        server.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
        server = null;
    }

    int port() {
        return port;
    }

    /** What Register answers in awaiting_approval: the node waits for an admin's approval. */
    volatile boolean awaitingApproval;

    /** Where set, how Register turns the agent away. */
    volatile io.grpc.Status refusal;

    @Override
    public void register(Inventory request, StreamObserver<RegisterReply> reply) {
        authorizations.add(String.valueOf(CALLER.get()));
        if (refusal != null) {
            reply.onError(refusal.asRuntimeException());
            return;
        }
        registrations.add(request);
        RegisterReply.Builder answer = RegisterReply.newBuilder().setNodeId(request.getNodeName()).setStepSeconds(900)
                .setAwaitingApproval(awaitingApproval);
        // enrollment, as the real control plane does it: the configured (enrollment) token gets the node's own credential
        if (ENROLLMENT.equals(CALLER.get())) answer.setNodeCredential(credential(request.getNodeName()));
        reply.onNext(answer.build());
        reply.onCompleted();
    }

    @Override
    public StreamObserver<TelemetryReport> telemetry(StreamObserver<TelemetryAck> ack) {
        return new StreamObserver<>() {
            @Override
            public void onNext(TelemetryReport report) {
                reports.add(report);
            }

            @Override
            public void onError(Throwable t) {
                // the agent went away; nothing to answer
            }

            @Override
            public void onCompleted() {
                ack.onNext(TelemetryAck.newBuilder().setReports(reports.size()).build());
                ack.onCompleted();
            }
        };
    }

    @Override
    public void commands(AgentHello hello, StreamObserver<Command> stream) {
        commandStream = stream;
    }

    @Override
    public void reportResult(CommandResult result, StreamObserver<ResultAck> ack) {
        results.add(result);
        ack.onNext(ResultAck.newBuilder().setState(result.getSuccess() ? "SUCCEEDED" : "FAILED").build());
        ack.onCompleted();
    }

    /** Sends the command once the agent's command stream is open, and answers its result. */
    CommandResult send(Command command, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (commandStream == null) {
            if (System.nanoTime() > deadline) throw new AssertionError("the agent never opened its command stream");
            Thread.sleep(20);
        }
        commandStream.onNext(command);
        while (true) {
            CommandResult r = results.poll(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            if (r == null) throw new AssertionError("no result for command " + command.getId() + " within " + timeout);
            if (r.getCommandId().equals(command.getId())) return r;
        }
    }

    /** Waits until a report that {@code test} accepts has arrived. */
    TelemetryReport awaitReport(Predicate<TelemetryReport> test, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            for (TelemetryReport r : reports) if (test.test(r)) return r;
            Thread.sleep(20);
        }
        throw new AssertionError("no such telemetry report within " + timeout + "; got " + reports.size() + " reports");
    }
}
