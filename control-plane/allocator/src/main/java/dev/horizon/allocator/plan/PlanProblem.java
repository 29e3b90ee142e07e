package dev.horizon.allocator.plan;

import dev.horizon.allocator.model.Cluster;
import dev.horizon.allocator.model.GpuNode;
import dev.horizon.allocator.model.PendingJob;
import dev.horizon.allocator.model.PlacementRules;
import java.util.List;

/**
 * The GPU x timestep grid a planner fills. capacity[t]: GPUs that protected work may still use in
 * step t (the cluster minus the inference reservation minus inherited running work). nodeFree[n][t]:
 * GPUs of node n free in step t. nodeDomains[n]: the NVLink domain of node n, as an index (null: each
 * node is a domain of its own). nodeModels[n]: the GPU model of node n (null: one model everywhere). Jobs are in the order
 * the heuristic takes them (value first). startNowCaution: how many times its run a job started in the first step must
 * find its GPUs free before any job planned ahead of it takes them (1: its run, as at every later step; see
 * {@link #stepsChecked}).
 */
public record PlanProblem(int horizonSteps, double decayPerStep, int[] nodeSizes, int[] capacity, int[][] nodeFree,
                          List<Job> jobs, int[] nodeDomains, String[] nodeModels, int startNowCaution) {

    /** A start now needs only its run free, as at every later step. */
    public PlanProblem(int horizonSteps, double decayPerStep, int[] nodeSizes, int[] capacity, int[][] nodeFree, List<Job> jobs,
                       int[] nodeDomains, String[] nodeModels) {
        this(horizonSteps, decayPerStep, nodeSizes, capacity, nodeFree, jobs, nodeDomains, nodeModels, 1);
    }

    public PlanProblem(int horizonSteps, double decayPerStep, int[] nodeSizes, int[] capacity, int[][] nodeFree, List<Job> jobs) {
        this(horizonSteps, decayPerStep, nodeSizes, capacity, nodeFree, jobs, null);
    }

    /** Every node of one GPU model. */
    public PlanProblem(int horizonSteps, double decayPerStep, int[] nodeSizes, int[] capacity, int[][] nodeFree, List<Job> jobs, int[] nodeDomains) {
        this(horizonSteps, decayPerStep, nodeSizes, capacity, nodeFree, jobs, nodeDomains, null);
    }

    /**
     * A job to plan: gpus wide, durationSteps long, weighted. An elastic job (minGpus below gpus) may
     * be planned narrower, on one of its {@link #widths()}, for proportionally longer. rules: its replica
     * width and topology; allowedNodes: the nodes of a GPU model it accepts (null: every node).
     */
    public record Job(String id, double weight, int gpus, int durationSteps, int minGpus, PlacementRules rules, boolean[] allowedNodes) {
        public Job {
            rules = rules == null ? PlacementRules.ANY : rules;
        }

        public Job(String id, double weight, int gpus, int durationSteps, int minGpus) {
            this(id, weight, gpus, durationSteps, minGpus, PlacementRules.ANY, null);
        }

        public Job(String id, double weight, int gpus, int durationSteps) {
            this(id, weight, gpus, durationSteps, gpus);
        }

        /** The same work on {@code width} GPUs. */
        public Job narrowed(int width) {
            return new Job(id, weight, width, (int) Math.ceil((double) durationSteps * gpus / width), minGpus, rules, allowedNodes);
        }

        /** Widths it may be planned on, widest first (whole replicas; see {@link PlacementRules#widths}). */
        public List<Integer> widths() {
            return rules.widths(gpus, minGpus);
        }

        public boolean allows(int node) {
            return allowedNodes == null || allowedNodes[node];
        }
    }

    /**
     * Steps a job starting at s must find free: its run, or from the first step startNowCaution times it; never past the
     * horizon. Starts at later steps only order the queue and are planned again at every decision.
     */
    public int stepsChecked(Job job, int s) {
        long run = s == 0 ? (long) startNowCaution * job.durationSteps() : job.durationSteps();
        return (int) Math.min(horizonSteps, run);
    }

    /** Value of running {@code job} from step s: weight x GPUs x decayed steps inside the horizon. */
    public double reward(Job job, int s) {
        int end = Math.min(horizonSteps, s + job.durationSteps());
        double g = decayPerStep;
        double steps = g == 1.0 ? end - s : (Math.pow(g, s) - Math.pow(g, end)) / (1 - g);
        return job.weight() * job.gpus() * steps;
    }

    /** The NVLink domain of node n. */
    public int domainOf(int n) {
        return nodeDomains == null ? n : nodeDomains[n];
    }

    /** The largest node the job may use: a job wider than it spans several. */
    public int largestNodeFor(Job job) {
        int largest = 0;
        for (int n = 0; n < nodeSizes.length; n++) if (job.allows(n)) largest = Math.max(largest, nodeSizes[n]);
        return largest;
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

    /** The nodes whose GPU model the job accepts (for a slice: can hold it); null when that is every node. */
    public static boolean[] allowedNodes(Cluster cluster, PendingJob j) {
        boolean[] allowed = new boolean[cluster.nodes().size()];
        boolean all = true;
        for (int n = 0; n < allowed.length; n++) {
            GpuNode node = cluster.nodes().get(n);
            allowed[n] = j.slice() == null ? j.rules().accepts(node.gpuModel()) : j.slice().fitsModel(node.gpuModel(), node.gpuMemoryMiB());
            all &= allowed[n];
        }
        return all ? null : allowed;
    }

    /** Each node's NVLink domain as an index. */
    public static int[] domains(Cluster cluster) {
        java.util.Map<String, Integer> index = new java.util.HashMap<>();
        int[] out = new int[cluster.nodes().size()];
        for (int n = 0; n < out.length; n++) out[n] = index.computeIfAbsent(cluster.domainOf(n), k -> index.size());
        return out;
    }
}
