package dev.horizon.allocator.policy;

import dev.horizon.allocator.PlanningContext;
import dev.horizon.allocator.SchedulingPolicy;
import dev.horizon.allocator.UnmetDemandCost;
import dev.horizon.allocator.actions.InferenceReservation;
import dev.horizon.allocator.actions.Ranking;
import dev.horizon.allocator.actions.Session;
import dev.horizon.allocator.actions.allocate.Allocate;
import dev.horizon.allocator.actions.consolidate.Consolidate;
import dev.horizon.allocator.actions.drain.LeaveDrainedNodes;
import dev.horizon.allocator.actions.lend.Lend;
import dev.horizon.allocator.actions.preempt.ValuePreemption;
import dev.horizon.allocator.actions.preempt.WideHold;
import dev.horizon.allocator.actions.reclaim.Reclaim;
import dev.horizon.allocator.model.Decision;
import dev.horizon.allocator.model.PendingJob;
import dev.horizon.allocator.model.RunningJob;
import dev.horizon.allocator.plan.HeuristicPlanner;
import dev.horizon.allocator.plan.Plan;
import dev.horizon.allocator.plan.PlanProblem;
import dev.horizon.forecast.QuietTimeMargin;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * Horizon's policy: plans the GPU x timestep grid over the horizon and commits only the current step.
 * Inference keeps a reservation that follows its forecast (ramped early enough for the swap cap);
 * protected work is planned inside the cluster minus that reservation; GPUs the reservation does not
 * use right now are lent to resumable work as fill, which inference takes back when demand comes.
 *
 * <p>A decision runs Horizon's actions in turn on one {@link Session}, in the spirit of KAI-Scheduler's actions: work on
 * drained nodes leaves ({@link LeaveDrainedNodes}), nodes are held for the most valuable waiting wide job ({@link WideHold},
 * before anything starts, so that small work starting there does as fill), the plan starts what it places now ({@link Allocate}), waiting work
 * takes GPUs from work it outranks ({@link ValuePreemption}), time-slicing shares move off the GPUs a waiting job needs
 * where they fit elsewhere at once ({@link Consolidate}), and idle GPUs are lent as fill ({@link Lend}). Inference
 * takes GPUs back between decisions ({@link Reclaim}).
 */
public final class HorizonPolicy implements SchedulingPolicy {
    /** Value order: weight first, then first come first served. */
    public static final Comparator<PendingJob> VALUE_ORDER = Ranking.VALUE_ORDER;
    /**
     * A missed minute of inference is worth 256 GPU-minutes held (the price {@link QuietTimeMargin} sizes inference by): on
     * the GenAI trace a per-minute SLO of 0.99 or more, at least as high as an HPA's, at a few GPUs' cost.
     */
    public static final double DEFAULT_INFERENCE_MISS_PRICE = 256;

    /**
     * decayPerStep: how much less a GPU-step is worth each step further out (rewards decay across the horizon);
     * unmetInferencePenalty: unmet real-time demand's cost as a multiple of the allocation reward, 5 to 10 as in Dharma's
     * model.
     */
    public record Settings(double decayPerStep, double unmetInferencePenalty) {
        /** What Horizon runs with: the simulator and the service plan alike with these. */
        public static final Settings DEFAULT = new Settings(0.99, 8.0);

        public Settings {
            if (!(decayPerStep > 0 && decayPerStep <= 1)) throw new IllegalArgumentException("decayPerStep must be in (0, 1]: " + decayPerStep);
            if (unmetInferencePenalty < 5 || unmetInferencePenalty > 10) {
                throw new IllegalArgumentException("unmetInferencePenalty must be between 5 and 10 (Dharma's range): " + unmetInferencePenalty);
            }
        }
    }

    private final double unmetInferencePenalty;
    private final QuietTimeMargin inferenceSizing;
    private final Allocate allocate;
    private final String name;

    public HorizonPolicy() {
        this("horizon", new HeuristicPlanner()::plan);
    }

    /** The default settings on the given planner (CP-SAT in full mode). */
    public HorizonPolicy(String name, Function<PlanProblem, Plan> planner) {
        this(name, Settings.DEFAULT, planner);
    }

    public HorizonPolicy(String name, Settings settings, Function<PlanProblem, Plan> planner) {
        this.name = name;
        this.unmetInferencePenalty = settings.unmetInferencePenalty();
        this.inferenceSizing = new QuietTimeMargin(DEFAULT_INFERENCE_MISS_PRICE);
        this.allocate = new Allocate(settings.decayPerStep(), planner);
    }

    @Override
    public double unmetInferencePenalty() {
        return unmetInferencePenalty;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public boolean lendsReservation() {
        return true;
    }

    @Override
    public Map<String, Integer> inferenceReservation(PlanningContext ctx) {
        Map<String, Integer> out = new LinkedHashMap<>();
        ctx.services().forEach((service, view) -> out.put(service, reservationPath(view, ctx.horizonSteps())[0]));
        return out;
    }

    /**
     * Per minute, inference holds what its own bursts need ({@link QuietTimeMargin}: the busiest of its last minutes plus a
     * margin for how long it has been quiet, each the cheapest over its last day at the price of a missed minute); the rest
     * of its reservation runs fill. Beyond the reservation it takes GPUs back from batch work as any service does.
     */
    @Override
    public Map<String, Integer> inferenceTargets(long now, Map<String, PlanningContext.ServiceView> services) {
        Map<String, Integer> out = new LinkedHashMap<>();
        services.forEach((service, view) -> out.put(service, inferenceSizing.gpus(view.observedMinutes())));
        return out;
    }

    /** Inference takes GPUs back from fill first, then from work its contract lets go ({@link Reclaim}). */
    @Override
    public List<RunningJob> inferenceVictims(List<RunningJob> running, int gpusNeeded, long now, UnmetDemandCost cost) {
        return Reclaim.victims(running, gpusNeeded, now, cost);
    }

    /** GPUs to reserve for a service per step over the horizon (see {@link InferenceReservation#path}). */
    public static int[] reservationPath(PlanningContext.ServiceView view, int steps) {
        return InferenceReservation.path(view, steps);
    }

    @Override
    public Decision decide(PlanningContext given) {
        Session session = Session.open(given);
        LeaveDrainedNodes.run(session);
        WideHold.Held held = WideHold.run(session);
        List<PendingJob> notStarted = allocate.run(session);
        List<PendingJob> stillWaiting = Consolidate.run(session, ValuePreemption.run(session, notStarted));
        Lend.run(session, stillWaiting);
        WideHold.explain(session, held);
        return session.decision();
    }
}
