package dev.horizon.tests;

import dev.horizon.agent.v1.AgentServiceGrpc;
import dev.horizon.agent.v1.GpuInventory;
import dev.horizon.agent.v1.Health;
import dev.horizon.agent.v1.Inventory;
import dev.horizon.agent.v1.MigMode;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientInterceptors;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.GrpcSslContexts;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.MetadataUtils;
import io.grpc.stub.StreamObserver;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The agent protocol spoken from the test JVM, as a compromised or broken host would speak it: stubs generated from
 * agent.proto that carry any bearer token, and raw bytes sent as a method's request.
 */
final class AgentWire implements AutoCloseable {
    private static final long DEADLINE_SECONDS = 10;
    private final ManagedChannel channel;

    private AgentWire(ManagedChannel channel) {
        this.channel = channel;
    }

    static AgentWire plaintext(int port) {
        return new AgentWire(NettyChannelBuilder.forAddress("127.0.0.1", port).usePlaintext().build());
    }

    /** TLS, verifying the control plane's certificate against the CA certificate ca (PEM). */
    static AgentWire tls(int port, Path ca) {
        try {
            return new AgentWire(NettyChannelBuilder.forAddress("127.0.0.1", port).sslContext(GrpcSslContexts.forClient().trustManager(ca.toFile()).build())
                    .build());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private Channel with(String token) {
        Metadata headers = new Metadata();
        if (token != null) headers.put(Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER), "Bearer " + token);
        return ClientInterceptors.intercept(channel, MetadataUtils.newAttachHeadersInterceptor(headers));
    }

    AgentServiceGrpc.AgentServiceBlockingStub as(String token) {
        return AgentServiceGrpc.newBlockingStub(with(token)).withDeadlineAfter(DEADLINE_SECONDS, TimeUnit.SECONDS);
    }

    AgentServiceGrpc.AgentServiceStub async(String token) {
        return AgentServiceGrpc.newStub(with(token));
    }

    /** The status a unary method (Register, ReportResult) answers to raw bytes as its request: OK or the refusal. */
    Status raw(String method, byte[] request, String token) {
        MethodDescriptor<byte[], byte[]> md = MethodDescriptor.<byte[], byte[]>newBuilder().setType(MethodDescriptor.MethodType.UNARY)
                .setFullMethodName(MethodDescriptor.generateFullMethodName(AgentServiceGrpc.SERVICE_NAME, method))
                .setRequestMarshaller(BYTES).setResponseMarshaller(BYTES).build();
        try {
            ClientCalls.blockingUnaryCall(with(token), md, CallOptions.DEFAULT.withDeadlineAfter(DEADLINE_SECONDS, TimeUnit.SECONDS), request);
            return Status.OK;
        } catch (StatusRuntimeException e) {
            return e.getStatus();
        }
    }

    /** A host of n H100s, GPU uuids GPU-node-index. */
    static Inventory host(String node, int gpus) {
        Inventory.Builder inv = Inventory.newBuilder().setNodeName(node);
        for (int i = 0; i < gpus; i++) {
            inv.addGpus(GpuInventory.newBuilder().setIndex(i).setUuid("GPU-" + node + "-" + i).setModel("H100-80GB").setMemoryMib(81559)
                    .setMigMode(MigMode.MIG_DISABLED).setHealth(Health.HEALTHY));
        }
        return inv.build();
    }

    /** The code of what a call answered: OK, or the status it was refused with. */
    static Status.Code code(Runnable call) {
        try {
            call.run();
            return Status.Code.OK;
        } catch (StatusRuntimeException e) {
            return e.getStatus().getCode();
        }
    }

    /** A response observer that completes ended with the call's final status (OK, or what ended it) and ignores its messages. */
    static <T> StreamObserver<T> ending(CompletableFuture<Status> ended) {
        return new StreamObserver<>() {
            @Override
            public void onNext(T message) {
                // only how the call ends matters here
            }

            @Override
            public void onError(Throwable t) {
                ended.complete(Status.fromThrowable(t));
            }

            @Override
            public void onCompleted() {
                ended.complete(Status.OK);
            }
        };
    }

    @Override
    public void close() throws InterruptedException {
        channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }

    private static final MethodDescriptor.Marshaller<byte[]> BYTES = new MethodDescriptor.Marshaller<>() {
        @Override
        public InputStream stream(byte[] value) {
            return new ByteArrayInputStream(value);
        }

        @Override
        public byte[] parse(InputStream stream) {
            try {
                return stream.readAllBytes();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    };
}
