package dev.horizon.service;

import static dev.horizon.service.Api.ADMIN;
import static dev.horizon.service.Api.as;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.horizon.agent.v1.Inventory;
import dev.horizon.service.kubernetes.KubernetesCluster;
import dev.horizon.service.nodes.NodePlatform;
import dev.horizon.service.planning.Planner;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import java.net.URL;
import org.junit.jupiter.api.Test;

/**
 * A node an admin cordoned in Kubernetes (kubectl cordon or drain: spec.unschedulable) takes no new work: Horizon binds
 * its pods itself, and a bound pod passes a cordon by. The fabric8 mock API server plays the cluster.
 */
@QuarkusTest
@TestProfile(KubernetesProfile.class)
class KubernetesCordonTest {
    private static final String NODE = "host-cordoned";

    @TestHTTPResource("/")
    URL base;
    @Inject
    Planner planner;
    @Inject
    KubernetesCluster cluster;

    private static void cordon(KubernetesClient kube, boolean unschedulable) {
        kube.nodes().withName(NODE).edit(n -> {
            n.getSpec().setUnschedulable(unschedulable);
            return n;
        });
    }

    private static String state(String job) {
        return as(ADMIN).get("/api/v1/jobs/" + job).then().statusCode(200).extract().path("state");
    }

    @Test
    void aCordonedNodeTakesNoNewWorkUntilUncordoned() {
        KubernetesClient kube = KubernetesMockResource.client();
        kube.nodes().resource(new NodeBuilder().withNewMetadata().withName(NODE).addToLabels("nvidia.com/gpu.present", "true").endMetadata()
                .withNewSpec().withUnschedulable(true).endSpec().withNewStatus().addToAllocatable("nvidia.com/gpu", new Quantity("1")).endStatus()
                .build()).create();
        cluster.forgetLabels();
        ManagedChannel channel = ManagedChannelBuilder.forAddress(base.getHost(), base.getPort()).usePlaintext().build();
        try {
            // an A100 no other test's node has, so only this node could take the job
            Inventory a100 = Inventory.newBuilder().setNodeName(NODE).addGpus(AgentStub.h100("GPU-" + NODE + "-0", 0).toBuilder().setModel("A100-80GB"))
                    .build();
            AgentStub.enrolled(channel, a100);
            Api.team("cordons", 0.2);
            String job = Api.submit(ADMIN, "{\"name\":\"wants-an-a100\",\"team\":\"cordons\",\"class\":\"DEBUG\",\"perReplica\":{\"gpus\":1,"
                    + "\"gpuTypes\":[\"A100-80GB\"]},\"durationEstimateSeconds\":600}");
            planner.planNow();
            assertEquals("PENDING", state(job), "the only A100 is on a cordoned node");
            as(ADMIN).get("/api/v1/nodes/" + NODE).then().body("drainReason", equalTo(NodePlatform.CORDONED));
            as(ADMIN).delete("/api/v1/nodes/" + NODE + "/drain").then().statusCode(409).body("error", containsString("kubectl uncordon"));

            cordon(kube, false);
            cluster.forgetLabels();
            planner.planNow();
            assertEquals("RUNNING", state(job), "uncordoned, it takes the job");
            as(ADMIN).delete("/api/v1/jobs/" + job).then().statusCode(200);
        } finally {
            channel.shutdownNow();
        }
    }
}
