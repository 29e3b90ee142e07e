package dev.horizon.allocator.cpsat;

import com.google.ortools.sat.BoolVar;
import com.google.ortools.sat.CpModel;
import com.google.ortools.sat.CpSolver;
import com.google.ortools.sat.CpSolverStatus;
import com.google.ortools.sat.CumulativeConstraint;
import com.google.ortools.sat.IntVar;
import com.google.ortools.sat.LinearArgument;
import com.google.ortools.sat.LinearExpr;
import com.google.ortools.util.Domain;
import dev.horizon.allocator.model.PlacementRules;
import dev.horizon.allocator.plan.Plan;
import dev.horizon.allocator.plan.PlanProblem;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The CP-SAT model of one plan, added to job by job in value order: per job its run (variables), the nodes it may take
 * (variables and the constraints that tie them to the run), its reward (the objective) and the heuristic plan's start and
 * nodes (the hint). Each job's variables and constraints are added in one fixed order, so the model, and with it what the
 * solver finds, is the same for the same problem.
 */
final class PlanModel {
    /** CP-SAT needs integer coefficients; rewards are kept to a thousandth of a weighted GPU-step. */
    private static final double SCALE = 1000;

    /** A start and the {node, GPUs} slices a job takes from that step on. */
    record Placed(int start, int[][] slices) {
    }

    /** CP-SAT's placements by job index (value order), or null placements when it found no solution. */
    record Solution(Map<Integer, Placed> placed, String status) {
    }

    /** A job's run: whether it is planned, its start, its end (cut at the horizon), and the steps between. */
    private record Run(BoolVar present, IntVar start, IntVar end, IntVar size) {
    }

    /** A job's reward at its start (r) and the part of it counted, which is nothing when the job is not planned (q). */
    private record Reward(IntVar atStart, IntVar counted) {
    }

    /**
     * Per modelled job: presence, start, and its nodes. part[n]: node n holds the job (a job within one
     * node) or the rest of it, partGpus[n] GPUs (a wide job); whole[n]: a wide job takes node n whole.
     * Entries are null for nodes (or kinds of job) that cannot apply.
     */
    private record JobVars(int gpus, BoolVar present, IntVar start, BoolVar[] whole, BoolVar[] part, IntVar[] partGpus) {
    }

    /** What a job takes of each node, as model variables, and the sums its constraints are written over. */
    private static final class Nodes {
        final BoolVar[] whole;
        final BoolVar[] part;
        final IntVar[] partGpus;
        /** Roles that put the whole job (one within a node) or its rest (a wide job) on a node: one at most is chosen. */
        final List<LinearArgument> chosen = new ArrayList<>();
        /** GPUs placed, term by term with their coefficients: they add up to the job's GPUs. */
        final List<LinearArgument> gpusPlaced = new ArrayList<>();
        final List<Long> gpusPlacedCoef = new ArrayList<>();

        Nodes(int nodes) {
            whole = new BoolVar[nodes];
            part = new BoolVar[nodes];
            partGpus = new IntVar[nodes];
        }

        void placed(LinearArgument term, long coefficient) {
            gpusPlaced.add(term);
            gpusPlacedCoef.add(coefficient);
        }
    }

    private final PlanProblem p;
    private final Grid grid;
    private final Plan hint;
    private final Map<String, int[][]> hintSlices;
    private final int h;
    private final int nodes;
    private final CpModel model = new CpModel();
    private final int capacityMax;
    /** The cluster's protected capacity and each node's free GPUs, as cumulative constraints of constant height. */
    private final CumulativeConstraint cluster;
    private final int[] nodeMax;
    private final CumulativeConstraint[] onNode;
    private final Map<Integer, JobVars> vars = new LinkedHashMap<>();
    private final List<LinearArgument> objective = new ArrayList<>();

