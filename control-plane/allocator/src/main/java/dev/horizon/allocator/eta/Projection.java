package dev.horizon.allocator.eta;

import dev.horizon.allocator.SchedulingPolicy;
import dev.horizon.allocator.UnmetDemandCost;
import dev.horizon.allocator.model.Decision;
import dev.horizon.allocator.model.GpuRef;
import dev.horizon.allocator.model.Placement;
import dev.horizon.allocator.model.RunningJob;
import dev.horizon.allocator.moment.ActiveJob;
import dev.horizon.allocator.moment.ClusterMoment;
import dev.horizon.allocator.moment.ContextBuilder;
import dev.horizon.allocator.moment.ServiceState;
import dev.horizon.allocator.placement.Occupancy;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

/**
 * One sampled future of a moment, played out: jobs end when their drawn durations say, the expected arrivals come,
 * inference repeats one of the past week's days, step by step (the day and a shift in time are the future's draw), and
 * every decision is the policy's own, on the moment as it would see it then (its estimates, not the drawn durations); the
 * MIG re-partitionings it asks for are carried out as the world carries them out ({@link FutureLayouts}). Only the world
 * is modelled here; what to run is always the policy's answer.
 *
 * <p>The policy is asked at every event (a run ends, work arrives, a step begins) during the first
 * {@link #FINE_STEPS} steps, where a start time matters to the minute, at step boundaries after that, and past the
 * moment's horizon, when a future is played on beyond it, every {@link #BEYOND_STRIDE} steps at first and further apart
 * the further out ({@link #strideBeyond}). A job started at a
 * decision is taken to have started, and to run from, when the GPUs it got were freed, if that was after the last
 * decision: the world decides at every event. Each decision re-plans every waiting job, so their number is what a future
 * costs; asking less often within the horizon was tried and cost the bands calibration (docs/control-plane.md).
 */
final class Projection {
    /** Steps from now during which the policy is asked at every event. */
    static final int FINE_STEPS = 2;
    /**
     * After a boundary's decision, how many more times the policy is asked at once when runs it started (taken to have
     * started when their GPUs were freed) have already ended: the world starts the next job on those GPUs the moment they
     * free up, so a GPU runs a chain of short jobs within one step, not one job a step (on Philly seed 24 / day 48, a
     * sweep of 225 jobs of 3 to 15 minutes, 94 of the window's 374 raw medians were beyond the horizon without it, 23
     * with it).
     */
    static final int MAX_CHAINED_DECISIONS = 4;
    /** Events closer than this are decided together. */
    static final long MIN_GAP_SECONDS = 60;
    /** Past the moment's horizon, every this many steps at first: a start a day out is read to the hour at best. */
    static final int BEYOND_STRIDE = 4;
    /**
     * Further past the horizon, the stride grows to this part of the distance past it (3 h a day past, 6 h two days
     * past): a start that far out is read to some hours at best, and each decision there re-plans a queue the expected
     * arrivals have grown, so the steps far out cost the most (docs/control-plane.md, "Start-time bands").
     */
    static final int BEYOND_STRIDE_GROWTH = 8;
    private static final int MINUTES_PER_DAY = 1440;
    private static final long DAY_SECONDS = 86_400;

    private record Run(long endSeconds) {
    }

    private final SchedulingPolicy policy;
    private final ClusterMoment origin;
    private final Map<String, Long> totals;
    private final Map<String, ActiveJob> jobs = new LinkedHashMap<>();
    private final Map<String, Run> runs = new HashMap<>();
    private final Map<GpuRef, Long> freedAt = new HashMap<>();
    /** The nodes as this future re-partitions their GPUs. */
    private final FutureLayouts layouts;
    private final Deque<ActiveJob> arrivals;
    private final List<ServiceState> services;
    private final Map<String, double[]> forecasts = new HashMap<>();
    /** Each service's per-step demand as the moment had observed it: the past a future's demand repeats. */
    private final Map<String, double[]> seenSteps = new HashMap<>();
    private final Map<String, Long> firstStarts = new HashMap<>();
    /**
     * The expected arrivals that come within {@link LikeArrivals#WINDOW_SECONDS} of the moment, and the first start of each
     * that started: what a job submitted after these futures were drawn reads its band from.
     */
    private final Map<String, ActiveJob> early = new LinkedHashMap<>();
    private final Map<String, Long> earlyStarts = new HashMap<>();
    /** Whether the future plays on, within the horizon, until every early arrival started too. */
    private final boolean followEarly;
    /**
     * The policy's latest wait reason for each tracked job not started yet: why, in this future, it still waits (worded
     * only for the jobs still waiting at its end).
     */
    private final Map<String, Supplier<String>> waitReasons = new HashMap<>();
    private final int demandShiftMinutes;
    private final int dayDraw;
    private long now;
    private long lastDecision;
    /** The nodes the last decision held for a wide job (null: none), which inference keeps off as the world's does. */
    private boolean[] heldForWideJob;

