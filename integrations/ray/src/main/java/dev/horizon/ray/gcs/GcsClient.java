package dev.horizon.ray.gcs;

import dev.horizon.ray.gcs.proto.AutoscalerStateServiceGrpc;
import dev.horizon.ray.gcs.proto.ClusterResourceState;
import dev.horizon.ray.gcs.proto.GetClusterResourceStateRequest;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Reads a Ray cluster's resource state from its GCS (the head node's gRPC port, 6379 by default) the way Ray's
 * autoscaler v2 does, with {@code AutoscalerStateService.GetClusterResourceState}. Ray needs no change: the GCS serves
 * this call to its own autoscaler.
 */
public final class GcsClient implements AutoCloseable {
    private final String address;
    private final ManagedChannel channel;
    private final AutoscalerStateServiceGrpc.AutoscalerStateServiceBlockingStub stub;
    private final Duration timeout;

    /** {@code address} is HOST:PORT; a call that takes longer than {@code timeout} fails as DEADLINE_EXCEEDED. */
    public GcsClient(String address, Duration timeout) {
        this.address = address;
        this.channel = ManagedChannelBuilder.forTarget(address).usePlaintext().build();
        this.stub = AutoscalerStateServiceGrpc.newBlockingStub(channel);
        this.timeout = timeout;
    }

    /** HOST:PORT, checked, as the command line gives it. */
    public static String address(String text, String field) {
        int colon = text.lastIndexOf(':');
        if (colon < 1 || !text.substring(colon + 1).matches("\\d{1,5}") || Integer.parseInt(text.substring(colon + 1)) > 65535) {
            throw new IllegalArgumentException(field + ": '" + text + "' is not HOST:PORT; give the Ray head's GCS address, such as"
                    + " raycluster-head-svc.ml:6379");
        }
        return text;
    }

    public String address() {
        return address;
    }

    /** Throws {@link io.grpc.StatusRuntimeException} when the GCS cannot be reached or refuses the call. */
    public ClusterResourceState clusterResourceState() {
        // version 0: Horizon wants the whole state each time, not a diff against one it saw
        return stub.withDeadlineAfter(timeout.toMillis(), TimeUnit.MILLISECONDS)
                .getClusterResourceState(GetClusterResourceStateRequest.newBuilder().setLastSeenClusterResourceStateVersion(0).build())
                .getClusterResourceState();
    }

    @Override
    public void close() {
        channel.shutdownNow();
    }
}
