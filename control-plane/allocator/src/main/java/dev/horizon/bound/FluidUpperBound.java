package dev.horizon.bound;

import com.google.ortools.Loader;
import com.google.ortools.graph.MinCostFlow;
import dev.horizon.simulation.Scenario;
import dev.horizon.simulation.ServiceDemand;
import dev.horizon.simulation.SimJob;
import java.util.List;

/**
 * An upper bound no policy can beat: inference demand is served first and in full; batch work is
 * divisible, preemptible for free and placement-free, but a job runs on at most its own GPU count,
 * only after its arrival, for at most its true duration. The best such schedule is a max-weight
 * transportation problem (jobs -> hourly slots), solved exactly as a min-cost max-flow; because
 * every weight is positive, the max-weight flow is also a max flow, so one solve bounds both the
 * priority-weighted output and the utilization.
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
        long step = scenario.stepSeconds();
        int slots = (int) ((window + SLOT_SECONDS - 1) / SLOT_SECONDS);
        double[] slotFree = new double[slots];
        double inferenceOutput = 0, inferenceBusy = 0;
        for (int k = 0; k < scenario.windowSteps(); k++) {
            double used = 0;
            for (ServiceDemand s : scenario.services()) {
                double served = Math.min(s.window()[k], total - used);
                used += served;
                inferenceOutput += s.service().weightPerGpuHour() * served * step / 3600.0;
            }
            inferenceBusy += used * step;
            long start = k * step;
            for (long a = start; a < start + step; ) {
                int slot = (int) (a / SLOT_SECONDS);
                long b = Math.min(start + step, (slot + 1) * SLOT_SECONDS);
                slotFree[slot] += (total - used) * (b - a);
                a = b;
            }
        }
        List<SimJob> jobs = scenario.jobs();
        MinCostFlow flow = new MinCostFlow();
        int source = 0, sink = 1 + jobs.size() + slots;
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
            jobArc[j] = flow.addArcWithCapacityAndUnitCost(source, 1 + j, work, -Math.round(job.weight() * WEIGHT_SCALE));
            for (int slot = (int) (job.arrivalSeconds() / SLOT_SECONDS); slot < slots; slot++) {
                long from = Math.max(job.arrivalSeconds(), slot * SLOT_SECONDS);
                long to = Math.min(window, (slot + 1) * SLOT_SECONDS);
                if (to > from) flow.addArcWithCapacityAndUnitCost(1 + j, 1 + jobs.size() + slot, (long) job.gpus() * (to - from), 0);
            }
        }
        for (int slot = 0; slot < slots; slot++) {
            flow.addArcWithCapacityAndUnitCost(1 + jobs.size() + slot, sink, (long) Math.floor(slotFree[slot] + 1e-6), 0);
        }
        flow.setNodeSupply(source, supply);
        flow.setNodeSupply(sink, -supply);
        MinCostFlow.Status status = flow.solveMaxFlowWithMinCost();
        if (status != MinCostFlow.Status.OPTIMAL) throw new IllegalStateException("the fluid bound's flow did not solve: " + status);
        double batchOutput = 0, batchBusy = 0;
        for (int j = 0; j < jobs.size(); j++) {
            if (jobArc[j] < 0) continue;
            long f = flow.getFlow(jobArc[j]);
            batchBusy += f;
            batchOutput += jobs.get(j).weight() * f / 3600.0;
        }
        return new Bound(inferenceOutput + batchOutput, (inferenceBusy + batchBusy) / ((double) total * window));
    }
}