    /**
     * totals: each job's drawn whole duration at full width, the expected arrivals' too; arrivals: expected work, by
     * arrival time; dayDraw (at least 0): which of the past days each service's demand repeats ({@link #daysBack});
     * demandShiftMinutes: how much later (earlier when negative) than on that day it comes; followEarly: play on within the
     * horizon until the expected arrivals of its first {@link LikeArrivals#WINDOW_SECONDS} started too.
     */
    Projection(ClusterMoment origin, SchedulingPolicy policy, Map<String, Long> totals, List<ActiveJob> arrivals, int dayDraw, int demandShiftMinutes,
               boolean followEarly) {
        if (dayDraw < 0) throw new IllegalArgumentException("dayDraw must be >= 0 (got " + dayDraw + ")");
        this.origin = origin;
        this.dayDraw = dayDraw;
        this.followEarly = followEarly;
        this.demandShiftMinutes = demandShiftMinutes;
        this.policy = policy;
        this.totals = totals;
        this.arrivals = new ArrayDeque<>(arrivals);
        for (ActiveJob j : arrivals) if (j.arrivalSeconds() <= origin.now() + LikeArrivals.WINDOW_SECONDS) early.put(j.id(), j);
        this.services = new ArrayList<>(origin.services());
        this.layouts = new FutureLayouts(origin.nodes());
        this.now = origin.now();
        this.lastDecision = now;
        for (ActiveJob j : origin.jobs()) {
            jobs.put(j.id(), j);
            if (j.isRunning()) runs.put(j.id(), new Run(endOf(j, j.running().startSeconds(), j.running().placement())));
        }
        ContextBuilder.services(origin).forEach((name, view) -> forecasts.put(name, view.forecast()));
        for (ServiceState s : origin.services()) seenSteps.put(s.service().name(), s.observedSteps());
    }

    /**
     * Plays the future out from the decision already taken on the moment until every followed job (some of the tracked)
     * has started (and, where it follows them, the early arrivals within the horizon) or until (epoch seconds; past the
     * moment's horizon, the same policy plays on in coarser steps); returns the tracked jobs' first starts (absent: not by
     * until, or not by when every followed one had started).
     */
    Map<String, Long> firstStarts(Decision first, Set<String> tracked, Set<String> followed, long until) {
        apply(first, tracked);
        while (playsOn(followed)) {
            long next = nextDecision();
            if (next >= until) break;
            advanceTo(next);
            apply(policy.decide(ContextBuilder.build(moment())), tracked);
            for (int c = 0; c < MAX_CHAINED_DECISIONS && now >= stepFromNow(FINE_STEPS) && anyRunEndedBy(now); c++) {
                endRunsBy(now);
                apply(policy.decide(ContextBuilder.build(moment())), tracked);
            }
            lastDecision = now;
        }
        return firstStarts;
    }

    /** Whether a followed job, or (when followed too) an early arrival within the horizon, has not started yet. */
    private boolean playsOn(Set<String> followed) {
        if (!firstStarts.keySet().containsAll(followed)) return true;
        return followEarly && earlyStarts.size() < early.size() && now < origin.now() + origin.horizonSteps() * origin.stepSeconds();
    }

    /** The policy's last word on each tracked job that had not started by the end of this future (after {@link #firstStarts}). */
    Map<String, String> waitReasons() {
        Map<String, String> out = new HashMap<>();
        waitReasons.forEach((id, why) -> {
            if (!firstStarts.containsKey(id)) out.put(id, why.get());
        });
        return out;
    }

    /**
     * The expected arrivals of the first {@link LikeArrivals#WINDOW_SECONDS} that had come by the end of this future (after
     * {@link #firstStarts}), each with its first start (Long.MAX_VALUE: not by the end); those that had not come yet are
     * left out, as this future says nothing of them.
     */
    List<LikeArrivals.Arrived> arrivedEarly() {
        List<LikeArrivals.Arrived> out = new ArrayList<>();
        for (ActiveJob j : early.values()) {
            if (j.arrivalSeconds() <= now) out.add(new LikeArrivals.Arrived(j, earlyStarts.getOrDefault(j.id(), Long.MAX_VALUE)));
        }
        return out;
    }

