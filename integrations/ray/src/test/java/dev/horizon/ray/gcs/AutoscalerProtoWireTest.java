package dev.horizon.ray.gcs;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Descriptors.FieldDescriptor.Type;
import dev.horizon.ray.gcs.proto.AffinityConstraint;
import dev.horizon.ray.gcs.proto.AntiAffinityConstraint;
import dev.horizon.ray.gcs.proto.AutoscalerStateServiceGrpc;
import dev.horizon.ray.gcs.proto.BundleSelector;
import dev.horizon.ray.gcs.proto.ClusterResourceState;
import dev.horizon.ray.gcs.proto.GangResourceRequest;
import dev.horizon.ray.gcs.proto.GetClusterResourceStateReply;
import dev.horizon.ray.gcs.proto.GetClusterResourceStateRequest;
import dev.horizon.ray.gcs.proto.NodeState;
import dev.horizon.ray.gcs.proto.PlacementConstraint;
import dev.horizon.ray.gcs.proto.ResourceRequest;
import dev.horizon.ray.gcs.proto.ResourceRequestByCount;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The messages must stay wire-compatible with Ray's src/ray/protobuf/autoscaler.proto: these are Ray's full names,
 * field numbers and types, so renumbering or retyping a field in autoscaler.proto fails here rather than against a
 * real GCS.
 */
class AutoscalerProtoWireTest {

    private static void field(Descriptor message, String name, int number, Type type) {
        FieldDescriptor field = message.findFieldByName(name);
        assertEquals(number, field == null ? -1 : field.getNumber(), message.getFullName() + "." + name + " number");
        assertEquals(type, field.getType(), message.getFullName() + "." + name + " type");
    }

    @Test
    void theServiceIsRaysAutoscalerStateService() {
        assertEquals("ray.rpc.autoscaler.AutoscalerStateService/GetClusterResourceState",
                AutoscalerStateServiceGrpc.getGetClusterResourceStateMethod().getFullMethodName());
    }

    @Test
    void requestAndReplyCarryRaysNumbers() {
        assertEquals("ray.rpc.autoscaler.GetClusterResourceStateRequest", GetClusterResourceStateRequest.getDescriptor().getFullName());
        field(GetClusterResourceStateRequest.getDescriptor(), "last_seen_cluster_resource_state_version", 1, Type.INT64);
        field(GetClusterResourceStateReply.getDescriptor(), "cluster_resource_state", 1, Type.MESSAGE);
        Descriptor state = ClusterResourceState.getDescriptor();
        field(state, "cluster_resource_state_version", 1, Type.INT64);
        field(state, "last_seen_autoscaler_state_version", 2, Type.INT64);
        field(state, "node_states", 3, Type.MESSAGE);
        field(state, "pending_resource_requests", 4, Type.MESSAGE);
        field(state, "pending_gang_resource_requests", 5, Type.MESSAGE);
        field(state, "cluster_resource_constraints", 6, Type.MESSAGE);
        field(state, "cluster_session_name", 7, Type.STRING);
    }

    @Test
    void demandMessagesCarryRaysNumbers() {
        field(ResourceRequest.getDescriptor(), "resources_bundle", 1, Type.MESSAGE); // a map is a repeated entry message
        assertEquals(Type.DOUBLE, ResourceRequest.getDescriptor().findFieldByName("resources_bundle").getMessageType()
                .findFieldByName("value").getType());
        field(ResourceRequest.getDescriptor(), "placement_constraints", 2, Type.MESSAGE);
        field(ResourceRequestByCount.getDescriptor(), "request", 1, Type.MESSAGE);
        field(ResourceRequestByCount.getDescriptor(), "count", 2, Type.INT64);
        field(GangResourceRequest.getDescriptor(), "requests", 1, Type.MESSAGE);
        field(GangResourceRequest.getDescriptor(), "details", 2, Type.STRING);
        field(GangResourceRequest.getDescriptor(), "bundle_selectors", 3, Type.MESSAGE);
        field(BundleSelector.getDescriptor(), "resource_requests", 1, Type.MESSAGE);
        field(PlacementConstraint.getDescriptor(), "anti_affinity", 1, Type.MESSAGE);
        field(PlacementConstraint.getDescriptor(), "affinity", 2, Type.MESSAGE);
        for (Descriptor constraint : new Descriptor[] {AffinityConstraint.getDescriptor(), AntiAffinityConstraint.getDescriptor()}) {
            field(constraint, "label_name", 1, Type.STRING);
            field(constraint, "label_value", 2, Type.STRING);
        }
    }

    /** Bytes written field by field with Ray's numbers, as a GCS would send them, read back through the generated classes. */
    @Test
    void handWrittenGcsBytesDecode() throws IOException {
        ByteArrayOutputStream entry = new ByteArrayOutputStream();
        CodedOutputStream e = CodedOutputStream.newInstance(entry);
        e.writeString(1, "GPU"); // map entry: key = 1, value = 2
        e.writeDouble(2, 0.5);
        e.flush();
        ByteArrayOutputStream request = new ByteArrayOutputStream();
        CodedOutputStream r = CodedOutputStream.newInstance(request);
        r.writeByteArray(1, entry.toByteArray()); // ResourceRequest.resources_bundle = 1
        r.flush();
        ByteArrayOutputStream byCount = new ByteArrayOutputStream();
        CodedOutputStream b = CodedOutputStream.newInstance(byCount);
        b.writeByteArray(1, request.toByteArray()); // ResourceRequestByCount.request = 1
        b.writeInt64(2, 3); // count = 2
        b.flush();
        ByteArrayOutputStream state = new ByteArrayOutputStream();
        CodedOutputStream s = CodedOutputStream.newInstance(state);
        s.writeInt64(1, 42); // cluster_resource_state_version = 1
        s.writeByteArray(4, byCount.toByteArray()); // pending_resource_requests = 4
        s.writeString(7, "session_2026"); // cluster_session_name = 7
        s.flush();

        ClusterResourceState decoded = ClusterResourceState.parseFrom(state.toByteArray());
        assertEquals(42, decoded.getClusterResourceStateVersion());
        assertEquals("session_2026", decoded.getClusterSessionName());
        assertEquals(3, decoded.getPendingResourceRequests(0).getCount());
        assertEquals(Map.of("GPU", 0.5), decoded.getPendingResourceRequests(0).getRequest().getResourcesBundleMap());
    }

    @Test
    void nodeStateCarriesRaysNumbers() {
        Descriptor node = NodeState.getDescriptor();
        field(node, "node_id", 1, Type.BYTES);
        field(node, "instance_id", 2, Type.STRING);
        field(node, "ray_node_type_name", 3, Type.STRING);
        field(node, "available_resources", 4, Type.MESSAGE);
        field(node, "total_resources", 5, Type.MESSAGE);
        field(node, "status", 8, Type.ENUM);
        field(node, "node_ip_address", 10, Type.STRING);
        field(node, "labels", 13, Type.MESSAGE);
    }
}
