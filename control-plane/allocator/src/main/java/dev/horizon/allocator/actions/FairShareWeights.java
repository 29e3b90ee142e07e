package dev.horizon.allocator.actions;

import dev.horizon.allocator.PlanningContext;
import dev.horizon.allocator.model.PendingJob;
import dev.horizon.allocator.model.RunningJob;
import dev.horizon.api.JobClass;
import dev.horizon.fairshare.BudgetTree;
import dev.horizon.fairshare.FairShareView;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Turns fair share into the planner's weights, so that the plan and the fair share agree.
 *
 * <p>Work counts by its size in GPUs: a MIG instance by its compute slices of 7, a time-slicing share by its
 * milli-GPU (see {@link PendingJob#gpuFraction()}). Each team's work is counted against what it is owed now in the team's own
 * priority order, running and waiting work together (see {@link TeamBudget#budgetInValueOrder}), so its share runs its most
 * valuable work. Work inside the owed share is budgeted and weighs
 * {@link #BUDGETED} plus up to {@link #TIERS} for how under-served its team is over the window; work
 * beyond it is unallocated fill, weighs {@link #FILL}, is never protected and yields to any budgeted
 * request. A small debug job weighs {@link #DEBUG}, above every tier: it takes a GPU or two at once
 * from any work its contract lets go (Ai2: debug jobs' p90 wait fell from 2 h to 30 s), and gives
 * them back within 15 minutes. The user's priority adds less than one, so it orders work inside a team
 * but never lets one team preempt another (preemption needs a whole unit of weight).
 */
public final class FairShareWeights {
    public static final double FILL = 1;
    public static final double DEBUG = 15;
    public static final double BUDGETED = 10;
    public static final int TIERS = 4;
    /** Debug work Ai2 plans on arrival: few GPUs and at most 15 minutes. */
    public static final int DEBUG_MAX_GPUS = 2;
    public static final long DEBUG_MAX_SECONDS = 900;
    static final double MAX_CATCH_UP = 0.5;
    /** A team this far below its share over the window ranks in the top tier. */
    static final double FULLY_UNDER_SERVED = 0.25;
    /** Twice the shortfall: a team 10% behind may reach 20% past its share until it catches up. */
    static final double CATCH_UP_GAIN = 2;

    /**
     * The re-weighted moment; the waiting jobs that may only start as fill; the running jobs beyond
     * their team's share, which stay fill however much room the plan has; and how its budgets age waiting work.
     */
    public record Weighted(PlanningContext context, Set<String> fillOnly, Set<String> unallocatedRunning, Aging aging) {
    }

    private FairShareWeights() {
    }

    public static Weighted apply(PlanningContext ctx) {
        Aging aging = Aging.of(ctx);
        Map<String, TeamBudget> teams = teams(ctx, aging);
        // by the job's place in the moment (running jobs first, then waiting ones) rather than a set of ids: an id names one job
        boolean[] inStartOrder = new boolean[ctx.running().size()];
        boolean[] budgeted = new boolean[ctx.running().size() + ctx.pending().size()];
        // in any order of teams: each counts down only its own room
        for (TeamBudget t : teams.values()) {
            t.runningInStartOrder(inStartOrder);
            t.budgetInValueOrder(budgeted);
        }
        List<RunningJob> newRunning = new ArrayList<>();
        Set<String> unallocated = idSet(ctx.running().size());
        for (int i = 0; i < ctx.running().size(); i++) {
            RunningJob r = ctx.running().get(i);
            TeamBudget team = teams.get(r.team());
            boolean isBudgeted = budgeted[i];
            if (!isBudgeted && inStartOrder[i]) {
                // inside its team's share by age, beyond it by value: its own team's more valuable work may take its GPUs
                // (one unit of weight below the team's budgeted work), other teams only from a tier as high as its team's
                newRunning.add(r.reweighted(weight(team, r.weight(), true, false) - 1, r.fill()));
                continue;
            }
            if (!isBudgeted) unallocated.add(r.id());
            double w = weight(team, r.weight(), isBudgeted, false);
            // work that has become unallocated is fill from now on, but keeps its contract: never preempted inside its minimum runtime
            newRunning.add(r.reweighted(w, r.fill() || (!isBudgeted && !r.protectedAt(ctx.now()))));
        }
        // in the moment's order: the actions rank by the new weights themselves (Allocate sorts by value), and a sort by the
        // old ones here was a sixth of the re-weighting's time on the demo's day (docs/control-plane.md)
        List<PendingJob> newPending = new ArrayList<>(ctx.pending().size());
        Set<String> fillOnly = idSet(ctx.pending().size());
        for (int i = 0; i < ctx.pending().size(); i++) {
            PendingJob j = ctx.pending().get(i);
            boolean isBudgeted = budgeted[ctx.running().size() + i];
            boolean debug = j.jobClass() == JobClass.DEBUG && j.gpus() <= DEBUG_MAX_GPUS && j.estimatedRemainingSeconds() <= DEBUG_MAX_SECONDS;
            if (!isBudgeted && !debug) fillOnly.add(j.id());
            newPending.add(j.withWeight(weight(teams.get(j.team()), j.weight(), isBudgeted, debug)));
        }
        return new Weighted(ctx.withJobs(newRunning, newPending), fillOnly, unallocated, aging);
    }

    /** A set sized for up to n ids, so that it never grows: most waiting jobs are fill-only, hundreds on the demo's day. */
    private static Set<String> idSet(int n) {
        return new HashSet<>((int) (n / 0.75f) + 1);
    }

    /**
     * Every team with work in the moment, its work gathered: teams are budgeted apart from each other, so each sorts only
     * its own work (one sort of all of it, by team name first, was 3.1 s of the re-weighting's 10.2-11.0 s on the demo's day).
     */
    private static Map<String, TeamBudget> teams(PlanningContext ctx, Aging aging) {
        FairShareView fs = ctx.fairShare();
        Map<String, TeamBudget> teams = new HashMap<>();
        List<RunningJob> running = ctx.running();
        for (int i = 0; i < running.size(); i++) {
            RunningJob r = running.get(i);
            // a running job keeps the rank its wait gave it, so that starting does not make it its team's fill at once
            double rank = aging.rank(r.team(), r.weight(), r.startSeconds() - r.arrivalSeconds());
            team(teams, fs, r.team()).work.add(new Work(i, r.id(), rank, r.gpuFraction(), true, r.startSeconds()));
        }
        List<PendingJob> pending = ctx.pending();
        for (int i = 0; i < pending.size(); i++) {
            PendingJob j = pending.get(i);
            double rank = aging.rank(j.team(), j.weight(), ctx.now() - j.arrivalSeconds());
            team(teams, fs, j.team()).work.add(new Work(running.size() + i, j.id(), rank, j.gpuFraction(), false, j.arrivalSeconds()));
        }
        return teams;
    }

    /**
     * The priority a team's budget ranks a job by, when the budget tree ages waiting work ({@link BudgetTree#withAgeDoubling}):
     * each doubling period waited doubles the job's own priority (priority 0 counts as 1), never above the most urgent
     * priority of its team's work in the moment. A low-priority job may wait behind its team's newer, more urgent work,
     * but not for ever. Off (the default), every job ranks by its own priority.
     */
    public record Aging(long doublingSeconds, Map<String, Double> mostUrgent) {
        static Aging of(PlanningContext ctx) {
            long doubling = ctx.fairShare().tree().ageDoublingSeconds();
            if (doubling == 0) return new Aging(0, Map.of());
            Map<String, Double> top = new HashMap<>();
            for (RunningJob r : ctx.running()) top.merge(r.team(), r.weight(), Math::max);
            for (PendingJob j : ctx.pending()) top.merge(j.team(), j.weight(), Math::max);
            return new Aging(doubling, top);
        }

        double rank(String team, double priority, long waitedSeconds) {
            if (doublingSeconds == 0) return priority;
            long doublings = Math.max(0, waitedSeconds) / doublingSeconds;
            double top = mostUrgent.get(team);
            if (doublings == 0 || priority >= top) return priority;
            // whole doublings keep the classes of powers of two (1, 2, 4, 8) the budget counts by
            return Math.min(top, Math.max(priority, 1) * Math.pow(2, Math.min(doublings, 62)));
        }

        /** How this rule ranks a waiting job of the moment it was built on, for its wait reason. */
        AgedRank rankOf(PendingJob j, long now) {
            long waited = Math.max(0, now - j.arrivalSeconds());
            long doublings = waited / doublingSeconds;
            double rank = rank(j.team(), j.weight(), waited);
            double cap = mostUrgent.get(j.team());
            long since = j.arrivalSeconds() + (rank == j.weight() ? 0 : doublings * doublingSeconds);
            if (rank >= cap) return new AgedRank(j.weight(), rank, cap, since, 0, rank);
            long next = j.arrivalSeconds() + (doublings + 1) * doublingSeconds;
            return new AgedRank(j.weight(), rank, cap, since, next, rank(j.team(), j.weight(), next - j.arrivalSeconds()));
        }
    }

    /**
     * Where the budgets age waiting work, how a waiting job ranks in its team's budget after its wait: its own priority,
     * the rank its wait gave it, the most its team's work ranks in the moment (the cap), since when it has ranked so, when
     * it next rises (epoch seconds; 0: never, it ranks at the cap) and to what. Times rather than lengths of time, so the
     * reason that says them is the same from one plan to the next until the rank moves (the service stores a reason only
     * when it changes).
     */
    public record AgedRank(double own, double rank, double cap, long sinceSeconds, long nextAtSeconds, double nextRank) {
    }

    private static TeamBudget team(Map<String, TeamBudget> teams, FairShareView fs, String name) {
        TeamBudget team = teams.get(name);
        if (team == null) {
            team = new TeamBudget(fs, name);
            teams.put(name, team);
        }
        return team;
    }

    /**
     * One job, running or waiting, as its team's budget counts it, in budget order: the highest priority first, running work
     * first, oldest first. job: its place in the moment, running jobs first.
     */
    private record Work(int job, String id, double priority, double gpus, boolean running, long since) implements Comparable<Work> {
        @Override
        public int compareTo(Work o) {
            int c = Double.compare(o.priority, priority);
            if (c == 0) c = Boolean.compare(o.running, running);
            if (c == 0) c = Long.compare(since, o.since);
            return c != 0 ? c : id.compareTo(o.id);
        }
    }

    /** The running work in start order: the oldest first, then by id. */
    private static final Comparator<Work> BY_START = Comparator.comparingLong(Work::since).thenComparing(Work::id);

    /**
     * One team's budget in one call: its room (what it is owed now, with its catch-up), counted down once by age and once by
     * value, and the weight of its budgeted work, read once for all its jobs.
     */
    private static final class TeamBudget {
        final double budgetedWeight;
        final List<Work> work = new ArrayList<>();
        double roomByAge;
        double roomByValue;

        TeamBudget(FairShareView fs, String name) {
            Double owed = fs.owedNow().get(name);
            double ratio = fs.ratio().getOrDefault(name, 1.0);
            roomByAge = roomByValue = owed == null ? 0.0 : owed * catchUp(ratio);
            budgetedWeight = BUDGETED + tier(ratio);
        }

        /** The team's running jobs inside its share by age: counted oldest first, each while the team had room left before it. */
        void runningInStartOrder(boolean[] budgeted) {
            List<Work> running = new ArrayList<>();
            for (Work w : work) if (w.running()) running.add(w);
            running.sort(BY_START);
            for (Work w : running) {
                double before = roomByAge;
                roomByAge = before - w.gpus();
                if (before > 1e-9) budgeted[w.job()] = true;
            }
        }

        /**
         * The jobs the team's room budgets: its owed share goes to its most valuable work. Priority classes are counted
         * highest first, running and waiting work together, so a team's urgent job takes the room its own low-priority work
         * held (that work then stays protected one unit of weight below the team's budgeted work, see {@link #apply}: as fill,
         * every team's budgeted request took it, and on fairshare seed 1 preemptions went 5839 -> 16076). Within one class:
         * running work first, oldest first (no churn among equals), then waiting work first fit: what fits the room is
         * budgeted, what does not is skipped rather than queued in front of the class's smaller jobs; then, with a GPU or more
         * of room left, the class's first leftover however wide: a team whose most valuable waiting job is wider than its room
         * is still owed that room, and only it can use it.
         */
        void budgetInValueOrder(boolean[] budgeted) {
            Collections.sort(work);
            for (int from = 0; from < work.size(); ) {
                int to = from;
                while (to < work.size() && work.get(to).priority() == work.get(from).priority()) to++;
                budgetClass(work.subList(from, to), budgeted);
                from = to;
            }
        }

        /** One priority class (running work first): running work while the room lasts, then first fit, then one leftover. */
        private void budgetClass(List<Work> sameClass, boolean[] budgeted) {
            for (Work w : sameClass) {
                double left = roomByValue;
                boolean fits = w.running() ? left > 1e-9 : w.gpus() <= Math.ceil(left - 1e-9);
                roomByValue = left - (w.running() || fits ? w.gpus() : 0);
                if (fits) budgeted[w.job()] = true;
            }
            for (Work w : sameClass) {
                double left = roomByValue;
                if (w.running() || budgeted[w.job()] || left < 1 - 1e-9) continue;
                budgeted[w.job()] = true;
                roomByValue = left - w.gpus();
            }
        }
    }

    /**
     * How far beyond its owed share a team's budgeted work may reach now: a team under-served over the
     * window is owed the shortfall too, and jobs come in whole GPUs, so a team held exactly at its
     * share would fall behind for good by the rounding alone. Capped so that one starved team cannot
     * take more than half as much again as it is owed.
     */
    static double catchUp(double windowRatio) {
        return 1 + Math.max(0, Math.min(MAX_CATCH_UP, CATCH_UP_GAIN * (1 - windowRatio)));
    }

    /**
     * A team's tier is how under-served it is over the window (1 - occupancy / owed), the rank: it
     * moves slowly, so teams do not take turns preempting each other. Ranking by how far a team runs below
     * its share right now did exactly that: each start lifted one team and sank another a tier, about four
     * preemptions per job, and every restarted job was young and protected, so an under-served team found
     * no node it could clear. That a team over-served last week is still owed its share this hour is the
     * budgeting's business (its room is its share now), not the tier's.
     */
    private static double tier(double windowRatio) {
        double windowDeficit = 1 - windowRatio;
        // a quarter below its share is as under-served as a team can rank: a few points of
        // deficit already move a team up a tier, so shortfalls are made up within hours
        return Math.round(Math.max(0, Math.min(1, windowDeficit / FULLY_UNDER_SERVED)) * TIERS);
    }

    /** A job's weight: its class's (debug, its team's budgeted weight, or fill) plus less than one for the user's priority. */
    private static double weight(TeamBudget team, double userPriority, boolean budgeted, boolean debug) {
        double inTeam = 0.9 * userPriority / (userPriority + 1);
        if (debug) return DEBUG + inTeam;
        if (budgeted) return team.budgetedWeight + inTeam;
        return FILL + inTeam;
    }
}