    /** When the policy is asked next: at the next event early on, then at step boundaries, coarser past the horizon. */
    private long nextDecision() {
        if (now < stepFromNow(FINE_STEPS)) return nextEvent();
        long horizonEnd = origin.now() + origin.horizonSteps() * origin.stepSeconds();
        if (now < horizonEnd) return nextBoundary(now);
        long every = strideBeyond((now - horizonEnd) / origin.stepSeconds()) * origin.stepSeconds();
        return (now / every + 1) * every;
    }

    /** How many steps apart the policy is asked stepsPast steps past the moment's horizon. */
    static int strideBeyond(long stepsPast) {
        return (int) Math.max(BEYOND_STRIDE, stepsPast / BEYOND_STRIDE_GROWTH);
    }

    /** The boundary of the step k steps after the moment's own. */
    private long stepFromNow(int k) {
        return (origin.now() / origin.stepSeconds() + k) * origin.stepSeconds();
    }

    private long nextEvent() {
        long next = nextBoundary(now);
        for (Run r : runs.values()) next = Math.min(next, r.endSeconds());
        if (!arrivals.isEmpty()) next = Math.min(next, arrivals.peekFirst().arrivalSeconds());
        next = Math.min(next, layouts.nextReady());
        return Math.max(next, now + MIN_GAP_SECONDS);
    }

    private boolean anyRunEndedBy(long t) {
        for (Run r : runs.values()) if (r.endSeconds() <= t) return true;
        return false;
    }

    private long nextBoundary(long t) {
        return (t / origin.stepSeconds() + 1) * origin.stepSeconds();
    }

    /** Time passes to t: runs that end by then end, expected work that arrives by then waits, steps that begin resize inference. */
    private void advanceTo(long t) {
        for (long b = nextBoundary(now); b <= t; b = nextBoundary(b)) {
            freedAt.putAll(layouts.readyBy(b));
            endRunsBy(b);
            arriveBy(b);
            now = b;
            stepBegins();
        }
        freedAt.putAll(layouts.readyBy(t));
        endRunsBy(t);
        arriveBy(t);
        now = t;
    }

    private void endRunsBy(long t) {
        List<String> ended = new ArrayList<>();
        runs.forEach((id, r) -> {
            if (r.endSeconds() <= t) ended.add(id);
        });
        for (String id : ended) {
            free(jobs.remove(id).running().placement(), runs.remove(id).endSeconds());
        }
    }

    private void arriveBy(long t) {
        while (!arrivals.isEmpty() && arrivals.peekFirst().arrivalSeconds() <= t) {
            ActiveJob j = arrivals.pollFirst();
            jobs.put(j.id(), j);
        }
    }

    /**
     * A step begins: each service has observed the demand of the step that ended, the policy sets each one's reservation
     * for the new step and sizes it, within its swap cap; GPUs it grows onto come from free ones first, then from the
     * batch work the policy gives back. As in the world, the policy sees the minutes themselves, not their forecast.
     */
    private void stepBegins() {
        for (int i = 0; i < services.size(); i++) {
            ServiceState s = services.get(i);
            double[] minutes = demandMinutes(s, Math.max(origin.now(), now - origin.stepSeconds()), now);
            double peak = 0;
            for (double d : minutes) peak = Math.max(peak, d);
            double[] observed = Arrays.copyOf(s.observedMinutes(), s.observedMinutes().length + minutes.length);
            System.arraycopy(minutes, 0, observed, s.observedMinutes().length, minutes.length);
            if (observed.length > MINUTES_PER_DAY) observed = Arrays.copyOfRange(observed, observed.length - MINUTES_PER_DAY, observed.length);
            services.set(i, new ServiceState(s.service(), s.held(), s.reservedGpus(), append(s.observedSteps(), peak), observed, s.historicalPeakGpus()));
        }
        Map<String, Integer> reserved = policy.inferenceReservation(ContextBuilder.build(servicesAlone()));
        for (int i = 0; i < services.size(); i++) {
            ServiceState s = services.get(i);
            services.set(i, new ServiceState(s.service(), s.held(), reserved.getOrDefault(s.service().name(), s.reservedGpus()), s.observedSteps(),
                    s.observedMinutes(), s.historicalPeakGpus()));
        }
        Map<String, Integer> targets = policy.inferenceTargets(now, ContextBuilder.services(servicesAlone()));
        for (int i = 0; i < services.size(); i++) services.set(i, resized(services.get(i), targets.getOrDefault(services.get(i).service().name(), 0)));
    }

