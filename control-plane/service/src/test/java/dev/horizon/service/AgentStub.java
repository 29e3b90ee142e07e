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

/** What the agent tests send as an agent: a gRPC stub with a bearer token, and H100 inventories. */
final class AgentStub {
    private AgentStub() {
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
