package dev.horizon.allocator.plan;

import java.util.List;

/**
 * The GPU x timestep grid a planner fills. capacity[t]: GPUs that protected work may still use in
 * step t (the cluster minus the inference reservation minus inherited running work). nodeFree[n][t]:
 * GPUs of node n free in step t. Jobs are in the order the heuristic takes them (value first).
 */
public record PlanProblem(int horizonSteps, double decayPerStep, int[] nodeSizes, int[] capacity, int[][] nodeFree,
                          List<Job> jobs) {

    /**
     * A job to plan: gpus wide, durationSteps long, weighted. An elastic job (minGpus below gpus) may
     * be planned narrower, on a power of two down to minGpus, for proportionally longer.
     */
    public record Job(String id, double weight, int gpus, int durationSteps, int minGpus) {
        public Job(String id, double weight, int gpus, int durationSteps) {
            this(id, weight, gpus, durationSteps, gpus);
        }

        /** The same work on {@code width} GPUs. */
        public Job narrowed(int width) {
            return new Job(id, weight, width, (int) Math.ceil((double) durationSteps * gpus / width), minGpus);
        }
    }

    /** Value of running {@code job} from step s: weight x GPUs x decayed steps inside the horizon. */
    public double reward(Job job, int s) {
        int end = Math.min(horizonSteps, s + job.durationSteps());
        double g = decayPerStep;
        double steps = g == 1.0 ? end - s : (Math.pow(g, s) - Math.pow(g, end)) / (1 - g);
        return job.weight() * job.gpus() * steps;
    }

    /** Deep copy of the mutable grids, so a planner can fill them without touching the problem. */
    public int[] capacityCopy() {
        return capacity.clone();
    }

    public int[][] nodeFreeCopy() {
        int[][] copy = new int[nodeFree.length][];
        for (int n = 0; n < nodeFree.length; n++) copy[n] = nodeFree[n].clone();
        return copy;
    }
}
