package dev.horizon.allocator.plan;

import dev.horizon.allocator.model.PlacementRules;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The hot path: takes jobs in value order and gives each the earliest start at which its whole
 * block fits, both in the cluster's protected capacity and on the nodes {@link NodeChoice} picks
 * (one node, or whole nodes for a job wider than a node, within its models, pods and topology) for
 * every step it runs (a start now: for {@link PlanProblem#startNowCaution} times its run). Every hard rule
 * holds by construction: one job per GPU per step, inherited work untouched, contiguous blocks,
 * inference reservation kept.
 */
public final class HeuristicPlanner {

    public Plan plan(PlanProblem p) {
        return plan(p, true);
    }

    /** shortcuts: skip the starts that cannot hold a job (false: the plain search, which tests compare the plan with). */
    Plan plan(PlanProblem p, boolean shortcuts) {
        int[] capacity = p.capacityCopy();
        int[][] nodeFree = p.nodeFreeCopy();
        // the capacity's and each node's free GPUs over any run, lowered where a job is planned, shared by every job length
        RangeMinima capMin = new RangeMinima(new int[][] {capacity}, p.horizonSteps());
        RangeMinima nodeMin = new RangeMinima(nodeFree, p.horizonSteps());
        int widestNode = 0;
        for (int size : p.nodeSizes()) widestNode = Math.max(widestNode, size);
        StartFloors floors = shortcuts ? new StartFloors(p.horizonSteps(), widestNode) : null;
        // sized for every job at once: a plan of thousands of jobs otherwise rehashes its starts again and again
        Map<String, Integer> starts = new LinkedHashMap<>(p.jobs().size() * 4 / 3 + 1);
        Map<String, Integer> narrowed = new LinkedHashMap<>();
        Map<String, Integer> heldByCaution = new HashMap<>();
        double objective = 0;
        // the most capacity any step has (at least 0), and at how many steps: a job lowers it only where it takes from
        // every such step, so the horizon is read again only then, not after every job planned
        int maxCapacity = maxOf(capacity);
        int atMax = countOf(capacity, maxCapacity);
        int[] free = new int[nodeFree.length];
        for (PlanProblem.Job asked : p.jobs()) {
            PlanProblem.Job job = asked;
            Choice placement = asked.gpus() > maxCapacity ? null : earliest(p, capMin, nodeMin, floors, asked, free);
            // an elastic job that would wait at full width starts now on the widest narrower width that fits
            List<Integer> widths = asked.minGpus() < asked.gpus() && (placement == null || placement.start() > 0) ? asked.widths() : List.of();
            for (int i = 1; i < widths.size() && (placement == null || placement.start() > 0); i++) {
                int width = widths.get(i);
                PlanProblem.Job trial = asked.narrowed(width);
                Choice now = width > maxCapacity ? null : earliest(p, capMin, nodeMin, floors, trial, free);
                if (now != null && now.start() == 0) {
                    job = trial;
                    placement = now;
                    narrowed.put(job.id(), width);
                }
            }
            if ((placement == null || placement.start() > 0) && p.startNowCaution() > 1 && fitsNowForItsEstimate(p, capMin, nodeMin, floors, asked, free)) {
                heldByCaution.put(asked.id(), firstCautiousStart(p, capMin, nodeMin, floors, asked, free));
            }
            if (placement == null) continue;
            int s = placement.start();
            int end = Math.min(p.horizonSteps(), s + job.durationSteps());
            int g = job.gpus();
            if (g > 0) {
                for (int t = s; t < end; t++) {
                    if (capacity[t] == maxCapacity) atMax--;
                    capacity[t] -= g;
                }
            } else {
                for (int t = s; t < end; t++) capacity[t] -= g;
                atMax = 0;
            }
            capMin.lowered(0, s, end, g);
            for (int[] slice : placement.slices()) {
                for (int t = s; t < end; t++) nodeFree[slice[0]][t] -= slice[1];
                nodeMin.lowered(slice[0], s, end, slice[1]);
            }
            starts.put(job.id(), s);
            objective += p.reward(job, s);
            if (atMax <= 0) {
                maxCapacity = maxOf(capacity);
                atMax = countOf(capacity, maxCapacity);
            }
        }
        return new Plan(starts, objective, narrowed, heldByCaution.isEmpty() ? Map.of() : heldByCaution);
    }

    /**
     * Whether some width of the job fits now for its estimated run alone. Asked of a job the plan does not start now, it
     * says whether only the start-now caution kept it out: the reason it is told, since a user who sees idle GPUs and a
     * later planned start asks why.
     */
    static boolean fitsNowForItsEstimate(PlanProblem p, RangeMinima capMin, RangeMinima nodeMin, StartFloors floors, PlanProblem.Job asked,
                                         int[] free) {
        for (int width : asked.widths()) {
            PlanProblem.Job job = width == asked.gpus() ? asked : asked.narrowed(width);
            int d = Math.min(p.horizonSteps(), job.durationSteps());
            if (capMin.min(0, 0, d) >= width && fits(p, nodeMin, floors, job, 0, d, free)) return true;
        }
        return false;
    }

    /** The first step after now from which the job's cautious run fits, as a start then will be checked; -1: none in the horizon. */
    static int firstCautiousStart(PlanProblem p, RangeMinima capMin, RangeMinima nodeMin, StartFloors floors, PlanProblem.Job job, int[] free) {
        int run = p.stepsChecked(job, 0);
        for (int s = 1; s < p.horizonSteps(); s++) {
            if (capMin.min(0, s, run) >= job.gpus() && fits(p, nodeMin, floors, job, s, run, free)) return s;
        }
        return -1;
    }

    /**
     * Whether NodeChoice places the job on GPUs free from step s for run steps. A job that goes on its best-fit node is
     * read from the nodes' minima at once, as {@link #earliest} does, rather than writing every node's minimum out for
     * each waiting job of a large cluster.
     */
    private static boolean fits(PlanProblem p, RangeMinima nodeMin, StartFloors floors, PlanProblem.Job job, int s, int run, int[] free) {
        if (floors != null && onOneNode(p, floors, job) && onBestFit(job)) return NodeChoice.onOneNode(job, nodeMin, s, run) != null;
        nodeMin.minima(s, run, free);
        return NodeChoice.choose(p, job, free) != null;
    }

    /** A job no one node is too small for and that is not placed replica by replica goes on one node (NodeChoice). */
    private static boolean onOneNode(PlanProblem p, StartFloors floors, PlanProblem.Job job) {
        return !job.rules().perReplica() && job.gpus() <= floors.largestNode(p, job);
    }

    /** Outside an NVLink domain's rule, a job that goes on one node goes on its best-fit node. */
    private static boolean onBestFit(PlanProblem.Job job) {
        return job.rules().topology() != PlacementRules.Topology.SAME_NVLINK_DOMAIN;
    }

    /** The most any entry holds, and 0 when none holds more. */
    private static int maxOf(int[] row) {
        int most = 0;
        for (int c : row) most = Math.max(most, c);
        return most;
    }

    private static int countOf(int[] row, int value) {
        int n = 0;
        for (int c : row) if (c == value) n++;
        return n;
    }

    /** The earliest start of a job and the {node, GPUs} slices it takes from there. */
    record Choice(int start, int[][] slices) {
    }

    /**
     * The earliest feasible start, or null when the job fits nowhere in the horizon. floors: where one-node jobs' searches
     * begin; null: the plain search, which asks NodeChoice at every step the capacity holds the job. free: one entry per
     * node, overwritten (one array for a whole plan, not a thousand-node array per job).
     */
    static Choice earliest(PlanProblem p, RangeMinima capMin, RangeMinima nodeMin, StartFloors floors, PlanProblem.Job job, int[] free) {
        int h = p.horizonSteps();
        int g = job.gpus();
        int d = Math.min(h, job.durationSteps());
        boolean oneNode = floors != null && onOneNode(p, floors, job);
        // its choice read at once, without the filter below
        boolean bestFit = oneNode && onBestFit(job);
        for (int s = oneNode ? floors.from(job.allowedNodes(), g, d) : 0; s < h; s++) {
            // a start now must hold for its cautious run (PlanProblem.startNowCaution); the floors stay true, since that
            // run grows with d too
            int run = s == 0 ? p.stepsChecked(job, 0) : d;
            if (capMin.min(0, s, run) < g) continue;
            if (bestFit) {
                int[][] chosen = NodeChoice.onOneNode(job, nodeMin, s, run);
                if (chosen == null) continue;
                floors.found(job.allowedNodes(), g, d, s);
                return new Choice(s, chosen);
            }
            int most = 0, total = 0;
            nodeMin.minima(s, run, free);
            for (int n = 0; n < free.length; n++) {
                // NodeChoice never reads a node the job does not accept
                if (!job.allows(n)) continue;
                most = Math.max(most, free[n]);
                total += Math.max(0, free[n]);
            }
            // NodeChoice gives no node more than it has free: below these it finds nothing, so it is not asked
            if (floors != null && (total < g || (oneNode && most < g))) continue;
            int[][] chosen = NodeChoice.choose(p, job, free);
            if (chosen == null) continue;
            if (oneNode) floors.found(job.allowedNodes(), g, d, s);
            return new Choice(s, chosen);
        }
        if (oneNode) floors.found(job.allowedNodes(), g, d, h);
        return null;
    }
}