    /**
     * The service's demand per minute over [from, to): the peak of the step that held the same minute on the day this
     * future repeats, give or take its shift (demand's daily rhythm, with the day-to-day spread the forecast's envelope
     * is taken over: a quiet Sunday is followed by a busy Monday, which the day before alone never foresees, and bursts
     * come about the same time of day but never on the minute); where that step was not observed, the forecast of the
     * step. Per-step peaks are what the control plane stores, so the bench and the service replay the same past.
     */
    private double[] demandMinutes(ServiceState s, long from, long to) {
        double[] seen = seenSteps.getOrDefault(s.service().name(), new double[0]);
        int n = (int) Math.max(0, (to - from + 59) / 60);
        double[] out = new double[n];
        long step = origin.stepSeconds();
        long observedUntil = origin.now() / step * step;
        long back = daysBack(seen) * DAY_SECONDS;
        for (int k = 0; k < n; k++) {
            long t = from + 60L * k;
            long then = t - back - 60L * demandShiftMinutes;
            // past the days replayed (a horizon longer than they are, or a shift later than now), they repeat
            while (back > 0 && then >= observedUntil) then -= back;
            long stepsBack = (observedUntil - 1 - then) / step;
            out[k] = back > 0 && then < observedUntil && stepsBack < seen.length ? seen[seen.length - 1 - (int) stepsBack] : forecastAt(s, t);
        }
        return out;
    }

    /**
     * How many days back this future's demand repeats: one of the whole days observed, at most the week the forecast looks
     * back over, by the future's draw; 0 when not a day was observed.
     */
    private int daysBack(double[] seen) {
        int days = (int) Math.min(ContextBuilder.FORECAST_LOOKBACK_DAYS, seen.length * origin.stepSeconds() / DAY_SECONDS);
        return days == 0 ? 0 : 1 + dayDraw % days;
    }

    private double forecastAt(ServiceState s, long t) {
        double[] f = forecasts.get(s.service().name());
        int step = (int) (t / origin.stepSeconds() - origin.now() / origin.stepSeconds());
        return f.length == 0 ? 0 : f[Math.min(f.length - 1, Math.max(0, step))];
    }

    private ServiceState resized(ServiceState s, int wanted) {
        int cap = Math.max(1, s.service().swapCapGpus());
        int target = Math.max(s.heldGpus() - cap, Math.min(wanted, s.heldGpus() + cap));
        List<Placement> held = new ArrayList<>(s.held());
        while (held.size() > Math.max(0, target)) {
            int onHeld = Placement.newestOn(held, heldForWideJob);
            free(held.remove(onHeld >= 0 ? onHeld : held.size() - 1), now);
        }
        int more = target - held.size();
        if (more > 0) {
            Occupancy o = ContextBuilder.build(moment()).occupancy();
            if (o.totalFree() < more) takeBack(s, more - o.totalFree());
            o = ContextBuilder.build(moment()).occupancy();
            Placement singles = o.findSingles(Math.min(more, o.totalFree()), heldForWideJob);
            if (singles != null) for (Placement.Slice slice : singles.slices()) held.add(new Placement(List.of(slice)));
        }
        return new ServiceState(s.service(), held, s.reservedGpus(), s.observedSteps(), s.observedMinutes(), s.historicalPeakGpus());
    }

    private void takeBack(ServiceState s, int gpus) {
        UnmetDemandCost cost = new UnmetDemandCost(policy.unmetInferencePenalty(), s.service().weightPerGpuHour(), origin.stepSeconds());
        for (RunningJob v : policy.inferenceVictims(ContextBuilder.running(moment()), gpus, now, cost)) {
            if (jobs.containsKey(v.id()) && jobs.get(v.id()).isRunning()) preempt(v.id());
        }
    }

    private static double[] append(double[] values, double v) {
        double[] out = Arrays.copyOf(values, values.length + 1);
        out[values.length] = v;
        return out;
    }

