package dev.horizon.ray.gcs;

import dev.horizon.ray.gcs.proto.AutoscalerStateServiceGrpc;
import dev.horizon.ray.gcs.proto.ClusterResourceState;
import dev.horizon.ray.gcs.proto.GetClusterResourceStateReply;
import dev.horizon.ray.gcs.proto.GetClusterResourceStateRequest;
import io.grpc.Server;
import io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.StreamObserver;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A Ray GCS as far as its autoscaler state service goes: a real gRPC server on a free local port answering
 * GetClusterResourceState with whatever state the test sets, as the GCS answers Ray's autoscaler.
 */
final class FakeGcs implements AutoCloseable {
    private final AtomicReference<ClusterResourceState> state = new AtomicReference<>(ClusterResourceState.getDefaultInstance());
    private final AtomicInteger calls = new AtomicInteger();
    private final AtomicLong version = new AtomicLong();
    private final Server server;

    FakeGcs() throws IOException {
        this(0);
    }

    /** On {@code port}: 0 for a free one, or the port of a GCS that was closed, to bring it back as a restarted head would. */
    FakeGcs(int port) throws IOException {
        server = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", port)).addService(new AutoscalerStateServiceGrpc.AutoscalerStateServiceImplBase() {
            @Override
            public void getClusterResourceState(GetClusterResourceStateRequest request, StreamObserver<GetClusterResourceStateReply> reply) {
                calls.incrementAndGet();
                // the GCS stamps each snapshot with a new version, as Ray's does
                reply.onNext(GetClusterResourceStateReply.newBuilder()
                        .setClusterResourceState(state.get().toBuilder().setClusterResourceStateVersion(version.incrementAndGet())).build());
                reply.onCompleted();
            }
        }).build().start();
    }

    int port() {
        return server.getPort();
    }

    String address() {
        return "127.0.0.1:" + server.getPort();
    }

    void reply(ClusterResourceState next) {
        state.set(next);
    }

    int calls() {
        return calls.get();
    }

    @Override
    public void close() throws InterruptedException {
        server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
}