    /** hint: the heuristic plan; hintSlices: its {node, GPUs} slices by job id. */
    PlanModel(PlanProblem p, Grid grid, Plan hint, Map<String, int[][]> hintSlices) {
        this.p = p;
        this.grid = grid;
        this.hint = hint;
        this.hintSlices = hintSlices;
        h = p.horizonSteps();
        nodes = grid.nodeSizes.length;
        int most = 0;
        for (int c : grid.capacity) most = Math.max(most, c);
        capacityMax = most;
        cluster = model.addCumulative(capacityMax);
        nodeMax = new int[nodes];
        onNode = new CumulativeConstraint[nodes];
        for (int n = 0; n < nodes; n++) {
            for (int f : grid.nodeFree[n]) nodeMax[n] = Math.max(nodeMax[n], f);
            onNode[n] = model.addCumulative(nodeMax[n]);
        }
    }

    /** Adds job i (value order); a job with no start where it could fit stays out of the model. */
    void add(int i, PlanProblem.Job job) {
        // only starts where the job could fit beside the committed work enter the domain
        long[] feasible = grid.feasibleStarts(job);
        if (feasible.length == 0) return;
        long[] table = rewards(job);
        Run run = run(i, job, feasible);

        Integer hinted = hint.startStep().get(job.id());
        int[][] hintedSlices = hintSlices.get(job.id());
        boolean on = hinted != null && hintedSlices != null && Arrays.binarySearch(feasible, hinted) >= 0;
        int[] hintedGpus = new int[nodes];
        if (on) for (int[] slice : hintedSlices) hintedGpus[slice[0]] = slice[1];

        Nodes taken = nodes(i, job, run, hintedGpus);
        placementAddsUp(i, job, run.present(), taken);
        Reward reward = reward(i, run, table);
        hintRun(job, run, reward, table, on ? hinted : (int) feasible[0], on);
        vars.put(i, new JobVars(job.gpus(), run.present(), run.start(), taken.whole, taken.part, taken.partGpus));
    }

    /** The job's reward at each start, scaled to integers. */
    private long[] rewards(PlanProblem.Job job) {
        long[] table = new long[h];
        for (int s = 0; s < h; s++) table[s] = Math.max(0, Math.round(p.reward(job, s) * SCALE));
        return table;
    }

    /** The job's run, on the cluster's capacity. */
    private Run run(int i, PlanProblem.Job job, long[] feasible) {
        BoolVar pv = model.newBoolVar("p_" + i);
        IntVar sv = model.newIntVarFromDomain(Domain.fromValues(feasible), "s_" + i);
        IntVar ev = model.newIntVar(1, h, "end_" + i);
        model.addMinEquality(ev, new LinearArgument[] {LinearExpr.affine(sv, 1, job.durationSteps()), LinearExpr.constant(h)});
        // CP-SAT wants a single-variable size; each interval below ties it to end - start when present
        IntVar size = model.newIntVar(1, Math.min(h, job.durationSteps()), "size_" + i);
        cluster.addDemand(model.newOptionalIntervalVar(sv, size, ev, pv, "run_" + i), job.gpus());
        return new Run(pv, sv, ev, size);
    }

    /** What the job may take of each node it may use, each role hinted by the heuristic plan's slices (hintedGpus). */
    private Nodes nodes(int i, PlanProblem.Job job, Run run, int[] hintedGpus) {
        Nodes taken = new Nodes(nodes);
        int perReplica = job.rules().gpusPerReplica();
        boolean byReplica = grid.wide(job) && perReplica > 0;
        for (int n = 0; n < nodes; n++) {
            if (nodeMax[n] <= 0 || !job.allows(n)) continue;
            if (byReplica) podsOn(i, n, perReplica, run, hintedGpus[n], taken);
            else if (!grid.wide(job)) oneNodeOn(i, n, job.gpus(), run, hintedGpus[n], taken);
            else wideOn(i, n, run, hintedGpus[n], taken);
        }
        return taken;
    }