    private void apply(Decision d, Set<String> tracked) {
        heldForWideJob = d.nodesHeldForWideJob(origin.nodes().size());
        d.forEachWaitReason((id, why) -> {
            if (why != null && tracked.contains(id)) waitReasons.put(id, why);
        });
        d.preemptions().forEach(this::preempt);
        for (String id : d.promotions()) {
            ActiveJob j = jobs.get(id);
            if (j != null && j.isRunning()) jobs.put(id, with(j, new ActiveJob.Running(j.running().startSeconds(), j.running().placement(), false)));
        }
        for (Decision.Start s : d.starts()) {
            ActiveJob j = jobs.get(s.jobId());
            if (j == null || j.isRunning()) continue;
            // the world starts work the moment its GPUs free up: its run, not only its first start, counts from then,
            // or every run in a chain ends up to a step late and the lateness adds up down the chain
            long start = Math.max(j.arrivalSeconds(), startedAt(s.placement()));
            if (tracked.contains(j.id())) firstStarts.putIfAbsent(j.id(), start);
            else if (early.containsKey(j.id())) earlyStarts.putIfAbsent(j.id(), start);
            jobs.remove(j.id());
            jobs.put(j.id(), with(j, new ActiveJob.Running(start, s.placement(), s.fill())));
            runs.put(j.id(), new Run(endOf(j, start, s.placement())));
        }
        // as the world does, once the decision's preemptions and starts have left the GPUs idle or not
        if (!d.reconfigurations().isEmpty()) layouts.start(d, ContextBuilder.build(moment()).occupancy(), now);
    }

    /** When a job started at now really could: once the last of its GPUs was freed, if that was after the last decision. */
    private long startedAt(Placement p) {
        long freed = lastDecision;
        for (GpuRef g : p.gpus()) freed = Math.max(freed, freedAt.getOrDefault(g, lastDecision));
        return Math.min(now, freed);
    }

    /** Off its GPUs, back to waiting, keeping what its contract lets it keep. */
    private void preempt(String id) {
        ActiveJob j = jobs.remove(id);
        if (j == null || !j.isRunning()) {
            if (j != null) jobs.put(id, j);
            return;
        }
        runs.remove(id);
        free(j.running().placement(), now);
        long ran = now - j.running().startSeconds();
        long kept = j.contract().resumable() ? j.history().doneGpuSeconds() + j.contract().keptWork(ran) * j.running().placement().gpuCount() : 0;
        ActiveJob.RunHistory h = new ActiveJob.RunHistory(kept, j.history().timesStarted(), j.history().timesPreempted() + 1, j.history().peakGpuMemoryMiB());
        jobs.put(id, new ActiveJob(j.id(), j.team(), j.jobClass(), j.priority(), j.gpus(), j.minGpus(), j.arrivalSeconds(), j.userEstimateSeconds(),
                j.contract(), j.slice(), j.rules(), h, null));
    }

    /** The end of a run from start on p: the work its drawn duration leaves after what it kept, over the GPUs it holds. */
    private long endOf(ActiveJob j, long start, Placement p) {
        long work = totals.get(j.id()) * j.gpus() - j.history().doneGpuSeconds();
        int g = Math.max(1, p.gpuCount());
        return start + Math.max(1, (work + g - 1) / g);
    }

    private void free(Placement p, long at) {
        for (GpuRef g : p.gpus()) freedAt.put(g, at);
    }

    private static ActiveJob with(ActiveJob j, ActiveJob.Running running) {
        ActiveJob.RunHistory h = j.running() == null && running != null
                ? new ActiveJob.RunHistory(j.history().doneGpuSeconds(), j.history().timesStarted() + 1, j.history().timesPreempted(),
                j.history().peakGpuMemoryMiB()) : j.history();
        return new ActiveJob(j.id(), j.team(), j.jobClass(), j.priority(), j.gpus(), j.minGpus(), j.arrivalSeconds(), j.userEstimateSeconds(),
                j.contract(), j.slice(), j.rules(), h, running);
    }

    /**
     * The moment now without its jobs, for the sizing of inference at a step's start: a policy reads only the services
     * there ({@link SchedulingPolicy#inferenceReservation}), and a future begins every step out to where it ends, past
     * the horizon mostly between decisions, each of which turned every waiting job into a planning job for nothing.
     */
    private ClusterMoment servicesAlone() {
        return new ClusterMoment(now, origin.stepSeconds(), origin.horizonSteps(), layouts.nodes(), List.of(), origin.teams(), services, origin.durations());
    }

    /** The moment as the policy would see it now: running jobs first, then waiting ones, each in the order they came. */
    private ClusterMoment moment() {
        // one pass over the jobs (tens of thousands at every decision), the waiting ones put after the running
        List<ActiveJob> ordered = new ArrayList<>(jobs.size());
        List<ActiveJob> waiting = new ArrayList<>();
        for (ActiveJob j : jobs.values()) (j.isRunning() ? ordered : waiting).add(j);
        ordered.addAll(waiting);
        return new ClusterMoment(now, origin.stepSeconds(), origin.horizonSteps(), layouts.nodes(), ordered, origin.teams(), services,
                origin.durations());
    }
}
