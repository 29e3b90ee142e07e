package dev.horizon.allocator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.horizon.allocator.model.Cluster;
import dev.horizon.allocator.model.GpuNode;
import dev.horizon.allocator.placement.Feasibility;
import dev.horizon.api.JobJson;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A job no node or NVLink domain could ever hold is refused, naming the field to change and what the cluster has. */
class FeasibilityTest {
    private final Cluster cluster = new Cluster(List.of(new GpuNode("h0", "H100-80GB", 8, 81_559, "rack-a"),
            new GpuNode("h1", "H100-80GB", 8, 81_559, "rack-a"), new GpuNode("a0", "A100-80GB", 8, 81_920, "rack-b")));

    private List<String> problems(String perReplica, int replicas, String topology) {
        return Feasibility.problems(JobJson.parse("{\"name\":\"x\",\"team\":\"t\",\"class\":\"TRAINING\",\"replicas\":" + replicas
                + ",\"perReplica\":" + perReplica + (topology == null ? "" : ",\"topology\":\"" + topology + "\"") + "}"), cluster);
    }

    @Test
    void aJobSomeNodeOrDomainCouldHoldHasNoProblem() {
        assertEquals(List.of(), problems("{\"gpus\":4,\"gpuTypes\":[\"A100-80GB\"]}", 2, "same-node"));
        assertEquals(List.of(), problems("{\"gpus\":8}", 2, "same-nvlink-domain"));
        assertEquals(List.of(), problems("{\"gpuMilli\":500,\"memoryMiB\":20000}", 16, "same-node"));
    }

    @Test
    void eachImpossibleAskNamesItsField() {
        assertEquals(List.of("perReplica.gpuTypes: GPU type 'L4' is not in the cluster; it has [A100-80GB, H100-80GB]"),
                problems("{\"gpus\":1,\"gpuTypes\":[\"L4\"]}", 1, null));
        assertTrue(problems("{\"gpus\":16}", 1, null).get(0).startsWith("perReplica.gpus: 16 GPUs per replica is more than any node"));
        assertTrue(problems("{\"gpus\":8,\"gpuTypes\":[\"A100-80GB\"]}", 2, null).get(0)
                .startsWith("replicas: 16 GPUs is more than the 8 the cluster could ever give it (accepted: 8 x A100-80GB)"));
        assertTrue(problems("{\"gpus\":4}", 3, "same-node").get(0).startsWith("topology: same-node needs 12 GPUs on one node; the most one node could hold is 8"));
        assertTrue(problems("{\"gpus\":8}", 3, "same-nvlink-domain").get(0)
                .startsWith("topology: same-nvlink-domain needs 24 GPUs inside one NVLink domain; the most one domain could hold is 16"));
        assertTrue(problems("{\"gpuMilli\":500,\"memoryMiB\":20000}", 17, "same-node").get(0).startsWith("topology: same-node needs 17 replicas of 500 milli-GPU"),
                "two 500-milli shares fit a GPU, so a node holds 16");
    }

    @Test
    void anElasticJobNeedsRoomOnlyForItsNarrowestWidth() {
        assertEquals(List.of(), Feasibility.problems(JobJson.parse("""
                {"name":"x","team":"t","class":"TRAINING","replicas":4,"minReplicas":2,"perReplica":{"gpus":8},"topology":"same-nvlink-domain"}"""),
                cluster));
    }
}