    /** A wide job of pods takes whole pods of node n: k of them, on GPUs counted by one demand variable. */
    private void podsOn(int i, int n, int perReplica, Run run, int hintedGpus, Nodes taken) {
        int most = nodeMax[n] / perReplica;
        if (most == 0) return;
        BoolVar part = taken.part[n] = model.newBoolVar("pods_" + i + "_" + n);
        IntVar pods = model.newIntVar(0, most, "k_" + i + "_" + n);
        IntVar gpus = taken.partGpus[n] = model.newIntVar(0, (long) most * perReplica, "podGpus_" + i + "_" + n);
        model.addEquality(gpus, LinearExpr.term(pods, perReplica));
        model.addLessOrEqual(pods, LinearExpr.term(part, most));
        model.addGreaterOrEqual(pods, part);
        model.addLessOrEqual(part, run.present());
        onNode[n].addDemand(model.newOptionalIntervalVar(run.start(), run.size(), run.end(), part, "pods_" + i + "_" + n), gpus);
        taken.placed(gpus, 1L);
        model.addHint(part, hintedGpus > 0);
        model.addHint(pods, hintedGpus / perReplica);
        model.addHint(gpus, hintedGpus / perReplica * perReplica);
    }

    /** A job within one node on node n: the same run, present only when this node is the one chosen. */
    private void oneNodeOn(int i, int n, int g, Run run, int hintedGpus, Nodes taken) {
        if (nodeMax[n] < g) return;
        BoolVar part = taken.part[n] = model.newBoolVar("on_" + i + "_" + n);
        onNode[n].addDemand(model.newOptionalIntervalVar(run.start(), run.size(), run.end(), part, "run_" + i + "_" + n), g);
        taken.chosen.add(part);
        model.addHint(part, hintedGpus > 0);
    }

    /**
     * A wide job takes node n whole, or the GPUs left over (part, partGpus), or nothing; cumulative demands must be a
     * single variable or constant, hence one interval per role.
     */
    private void wideOn(int i, int n, Run run, int hintedGpus, Nodes taken) {
        int nodeSize = grid.nodeSizes[n];
        boolean wholeHint = hintedGpus > 0 && hintedGpus == nodeSize;
        BoolVar part = taken.part[n] = model.newBoolVar("part_" + i + "_" + n);
        if (nodeMax[n] >= nodeSize) {
            BoolVar whole = taken.whole[n] = model.newBoolVar("whole_" + i + "_" + n);
            model.addLessOrEqual(LinearExpr.sum(new LinearArgument[] {whole, part}), 1);
            onNode[n].addDemand(model.newOptionalIntervalVar(run.start(), run.size(), run.end(), whole, "whole_" + i + "_" + n), nodeSize);
            taken.placed(whole, nodeSize);
            model.addHint(whole, wholeHint);
        }
        IntVar gpus = taken.partGpus[n] = model.newIntVar(0, nodeMax[n], "partGpus_" + i + "_" + n);
        model.addLessOrEqual(gpus, LinearExpr.term(part, nodeMax[n]));
        model.addGreaterOrEqual(gpus, part);
        onNode[n].addDemand(model.newOptionalIntervalVar(run.start(), run.size(), run.end(), part, "part_" + i + "_" + n), gpus);
        taken.chosen.add(part);
        taken.placed(gpus, 1L);
        boolean partHint = hintedGpus > 0 && !wholeHint;
        model.addHint(part, partHint);
        model.addHint(gpus, partHint ? hintedGpus : 0);
    }

    /** The nodes taken hold the job exactly when it is planned, within one NVLink domain when it asks for one. */
    private void placementAddsUp(int i, PlanProblem.Job job, BoolVar present, Nodes taken) {
        // feasibleStarts saw enough free GPUs on the nodes, so chosen is never empty here
        LinearExpr chosen = LinearExpr.sum(taken.chosen.toArray(new LinearArgument[0]));
        if (job.rules().topology() == PlacementRules.Topology.SAME_NVLINK_DOMAIN) oneDomain(i, present, taken.whole, taken.part);
        boolean byReplica = grid.wide(job) && job.rules().gpusPerReplica() > 0;
        if (!grid.wide(job)) {
            model.addEquality(chosen, present);
            return;
        }
        // whole pods on any number of nodes add up to the job exactly; a wide job of GPUs takes at most one part
        if (!byReplica) model.addLessOrEqual(chosen, present);
        taken.placed(present, -job.gpus());
        model.addEquality(LinearExpr.weightedSum(taken.gpusPlaced.toArray(new LinearArgument[0]),
                taken.gpusPlacedCoef.stream().mapToLong(Long::longValue).toArray()), 0);
    }

