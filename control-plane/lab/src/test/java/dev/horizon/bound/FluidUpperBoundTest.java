package dev.horizon.bound;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.horizon.allocator.model.Cluster;
import dev.horizon.allocator.model.InferenceService;
import dev.horizon.api.Contract;
import dev.horizon.api.JobClass;
import dev.horizon.simulation.Scenario;
import dev.horizon.simulation.ServiceDemand;
import dev.horizon.simulation.SimJob;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class FluidUpperBoundTest {
    @Test
    void servesInferenceFirstThenTheHeaviestWorkThatFits() {
        // 2 GPUs for 2 hours; inference takes 1 GPU throughout; two 1-GPU jobs of 2 h each compete
        Cluster two = Cluster.homogeneous(2, 2, "H100-80GB", 81_559);
        Contract c = Contract.defaultFor(JobClass.TRAINING);
        List<SimJob> jobs = List.of(new SimJob("light", "t", JobClass.TRAINING, 1, 1, 1, 0, 7200, null, c),
                new SimJob("heavy", "t", JobClass.TRAINING, 8, 1, 1, 3600, 7200, null, c));
        double[] demand = new double[8];
        java.util.Arrays.fill(demand, 1.0);
        Scenario s = new Scenario("t", two, 900, 8, 8, jobs, List.of(new ServiceDemand(new InferenceService("i", "s", 4, 1), new double[0], demand)),
                List.of(), Map.of());
        FluidUpperBound.Bound b = FluidUpperBound.of(s);
        // inference: 2 GPU-hours x 4; batch: the light job's first hour (1) and the heavy job's hour (8)
        assertEquals(8 + 1 + 8, b.priorityWeightedOutput(), 1e-6);
        assertEquals(1.0, b.utilization(), 1e-9);
    }
}
