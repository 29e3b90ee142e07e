package dev.horizon.allocator.cpsat;

import com.google.ortools.Loader;
import com.google.ortools.sat.BoolVar;
import com.google.ortools.sat.CpModel;
import com.google.ortools.sat.CpSolver;
import com.google.ortools.sat.CpSolverStatus;
import com.google.ortools.sat.CumulativeConstraint;
import com.google.ortools.sat.IntVar;
import com.google.ortools.sat.LinearArgument;
import com.google.ortools.sat.LinearExpr;
import com.google.ortools.util.Domain;
import dev.horizon.allocator.PlacementRules;
import dev.horizon.allocator.Decision;
import dev.horizon.allocator.plan.HeuristicPlanner;
import dev.horizon.allocator.plan.NodeChoice;
import dev.horizon.allocator.plan.Plan;
import dev.horizon.allocator.plan.PlanProblem;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * Full mode of the allocator: the heuristic's GPU x timestep model solved by CP-SAT, warm-started from
 * the heuristic plan and bounded by a time limit.
 *
 * <p>The model places every job on nodes under the heuristic's rules (one node for a job that fits on
 * one; whole free nodes plus one node for the rest for a wider job) inside the cluster's protected
 * capacity. Its plan is still checked step by step against the grid before it is used: a job whose
 * start does not check out is re-placed at that start by the heuristic's best fit, else at its earliest
 * start that still fits, else dropped. The checked plan is returned only when its objective is strictly
 * higher than the heuristic plan's; otherwise the heuristic plan itself is, so the result is never worse
 * than the hint whatever the solver does.
 *
 * <p>An elastic job the heuristic narrowed is planned at that width throughout (and reported narrowed
 * when placed); widths are not part of the model.
 *
 * <p>Only the first {@code maxJobs} jobs (value order) enter the model, to bound its size; the others
 * keep their heuristic start and nodes, committed to the grid before the model is built, so the model
 * plans around them.
 *
 * <p>Not thread-safe: {@link #lastStats()} describes the most recent call on this instance, so each
 * planning thread needs its own planner.
 */
public final class CpSatPlanner implements Function<PlanProblem, Plan> {
    static {
        Loader.loadNativeLibraries();
    }

    /** CP-SAT needs integer coefficients; rewards are kept to a thousandth of a weighted GPU-step. */
    private static final double SCALE = 1000;
    /** Fixed so runs repeat as far as a wall-clock limit and two parallel workers allow. */
    private static final int SEED = 1;
    /** Float slack when comparing objectives, so equal plans summed in another order count as a tie. */
    private static final double EPS = 1e-9;

    /**
     * What the most recent call did. objective is that of the plan returned; improved means the CP-SAT
     * plan was returned instead of the heuristic one; status is CP-SAT's status, or NO_MODEL when no job
     * could enter the model.
     */
    public record Stats(double hintObjective, double objective, boolean improved, String status, double wallSeconds) {
    }

    private final double timeLimitSeconds;
    private final int maxJobs;
    private final HeuristicPlanner heuristic = new HeuristicPlanner();
    private Stats lastStats;

    public CpSatPlanner(double timeLimitSeconds, int maxJobs) {
        if (!(timeLimitSeconds > 0)) throw new IllegalArgumentException("timeLimitSeconds must be > 0: " + timeLimitSeconds);
        if (maxJobs < 0) throw new IllegalArgumentException("maxJobs must be >= 0: " + maxJobs);
        this.timeLimitSeconds = timeLimitSeconds;
        this.maxJobs = maxJobs;
    }

    /** Statistics of the most recent {@link #apply} on this instance; null before the first. */
    public Stats lastStats() {
        return lastStats;
    }

    @Override
    public Plan apply(PlanProblem p) {
        long started = System.nanoTime();
        Plan hint = heuristic.plan(p);
        // an elastic job keeps the width the heuristic settled on; the model chooses starts, not widths
        List<PlanProblem.Job> jobs = p.jobs().stream()
                .map(job -> job.narrowed(hint.gpusOf(job.id(), job.gpus())))
                .toList();

        // the plan carries starts only; replaying it in value order under the same rules recovers its nodes
        Map<String, int[][]> hintSlices = new HashMap<>();
        Grid replay = new Grid(p);
        for (PlanProblem.Job job : jobs) {
            Integer s = hint.startStep().get(job.id());
            int[][] slices = s == null ? null : replay.slicesFor(job, s);
            // null only if these copied rules drift from HeuristicPlanner's; such a job is just not hinted
            if (slices == null) continue;
            replay.commit(job, s, slices);
            hintSlices.put(job.id(), slices);
        }

        int modelled = Math.min(maxJobs, jobs.size());
        Grid grid = new Grid(p);
        Map<String, Integer> starts = new HashMap<>();
        for (PlanProblem.Job job : jobs.subList(modelled, jobs.size())) {
            int[][] slices = hintSlices.get(job.id());
            if (slices == null) continue;
            // part of the heuristic's feasible plan, so it fits on a grid that holds less
            grid.commit(job, hint.startStep().get(job.id()), slices);
            starts.put(job.id(), hint.startStep().get(job.id()));
        }

        Solution solution = solve(p, grid, jobs.subList(0, modelled), hint, hintSlices);
        if (solution.placed() == null) return finish(started, hint, hint, solution.status());

        List<Integer> order = new ArrayList<>(solution.placed().keySet());
        order.sort(Comparator.comparingInt((Integer i) -> solution.placed().get(i).start()).thenComparingInt(i -> i));
        for (int i : order) {
            PlanProblem.Job job = jobs.get(i);
            Placed c = solution.placed().get(i);
            int[][] slices = grid.fits(job, c.start(), c.slices()) ? c.slices() : grid.slicesFor(job, c.start());
            if (slices == null) continue;
            grid.commit(job, c.start(), slices);
            starts.put(job.id(), c.start());
        }
        // jobs dropped above, and any the solver left out when stopped early, take whatever still fits
        for (PlanProblem.Job job : jobs) {
            if (starts.containsKey(job.id())) continue;
            int s = grid.earliest(job);
            if (s < 0) continue;
            grid.commit(job, s, grid.slicesFor(job, s));
            starts.put(job.id(), s);
        }

        Map<String, Integer> ordered = new LinkedHashMap<>();
        Map<String, Integer> narrowed = new LinkedHashMap<>();
        double objective = 0;
        for (PlanProblem.Job job : jobs) {
            Integer s = starts.get(job.id());
            if (s == null) continue;
            ordered.put(job.id(), s);
            if (hint.narrowedGpus().containsKey(job.id())) narrowed.put(job.id(), job.gpus());
            objective += p.reward(job, s);
        }
        boolean better = objective > hint.objective() + EPS * Math.max(1, Math.abs(hint.objective()));
        return finish(started, hint, better ? new Plan(ordered, objective, narrowed) : hint, solution.status());
    }

    private Plan finish(long started, Plan hint, Plan chosen, String status) {
        lastStats = new Stats(hint.objective(), chosen.objective(), chosen != hint, status,
                (System.nanoTime() - started) / 1e9);
        return chosen.solvedBy(new Decision.SolverStats(hint.objective(), chosen.objective(), status));
    }

    /** A start and the {node, GPUs} slices a job takes from that step on. */
    private record Placed(int start, int[][] slices) {
    }

    /** CP-SAT's placements by job index (value order), or null placements when it found no solution. */
    private record Solution(Map<Integer, Placed> placed, String status) {
    }

    /**
     * Per modelled job: presence, start, and its nodes. part[n]: node n holds the job (a job within one
     * node) or the rest of it, partGpus[n] GPUs (a wide job); whole[n]: a wide job takes node n whole.
     * Entries are null for nodes (or kinds of job) that cannot apply.
     */
    private record JobVars(BoolVar present, IntVar start, BoolVar[] whole, BoolVar[] part, IntVar[] partGpus) {
    }

    private Solution solve(PlanProblem p, Grid grid, List<PlanProblem.Job> jobs, Plan hint, Map<String, int[][]> hintSlices) {
        int h = p.horizonSteps();
        int nodes = grid.nodeSizes.length;
        CpModel model = new CpModel();
        int capacityMax = 0;
        for (int c : grid.capacity) capacityMax = Math.max(capacityMax, c);
        CumulativeConstraint cluster = model.addCumulative(capacityMax);
        int[] nodeMax = new int[nodes];
        CumulativeConstraint[] onNode = new CumulativeConstraint[nodes];
        for (int n = 0; n < nodes; n++) {
            for (int f : grid.nodeFree[n]) nodeMax[n] = Math.max(nodeMax[n], f);
            onNode[n] = model.addCumulative(nodeMax[n]);
        }

        Map<Integer, JobVars> vars = new LinkedHashMap<>();
        List<LinearArgument> objective = new ArrayList<>();
        for (int i = 0; i < jobs.size(); i++) {
            PlanProblem.Job job = jobs.get(i);
            int g = job.gpus();
            // only starts where the job could fit beside the committed work enter the domain
            long[] feasible = grid.feasibleStarts(job);
            if (feasible.length == 0) continue;
            long[] table = new long[h];
            long best = 0;
            for (int s = 0; s < h; s++) {
                table[s] = Math.max(0, Math.round(p.reward(job, s) * SCALE));
                best = Math.max(best, table[s]);
            }
            BoolVar pv = model.newBoolVar("p_" + i);
            IntVar sv = model.newIntVarFromDomain(Domain.fromValues(feasible), "s_" + i);
            IntVar ev = model.newIntVar(1, h, "end_" + i);
            model.addMinEquality(ev, new LinearArgument[] {LinearExpr.affine(sv, 1, job.durationSteps()), LinearExpr.constant(h)});
            // CP-SAT wants a single-variable size; each interval below ties it to end - start when present
            IntVar size = model.newIntVar(1, Math.min(h, job.durationSteps()), "size_" + i);
            cluster.addDemand(model.newOptionalIntervalVar(sv, size, ev, pv, "run_" + i), g);

            Integer hinted = hint.startStep().get(job.id());
            int[][] hintedSlices = hintSlices.get(job.id());
            boolean on = hinted != null && hintedSlices != null && Arrays.binarySearch(feasible, hinted) >= 0;
            int[] hintedGpus = new int[nodes];
            if (on) for (int[] slice : hintedSlices) hintedGpus[slice[0]] = slice[1];

            BoolVar[] whole = new BoolVar[nodes];
            BoolVar[] part = new BoolVar[nodes];
            IntVar[] partGpus = new IntVar[nodes];
            List<LinearArgument> onNodes = new ArrayList<>();
            List<LinearArgument> gpusPlaced = new ArrayList<>();
            List<Long> gpusPlacedCoef = new ArrayList<>();
            int perReplica = job.rules().gpusPerReplica();
            boolean byReplica = grid.wide(job) && perReplica > 0;
            for (int n = 0; n < nodes; n++) {
                int nodeSize = grid.nodeSizes[n];
                if (nodeMax[n] <= 0 || !job.allows(n)) continue;
                if (byReplica) {
                    // a wide job of pods takes whole pods of this node: k of them, on GPUs counted by one demand variable
                    int most = nodeMax[n] / perReplica;
                    if (most == 0) continue;
                    part[n] = model.newBoolVar("pods_" + i + "_" + n);
                    IntVar pods = model.newIntVar(0, most, "k_" + i + "_" + n);
                    partGpus[n] = model.newIntVar(0, (long) most * perReplica, "podGpus_" + i + "_" + n);
                    model.addEquality(partGpus[n], LinearExpr.term(pods, perReplica));
                    model.addLessOrEqual(pods, LinearExpr.term(part[n], most));
                    model.addGreaterOrEqual(pods, part[n]);
                    model.addLessOrEqual(part[n], pv);
                    onNode[n].addDemand(model.newOptionalIntervalVar(sv, size, ev, part[n], "pods_" + i + "_" + n), partGpus[n]);
                    gpusPlaced.add(partGpus[n]);
                    gpusPlacedCoef.add(1L);
                    model.addHint(part[n], hintedGpus[n] > 0);
                    model.addHint(pods, hintedGpus[n] / perReplica);
                    model.addHint(partGpus[n], hintedGpus[n] / perReplica * perReplica);
                    continue;
                }
                if (!grid.wide(job)) {
                    if (nodeMax[n] < g) continue;
                    // the job on this node: the same run, present only when this node is the one chosen
                    part[n] = model.newBoolVar("on_" + i + "_" + n);
                    onNode[n].addDemand(model.newOptionalIntervalVar(sv, size, ev, part[n], "run_" + i + "_" + n), g);
                    onNodes.add(part[n]);
                    model.addHint(part[n], hintedGpus[n] > 0);
                    continue;
                }
                // a wide job takes this node whole, or the GPUs left over (part, partGpus), or nothing;
                // cumulative demands must be a single variable or constant, hence one interval per role
                boolean wholeHint = hintedGpus[n] > 0 && hintedGpus[n] == nodeSize;
                part[n] = model.newBoolVar("part_" + i + "_" + n);
                if (nodeMax[n] >= nodeSize) {
                    whole[n] = model.newBoolVar("whole_" + i + "_" + n);
                    model.addLessOrEqual(LinearExpr.sum(new LinearArgument[] {whole[n], part[n]}), 1);
                    onNode[n].addDemand(model.newOptionalIntervalVar(sv, size, ev, whole[n], "whole_" + i + "_" + n), nodeSize);
                    gpusPlaced.add(whole[n]);
                    gpusPlacedCoef.add((long) nodeSize);
                    model.addHint(whole[n], wholeHint);
                }
                partGpus[n] = model.newIntVar(0, nodeMax[n], "partGpus_" + i + "_" + n);
                model.addLessOrEqual(partGpus[n], LinearExpr.term(part[n], nodeMax[n]));
                model.addGreaterOrEqual(partGpus[n], part[n]);
                onNode[n].addDemand(model.newOptionalIntervalVar(sv, size, ev, part[n], "part_" + i + "_" + n), partGpus[n]);
                onNodes.add(part[n]);
                gpusPlaced.add(partGpus[n]);
                gpusPlacedCoef.add(1L);
                boolean partHint = hintedGpus[n] > 0 && !wholeHint;
                model.addHint(part[n], partHint);
                model.addHint(partGpus[n], partHint ? hintedGpus[n] : 0);
            }
            // feasibleStarts saw enough free GPUs on the nodes, so onNodes is never empty here
            LinearExpr chosen = LinearExpr.sum(onNodes.toArray(new LinearArgument[0]));
            if (job.rules().topology() == PlacementRules.Topology.SAME_NVLINK_DOMAIN) oneDomain(model, p, i, pv, whole, part);
            if (byReplica) {
                // whole pods on any number of nodes add up to the job exactly
                gpusPlaced.add(pv);
                gpusPlacedCoef.add((long) -g);
                model.addEquality(LinearExpr.weightedSum(gpusPlaced.toArray(new LinearArgument[0]),
                        gpusPlacedCoef.stream().mapToLong(Long::longValue).toArray()), 0);
            } else if (grid.wide(job)) {
                // at most one node holds a part, and whole nodes plus the part add up to the job exactly
                model.addLessOrEqual(chosen, pv);
                gpusPlaced.add(pv);
                gpusPlacedCoef.add((long) -g);
                model.addEquality(LinearExpr.weightedSum(gpusPlaced.toArray(new LinearArgument[0]),
                        gpusPlacedCoef.stream().mapToLong(Long::longValue).toArray()), 0);
            } else {
                model.addEquality(chosen, pv);
            }

            IntVar rv = model.newIntVar(0, best, "r_" + i);
            model.addElement(sv, table, rv);
            IntVar qv = model.newIntVar(0, best, "q_" + i);
            model.addLessOrEqual(qv, rv);
            model.addLessOrEqual(qv, LinearExpr.term(pv, best));
            objective.add(qv);

            int s = on ? hinted : (int) feasible[0];
            int e = Math.min(h, s + job.durationSteps());
            model.addHint(pv, on);
            model.addHint(sv, s);
            model.addHint(ev, e);
            model.addHint(size, e - s);
            model.addHint(rv, table[s]);
            model.addHint(qv, on ? table[s] : 0);
            vars.put(i, new JobVars(pv, sv, whole, part, partGpus));
        }
        if (vars.isEmpty()) return new Solution(null, "NO_MODEL");

        // step-varying capacities as constant ones, with the gap at each step held by a fixed block
        for (int t = 0; t < h; t++) {
            int gap = capacityMax - Math.max(0, grid.capacity[t]);
            if (gap > 0) cluster.addDemand(model.newFixedInterval(t, 1, "cap_" + t), gap);
            for (int n = 0; n < nodes; n++) {
                int nodeGap = nodeMax[n] - Math.max(0, grid.nodeFree[n][t]);
                if (nodeGap > 0) onNode[n].addDemand(model.newFixedInterval(t, 1, "busy_" + n + "_" + t), nodeGap);
            }
        }
        model.maximize(LinearExpr.sum(objective.toArray(new LinearArgument[0])));

        CpSolver solver = new CpSolver();
        solver.getParameters()
                .setMaxTimeInSeconds(timeLimitSeconds)
                .setNumWorkers(2)
                .setRandomSeed(SEED)
                .setLogSearchProgress(false)
                // probing is the slowest part of presolve on this model; with a budget of seconds on 2 cores
                // it can use it all up before the search starts, so it is skipped
                .setCpModelProbingLevel(0);
        CpSolverStatus status = solver.solve(model);
        if (status != CpSolverStatus.OPTIMAL && status != CpSolverStatus.FEASIBLE) return new Solution(null, status.name());
        Map<Integer, Placed> placed = new LinkedHashMap<>();
        vars.forEach((i, v) -> {
            if (!solver.booleanValue(v.present())) return;
            List<int[]> slices = new ArrayList<>();
            for (int n = 0; n < nodes; n++) {
                if (v.whole()[n] != null && solver.booleanValue(v.whole()[n])) slices.add(new int[] {n, grid.nodeSizes[n]});
                if (v.part()[n] == null || !solver.booleanValue(v.part()[n])) continue;
                slices.add(new int[] {n, v.partGpus()[n] == null ? jobs.get(i).gpus() : (int) solver.value(v.partGpus()[n])});
            }
            placed.put(i, new Placed((int) solver.value(v.start()), slices.toArray(new int[0][])));
        });
        return new Solution(placed, status.name());
    }

    /** A job that asks for one NVLink domain uses nodes of one domain only: one chosen domain, every node used inside it. */
    private static void oneDomain(CpModel model, PlanProblem p, int i, BoolVar present, BoolVar[] whole, BoolVar[] part) {
        Map<Integer, BoolVar> domains = new LinkedHashMap<>();
        for (int n = 0; n < part.length; n++) {
            for (BoolVar used : new BoolVar[] {whole[n], part[n]}) {
                if (used == null) continue;
                BoolVar d = domains.computeIfAbsent(p.domainOf(n), k -> model.newBoolVar("domain_" + i + "_" + k));
                model.addLessOrEqual(used, d);
            }
        }
        model.addLessOrEqual(LinearExpr.sum(domains.values().toArray(new LinearArgument[0])), present);
    }

    /**
     * The grid being filled. A job fits at s when protected capacity covers it in every step it runs and the
     * nodes {@link NodeChoice} picks (the heuristic's placement rules) hold it for all those steps.
     */
    private static final class Grid {
        final PlanProblem p;
        final int h;
        final int[] nodeSizes;
        final int[] capacity;
        final int[][] nodeFree;

        Grid(PlanProblem p) {
            this.p = p;
            h = p.horizonSteps();
            nodeSizes = p.nodeSizes();
            capacity = p.capacityCopy();
            nodeFree = p.nodeFreeCopy();
        }

        /** Wider than every node it may use, so it spans several (never a same-node job). */
        boolean wide(PlanProblem.Job job) {
            return job.rules().topology() != PlacementRules.Topology.SAME_NODE && job.gpus() > p.largestNodeFor(job);
        }

        /**
         * Starts where capacity covers the job and its allowed nodes' free GPUs could, ignoring how they split: on one
         * node, or in total (a wide job; within one NVLink domain when it asks for one).
         */
        long[] feasibleStarts(PlanProblem.Job job) {
            int g = job.gpus();
            boolean oneDomain = job.rules().topology() == PlacementRules.Topology.SAME_NVLINK_DOMAIN;
            List<Long> out = new ArrayList<>();
            for (int s = 0; s < h; s++) {
                int end = end(job, s);
                if (!capacityCovers(g, s, end)) continue;
                int most = 0;
                Map<Integer, Integer> total = new HashMap<>();
                for (int n = 0; n < nodeFree.length; n++) {
                    if (!job.allows(n)) continue;
                    int m = Math.max(0, windowMin(n, s, end));
                    most = Math.max(most, m);
                    total.merge(oneDomain ? p.domainOf(n) : 0, m, Integer::sum);
                }
                int bestTotal = total.values().stream().mapToInt(Integer::intValue).max().orElse(0);
                if (wide(job) ? bestTotal >= g : most >= g) out.add((long) s);
            }
            return out.stream().mapToLong(Long::longValue).toArray();
        }

        int earliest(PlanProblem.Job job) {
            for (int s = 0; s < h; s++) if (slicesFor(job, s) != null) return s;
            return -1;
        }

        /** Whether the given slices hold the job at s: all its GPUs, distinct allowed nodes, free in every step, under its rules. */
        boolean fits(PlanProblem.Job job, int s, int[][] slices) {
            if (s < 0 || s >= h) return false;
            int end = end(job, s);
            if (!capacityCovers(job.gpus(), s, end)) return false;
            int total = 0;
            boolean[] seen = new boolean[nodeFree.length];
            PlacementRules rules = job.rules();
            for (int[] slice : slices) {
                if (seen[slice[0]] || slice[1] <= 0 || windowMin(slice[0], s, end) < slice[1] || !job.allows(slice[0])) return false;
                if (rules.perReplica() && slice[1] % rules.gpusPerReplica() != 0) return false;
                if (rules.topology() == PlacementRules.Topology.SAME_NVLINK_DOMAIN && p.domainOf(slice[0]) != p.domainOf(slices[0][0])) return false;
                seen[slice[0]] = true;
                total += slice[1];
            }
            boolean oneNodeOk = rules.topology() != PlacementRules.Topology.SAME_NODE || slices.length == 1;
            return oneNodeOk && total == job.gpus();
        }

        void commit(PlanProblem.Job job, int s, int[][] slices) {
            int end = end(job, s);
            for (int t = s; t < end; t++) capacity[t] -= job.gpus();
            for (int[] slice : slices) {
                for (int t = s; t < end; t++) nodeFree[slice[0]][t] -= slice[1];
            }
        }

        /** {node, GPUs} slices the heuristic would give the job at s ({@link NodeChoice}), or null when it does not fit there. */
        int[][] slicesFor(PlanProblem.Job job, int s) {
            if (s < 0 || s >= h) return null;
            int end = end(job, s);
            if (!capacityCovers(job.gpus(), s, end)) return null;
            int[] min = new int[nodeFree.length];
            for (int n = 0; n < nodeFree.length; n++) min[n] = windowMin(n, s, end);
            return NodeChoice.choose(p, job, min);
        }

        private int end(PlanProblem.Job job, int s) {
            return Math.min(h, s + job.durationSteps());
        }

        private boolean capacityCovers(int g, int s, int end) {
            for (int t = s; t < end; t++) if (capacity[t] < g) return false;
            return true;
        }

        private int windowMin(int n, int s, int end) {
            int m = Integer.MAX_VALUE;
            for (int t = s; t < end; t++) m = Math.min(m, nodeFree[n][t]);
            return m;
        }
    }
}
