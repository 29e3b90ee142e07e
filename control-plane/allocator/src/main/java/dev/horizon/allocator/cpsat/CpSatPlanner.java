package dev.horizon.allocator.cpsat;

import com.google.ortools.Loader;
import dev.horizon.allocator.model.Decision;
import dev.horizon.allocator.plan.HeuristicPlanner;
import dev.horizon.allocator.plan.Plan;
import dev.horizon.allocator.plan.PlanProblem;
import java.util.ArrayList;
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
        Map<String, int[][]> hintSlices = hintSlices(p, jobs, hint);

        int modelled = Math.min(maxJobs, jobs.size());
        Grid grid = new Grid(p);
        Map<String, Integer> starts = new HashMap<>();
        Map<String, int[][]> slicesOf = new HashMap<>();
        for (PlanProblem.Job job : jobs.subList(modelled, jobs.size())) {
            int[][] slices = hintSlices.get(job.id());
            if (slices == null) continue;
            // part of the heuristic's feasible plan, so it fits on a grid that holds less
            commit(grid, job, hint.startStep().get(job.id()), slices, starts, slicesOf);
        }

        PlanModel model = new PlanModel(p, grid, hint, hintSlices);
        for (int i = 0; i < modelled; i++) model.add(i, jobs.get(i));
        PlanModel.Solution solution = model.solve(timeLimitSeconds, SEED);
        if (solution.placed() == null) return finish(started, hint, hint, solution.status());
        commitChecked(grid, jobs, solution.placed(), starts, slicesOf);
        // jobs dropped there, and any the solver left out when stopped early, take whatever still fits
        for (PlanProblem.Job job : jobs) {
            if (starts.containsKey(job.id())) continue;
            int s = grid.earliest(job);
            if (s < 0) continue;
            commit(grid, job, s, grid.slicesFor(job, s), starts, slicesOf);
        }
        Plan chosen = better(p, jobs, starts, hint);
        return finish(started, hint, chosen == hint ? hint : withHeldByCaution(p, grid, jobs, starts, slicesOf, chosen), solution.status());
    }

    private static void commit(Grid grid, PlanProblem.Job job, int s, int[][] slices, Map<String, Integer> starts, Map<String, int[][]> slicesOf) {
        grid.commit(job, s, slices);
        starts.put(job.id(), s);
        slicesOf.put(job.id(), slices);
    }

    /**
     * The solver's plan with the jobs the start-now caution holds, as the heuristic records them ({@link Plan#heldByCaution}):
     * each job not started now that would fit now for its estimated run beside the rest of the plan, with the first
     * step from which its cautious run fits. Without them, a job the caution holds was told the gap's step whenever the
     * full mode's plan was adopted, a start the policy would not make.
     */
    private static Plan withHeldByCaution(PlanProblem p, Grid grid, List<PlanProblem.Job> jobs, Map<String, Integer> starts,
                                          Map<String, int[][]> slicesOf, Plan plan) {
        if (p.startNowCaution() <= 1) return plan;
        Map<String, Integer> held = new HashMap<>();
        for (PlanProblem.Job job : jobs) {
            Integer s = starts.get(job.id());
            if (s != null && s == 0) continue;
            if (s != null) grid.release(job, s, slicesOf.get(job.id()));
            if (grid.fitsNowForItsEstimate(job)) held.put(job.id(), grid.firstCautiousStart(job));
            if (s != null) grid.commit(job, s, slicesOf.get(job.id()));
        }
        return held.isEmpty() ? plan : new Plan(plan.startStep(), plan.objective(), plan.narrowedGpus(), held);
    }

    /** The heuristic plan's {node, GPUs} slices by job: it carries starts only; replaying it in value order under the same rules recovers its nodes. */
    private static Map<String, int[][]> hintSlices(PlanProblem p, List<PlanProblem.Job> jobs, Plan hint) {
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
        return hintSlices;
    }

    /**
     * Commits the solver's placements in start order, each checked against the grid: one that does not check out is
     * re-placed at its start by the heuristic's best fit, else dropped.
     */
    private static void commitChecked(Grid grid, List<PlanProblem.Job> jobs, Map<Integer, PlanModel.Placed> placed, Map<String, Integer> starts,
                                      Map<String, int[][]> slicesOf) {
        List<Integer> order = new ArrayList<>(placed.keySet());
        order.sort(Comparator.comparingInt((Integer i) -> placed.get(i).start()).thenComparingInt(i -> i));
        for (int i : order) {
            PlanProblem.Job job = jobs.get(i);
            PlanModel.Placed c = placed.get(i);
            int[][] slices = grid.fits(job, c.start(), c.slices()) ? c.slices() : grid.slicesFor(job, c.start());
            if (slices == null) continue;
            commit(grid, job, c.start(), slices, starts, slicesOf);
        }
    }

    /** The checked plan when its objective is strictly higher than the heuristic plan's, else the heuristic plan. */
    private static Plan better(PlanProblem p, List<PlanProblem.Job> jobs, Map<String, Integer> starts, Plan hint) {
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
        return better ? new Plan(ordered, objective, narrowed) : hint;
    }

    private Plan finish(long started, Plan hint, Plan chosen, String status) {
        lastStats = new Stats(hint.objective(), chosen.objective(), chosen != hint, status,
                (System.nanoTime() - started) / 1e9);
        return chosen.solvedBy(new Decision.SolverStats(hint.objective(), chosen.objective(), status));
    }
}
