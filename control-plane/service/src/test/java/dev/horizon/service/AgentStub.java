package dev.horizon.service;

import dev.horizon.agent.v1.GpuInventory;
import dev.horizon.agent.v1.Health;
import dev.horizon.agent.v1.Inventory;
import dev.horizon.agent.v1.MigMode;
import dev.horizon.agent.v1.MutinyAgentServiceGrpc;
import dev.horizon.agent.v1.MutinyAgentServiceGrpc.MutinyAgentServiceStub;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.stub.MetadataUtils;
import java.time.Duration;

/** What the agent tests send as an agent: a gRPC stub with a bearer token, and H100 inventories. */
final class AgentStub {
    private AgentStub() {
    }

    /**
     * Enrolls inventory's node with a fresh enrollment token (an agent token bound to no node) and returns a stub that
     * carries the node credential Register answered, as an agent keeps it; each test's node names are its own.
     */
    static MutinyAgentServiceStub enrolled(ManagedChannel channel, Inventory inventory) {
        return agent(channel, "Bearer " + enrolledCredential(channel, inventory));
    }

    /** The node credential enrolling inventory's node with a fresh enrollment token answered. */
    static String enrolledCredential(ManagedChannel channel, Inventory inventory) {
        String credential = agent(channel, "Bearer " + Api.token("agent", null)).register(inventory).await().atMost(Duration.ofSeconds(10))
                .getNodeCredential();
        if (credential.isEmpty()) throw new AssertionError("enrolling " + inventory.getNodeName() + " answered no node credential");
        return credential;
    }

    static MutinyAgentServiceStub agent(ManagedChannel channel, String bearer) {
        Metadata metadata = new Metadata();
        if (bearer != null) metadata.put(Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER), bearer);
        return MutinyAgentServiceGrpc.newMutinyStub(channel).withInterceptors(MetadataUtils.newAttachHeadersInterceptor(metadata));
    }

    static GpuInventory h100(String uuid, int index) {
        return GpuInventory.newBuilder().setIndex(index).setUuid(uuid).setModel("H100-80GB").setProductName("NVIDIA H100 80GB HBM3")
                .setMemoryMib(81559).setMigMode(MigMode.MIG_DISABLED).setHealth(Health.HEALTHY).build();
    }

    /** A host of H100s with MIG off, GPU uuids GPU-name-index. */
    static Inventory host(String name, int gpus) {
        Inventory.Builder inv = Inventory.newBuilder().setNodeName(name);
        for (int i = 0; i < gpus; i++) inv.addGpus(h100("GPU-" + name + "-" + i, i));
        return inv.build();
    }
}
