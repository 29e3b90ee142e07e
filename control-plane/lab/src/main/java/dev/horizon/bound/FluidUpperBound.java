package dev.horizon.bound;

import com.google.ortools.Loader;
import com.google.ortools.graph.MinCostFlow;
import dev.horizon.simulation.Scenario;
import dev.horizon.simulation.ServiceDemand;
import dev.horizon.simulation.SimJob;
import java.util.List;

/**
 * An upper bound no policy can beat on the metrics as defined: work is divisible, preemptible for free and
 * placement-free. A batch job runs on at most its own GPU count, only after its arrival, for at most its true duration;
 * inference serves at most each minute's demand (and no more than the cluster). Batch work and inference compete for
 * the same GPU-time, each at its own weight, so even a policy that starves inference for heavier batch work stays
 * below it. The best such schedule is a max-weight transportation problem (work -> hourly slots), solved exactly as a
 * min-cost max-flow; because every weight is positive, the max-weight flow is also a max flow, so one solve bounds both
 * the priority-weighted output and the utilization.
 */
public final class FluidUpperBound {
    /** Hourly slots: coarser slots only loosen a relaxation, and keep the flow small. */
    private static final long SLOT_SECONDS = 3600;
    private static final long WEIGHT_SCALE = 1000;

    static {
        Loader.loadNativeLibraries();
    }

    public record Bound(double priorityWeightedOutput, double utilization) {
    }

    private FluidUpperBound() {
    }

    public static Bound of(Scenario scenario) {
        long window = scenario.windowSeconds();
        int total = scenario.cluster().totalGpus();
        int slots = (int) ((window + SLOT_SECONDS - 1) / SLOT_SECONDS);
        List<SimJob> jobs = scenario.jobs();
        List<ServiceDemand> services = scenario.services();
        // nodes: 0 source, then one per job, one per (service, slot), one per slot, then the sink
        int firstService = 1 + jobs.size(), firstSlot = firstService + services.size() * slots, sink = firstSlot + slots;
        MinCostFlow flow = new MinCostFlow();
        long supply = 0;
        int[] jobArc = new int[jobs.size()];
        for (int j = 0; j < jobs.size(); j++) {
            SimJob job = jobs.get(j);
            long work = (long) job.gpus() * Math.min(job.trueDurationSeconds(), window - job.arrivalSeconds());
            if (work <= 0) {
                jobArc[j] = -1;
                continue;
            }
            supply += work;
            jobArc[j] = flow.addArcWithCapacityAndUnitCost(0, 1 + j, work, -Math.round(job.weight() * WEIGHT_SCALE));
            for (int slot = (int) (job.arrivalSeconds() / SLOT_SECONDS); slot < slots; slot++) {
                long from = Math.max(job.arrivalSeconds(), slot * SLOT_SECONDS);
                long to = Math.min(window, (slot + 1) * SLOT_SECONDS);
                if (to > from) flow.addArcWithCapacityAndUnitCost(1 + j, firstSlot + slot, (long) job.gpus() * (to - from), 0);
            }
        }
        int[][] serviceArc = new int[services.size()][slots];
        for (int s = 0; s < services.size(); s++) {
            long[] demand = demandPerSlot(services.get(s), scenario, total, slots);
            long cost = -Math.round(services.get(s).service().weightPerGpuHour() * WEIGHT_SCALE);
            for (int slot = 0; slot < slots; slot++) {
                int node = firstService + s * slots + slot;
                supply += demand[slot];
                serviceArc[s][slot] = flow.addArcWithCapacityAndUnitCost(0, node, demand[slot], cost);
                flow.addArcWithCapacityAndUnitCost(node, firstSlot + slot, demand[slot], 0);
            }
        }
        for (int slot = 0; slot < slots; slot++) {
            long length = Math.min(window, (slot + 1) * SLOT_SECONDS) - slot * SLOT_SECONDS;
            flow.addArcWithCapacityAndUnitCost(firstSlot + slot, sink, total * length, 0);
        }
        flow.setNodeSupply(0, supply);
        flow.setNodeSupply(sink, -supply);
        MinCostFlow.Status status = flow.solveMaxFlowWithMinCost();
        if (status != MinCostFlow.Status.OPTIMAL) throw new IllegalStateException("the fluid bound's flow did not solve: " + status);
        double output = 0, busy = 0;
        for (int j = 0; j < jobs.size(); j++) {
            if (jobArc[j] < 0) continue;
            long f = flow.getFlow(jobArc[j]);
            busy += f;
            output += jobs.get(j).weight() * f / 3600.0;
        }
        for (int s = 0; s < services.size(); s++) {
            for (int slot = 0; slot < slots; slot++) {
                long f = flow.getFlow(serviceArc[s][slot]);
                busy += f;
                output += services.get(s).service().weightPerGpuHour() * f / 3600.0;
            }
        }
        return new Bound(output, busy / ((double) total * window));
    }

    /** GPU-seconds of demand a service could serve in each slot: every minute's demand, at most the cluster (rounded up). */
    private static long[] demandPerSlot(ServiceDemand s, Scenario scenario, int total, int slots) {
        double[] perSlot = new double[slots];
        for (int m = 0; m < scenario.windowMinutes(); m++) {
            long start = (long) m * ServiceDemand.SECONDS_PER_MINUTE;
            perSlot[(int) (start / SLOT_SECONDS)] += Math.min(s.windowMinutes()[m], total) * ServiceDemand.SECONDS_PER_MINUTE;
        }
        long[] out = new long[slots];
        for (int i = 0; i < slots; i++) out[i] = (long) Math.ceil(perSlot[i] - 1e-6);
        return out;
    }
}