    /** A job that asks for one NVLink domain uses nodes of one domain only: one chosen domain, every node used inside it. */
    private void oneDomain(int i, BoolVar present, BoolVar[] whole, BoolVar[] part) {
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

    /** The job's part of the objective: its reward at its start when planned, else nothing. */
    private Reward reward(int i, Run run, long[] table) {
        long best = Arrays.stream(table).max().orElse(0);
        IntVar rv = model.newIntVar(0, best, "r_" + i);
        model.addElement(run.start(), table, rv);
        IntVar qv = model.newIntVar(0, best, "q_" + i);
        model.addLessOrEqual(qv, rv);
        model.addLessOrEqual(qv, LinearExpr.term(run.present(), best));
        objective.add(qv);
        return new Reward(rv, qv);
    }

    /** Hints the run at start s: the heuristic plan's start when it planned the job there (on), else the first feasible one. */
    private void hintRun(PlanProblem.Job job, Run run, Reward reward, long[] table, int s, boolean on) {
        int e = Math.min(h, s + job.durationSteps());
        model.addHint(run.present(), on);
        model.addHint(run.start(), s);
        model.addHint(run.end(), e);
        model.addHint(run.size(), e - s);
        model.addHint(reward.atStart(), table[s]);
        model.addHint(reward.counted(), on ? table[s] : 0);
    }

    /** Solves what was added, within the time limit; NO_MODEL when no job entered the model. */
    Solution solve(double timeLimitSeconds, int seed) {
        if (vars.isEmpty()) return new Solution(null, "NO_MODEL");
        holdCapacityGaps();
        model.maximize(LinearExpr.sum(objective.toArray(new LinearArgument[0])));
        CpSolver solver = new CpSolver();
        solver.getParameters()
                .setMaxTimeInSeconds(timeLimitSeconds)
                .setNumWorkers(2)
                .setRandomSeed(seed)
                .setLogSearchProgress(false)
                // probing is the slowest part of presolve on this model; with a budget of seconds on 2 cores
                // it can use it all up before the search starts, so it is skipped
                .setCpModelProbingLevel(0);
        CpSolverStatus status = solver.solve(model);
        if (status != CpSolverStatus.OPTIMAL && status != CpSolverStatus.FEASIBLE) return new Solution(null, status.name());
        return new Solution(placed(solver), status.name());
    }

    /** Step-varying capacities as constant ones, with the gap at each step held by a fixed block. */
    private void holdCapacityGaps() {
        for (int t = 0; t < h; t++) {
            int gap = capacityMax - Math.max(0, grid.capacity[t]);
            if (gap > 0) cluster.addDemand(model.newFixedInterval(t, 1, "cap_" + t), gap);
            for (int n = 0; n < nodes; n++) {
                int nodeGap = nodeMax[n] - Math.max(0, grid.nodeFree[n][t]);
                if (nodeGap > 0) onNode[n].addDemand(model.newFixedInterval(t, 1, "busy_" + n + "_" + t), nodeGap);
            }
        }
    }

    private Map<Integer, Placed> placed(CpSolver solver) {
        Map<Integer, Placed> placed = new LinkedHashMap<>();
        vars.forEach((i, v) -> {
            if (!solver.booleanValue(v.present())) return;
            List<int[]> slices = new ArrayList<>();
            for (int n = 0; n < nodes; n++) {
                if (v.whole()[n] != null && solver.booleanValue(v.whole()[n])) slices.add(new int[] {n, grid.nodeSizes[n]});
                if (v.part()[n] == null || !solver.booleanValue(v.part()[n])) continue;
                slices.add(new int[] {n, v.partGpus()[n] == null ? v.gpus() : (int) solver.value(v.partGpus()[n])});
            }
            placed.put(i, new Placed((int) solver.value(v.start()), slices.toArray(new int[0][])));
        });
        return placed;
    }
}
