package dev.horizon.service.eta;

import dev.horizon.allocator.eta.Calibrator;
import dev.horizon.allocator.eta.ExpectedArrivals;
import dev.horizon.allocator.eta.LikeArrivals;
import dev.horizon.allocator.eta.StartBands;
import dev.horizon.allocator.model.Decision;
import dev.horizon.allocator.moment.ActiveJob;
import dev.horizon.allocator.moment.ClusterMoment;
import dev.horizon.allocator.policy.HorizonPolicy;
import dev.horizon.forecast.DurationEstimator;
import dev.horizon.service.jobs.JobRow;
import dev.horizon.service.jobs.JobStore;
import dev.horizon.service.planning.NodesOut;
import dev.horizon.service.planning.MomentReader;
import dev.horizon.service.planning.PlannedMoment;
import dev.horizon.service.plans.PlanRequests;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

/**
 * Start-time bands of the waiting jobs, computed beside the planning loop as the bench measures them
 * ({@code simulation.EtaCalibration}): on one thread of its own, from the latest committed plan's moment and decision,
 * {@link StartBands#of} plays out sampled futures with a fresh Horizon policy and the arrivals of the last day
 * ({@code horizon.eta.threads} of them at once, each on a thread of a pool of that many, with a policy of its own), and
 * {@link Calibrator} turns each raw band into the one shown, learning from each job's first band and first start. The
 * planner only hands over a reference; a plan that comes while one is computed replaces any older one still waiting,
 * so the bands lag the plan by at most one computation (and the rest after it: bands that only refresh take at most half
 * of the pool's cores; a plan with a job that has no band at all is computed without one). A job with none gets the band
 * of the computation's first futures while the rest are played. What the calibration learnt is saved after each computation ({@link CalibrationStore}) and resumed from
 * whenever another control plane saved it since (a restart, a new leader); the jobs it follows live in memory only. The
 * bands are saved too ({@link BandStore}), for the replicas that follow.
 */
@ApplicationScoped
public class StartTimes {
    private static final Logger LOG = Logger.getLogger(StartTimes.class);
    /** The most recent arrivals the expected-arrival model reads: a day of a busy cluster, bounded in memory. */
    static final int MAX_ARRIVALS = 5000;

    /** The longest note kept with a band (its column's width). */
    static final int MAX_NOTE = 2000;

    /** The longest sentence kept with a queue-alone start (its column's width). */
    static final int MAX_QUEUE_ALONE_SAID = 1000;

    /**
     * A waiting job's shown band (epoch seconds; null: none can be given, and note says why), what else its reader must
     * know (null: nothing), and, for a job whose band has no P90, when the queue alone would start it (null: not told).
     */
    public record Shown(Long p50At, Long p90At, String note, QueueAlone queueAlone) {
        public Shown {
            note = cut(note, MAX_NOTE);
        }

        public Shown(Long p50At, Long p90At, String note) {
            this(p50At, p90At, note, null);
        }
    }

    /**
     * When the queue as it stands would start a job were no more work to arrive ahead of it: by p50At with odds 1 in 2 and
     * by p90At with odds 9 in 10 (epoch seconds; null: not by the end of the futures played), and the sentence that says
     * so. A condition beside the band, never the band: the work expected to arrive is why the band has no P90.
     */
    public record QueueAlone(Long p50At, Long p90At, String said) {
        public QueueAlone {
            said = cut(said, MAX_QUEUE_ALONE_SAID);
        }
    }

    private static String cut(String text, int max) {
        return text != null && text.length() > max ? text.substring(0, max - 3) + "..." : text;
    }

    /**
     * The bands of one plan's waiting jobs, and the plan time they were computed for (null: none yet); on the leader that
     * computed them also each job's raw band and what the calibration had learnt then, so a band whose time passed can
     * be read again from the futures in which the job had not started by then ({@link BandReading}).
     */
    public record Snapshot(Long bandsAt, Map<String, Shown> byJob, Map<String, StartBands.Band> raw, Calibrator.Learnt learnt, LikeArrivals like) {
        static final Snapshot NONE = stored(null, Map.of());

        /** Bands as the store keeps them: without their raw bands or the futures' arrivals. */
        static Snapshot stored(Long bandsAt, Map<String, Shown> byJob) {
            return new Snapshot(bandsAt, byJob, Map.of(), null, LikeArrivals.NONE);
        }

        /**
         * These bands with one for each job of the plan's moment that waits and has none, read off the work like it that
         * these bands' futures brought ({@link LikeArrivals}) and calibrated as they are; a job no future brought work like
         * keeps none until the next computation. The same snapshot when there is none to add.
         */
        Snapshot withLikeBands(ClusterMoment m, Decision decision) {
            if (bandsAt == null || learnt == null || like.futures() == 0) return this;
            Set<String> waiting = waiting(m, decision);
            List<ActiveJob> unbanded = new ArrayList<>();
            for (ActiveJob j : m.jobs()) if (waiting.contains(j.id()) && !byJob.containsKey(j.id())) unbanded.add(j);
            return adding(like.bandsOf(unbanded, m.jobs(), m.now()),
                    band -> BandNotes.likeArrivals(Calibrator.scaled(learnt, m.now(), band), band, bandsAt, like.futures()), bandsAt, learnt);
        }

        /**
         * These bands with one for each job of first that has none, from the first futures of a computation still being
         * played for the plan at planAt ({@link StartBands#computed}), calibrated as learnt says and not followed; the
         * computation's own bands replace them. The same snapshot when there is none to add.
         */
        Snapshot withFirstFutures(Map<String, StartBands.Band> first, long planAt, int samples, Calibrator.Learnt learnt) {
            return adding(first, band -> BandNotes.firstFutures(Calibrator.scaled(learnt, planAt, band), band, planAt, samples),
                    bandsAt == null ? planAt : bandsAt, this.learnt == null ? learnt : this.learnt);
        }

        /** These bands with each of bands shown for a job that has none (show: null, none to show); the same snapshot when none is added. */
        private Snapshot adding(Map<String, StartBands.Band> bands, Function<StartBands.Band, Shown> show, Long at, Calibrator.Learnt learntThen) {
            Map<String, Shown> shown = new HashMap<>(byJob);
            Map<String, StartBands.Band> raws = new HashMap<>(raw);
            bands.forEach((id, band) -> {
                Shown s = shown.containsKey(id) ? null : show.apply(band);
                if (s == null) return;
                shown.put(id, s);
                raws.put(id, band);
            });
            return shown.size() == byJob.size() ? this : new Snapshot(at, Map.copyOf(shown), Map.copyOf(raws), learntThen, like);
        }

        /** Whether a job of the plan's moment that waits would have no band of these, not even one read off the work like it. */
        boolean leavesWithoutBand(ClusterMoment m, Decision decision) {
            Set<String> banded = withLikeBands(m, decision).byJob().keySet();
            for (String id : waiting(m, decision)) if (!banded.contains(id)) return true;
            return false;
        }
    }

    private record Started(String jobId, long at) {
    }

    @Inject
    JobStore jobs;
    @Inject
    CalibrationStore calibrations;
    @Inject
    BandStore stored;
    @ConfigProperty(name = "horizon.eta.enabled", defaultValue = "true")
    boolean enabled;
    @ConfigProperty(name = "horizon.eta.samples")
    Optional<Integer> samplesConfig;
    @ConfigProperty(name = "horizon.eta.beyond-hours", defaultValue = "" + StartBands.BEYOND_HOURS)
    int beyondHours;
    @ConfigProperty(name = "horizon.eta.threads")
    Optional<Integer> threadsConfig;
    @Inject
    PlanRequests planner;

    private int samples;
    /** How many futures of one computation are played at once, and the pool they are played in (null: one at a time). */
    private int threads;
    private ExecutorService players;
    private final ExecutorService worker = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "horizon-start-bands");
        t.setDaemon(true);
        return t;
    });
    private final AtomicReference<PlannedMoment> newest = new AtomicReference<>();
    /**
     * Where the jobs submitted since the latest bands get theirs off those bands' futures ({@link Snapshot#withLikeBands}):
     * a thread of its own, so neither the planner waits for it nor it for a computation; only the newest plan is taken.
     */
    private final ExecutorService likeWorker = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "horizon-like-bands");
        t.setDaemon(true);
        return t;
    });
    private final AtomicReference<PlannedMoment> newestForLike = new AtomicReference<>();
    /** The latest plan handed over: a computation's bands get the like bands of the jobs that came since it. */
    private volatile PlannedMoment lastPlan;
    private final AtomicReference<Snapshot> shown = new AtomicReference<>(Snapshot.NONE);
    private final ConcurrentLinkedQueue<Started> starts = new ConcurrentLinkedQueue<>();
    /** Touched only on the worker's thread, in plan order. */
    private final Calibrator calibrator = new Calibrator();
    /** This process, as the writer of the calibrations it saves. */
    private final String writer = UUID.randomUUID().toString();
    /** The plan time of the calibration this process saved last (null: none yet). */
    private Long savedAt;
    /** The waiting jobs of the last bands computed; touched only on the worker's thread. */
    private Set<String> lastWaiting = Set.of();

    void start(@Observes StartupEvent event) {
        samples = samplesConfig.orElse(StartBands.SAMPLES);
        if (samples < 1 || samples > 1000) {
            throw new IllegalArgumentException("horizon.eta.samples must be between 1 and 1000 (got " + samples + "); the default is " + StartBands.SAMPLES);
        }
        if (beyondHours < 0 || beyondHours > StartBands.MAX_BEYOND_HOURS) {
            throw new IllegalArgumentException("horizon.eta.beyond-hours must be between 0 and " + StartBands.MAX_BEYOND_HOURS + " (got " + beyondHours + "); the default is " + StartBands.BEYOND_HOURS);
        }
        threads = threadsConfig.orElse(defaultThreads());
        if (threads < 1 || threads > samples) {
            throw new IllegalArgumentException("horizon.eta.threads must be between 1 and horizon.eta.samples (" + samples + ") (got " + threads
                    + "); the default is a quarter of the cores, at least 1 (here " + defaultThreads() + ")");
        }
        if (enabled && threads > 1) players = Executors.newFixedThreadPool(threads, r -> {
            Thread t = new Thread(r, "horizon-start-band-futures");
            t.setDaemon(true);
            return t;
        });
    }

    /**
     * A quarter of the cores, at least one: the futures of one computation are independent, so a control plane with cores
     * to spare plays several at once, and the bands of a large cluster lag its plans by seconds rather than minutes.
     */
    static int defaultThreads() {
        return Math.max(1, Runtime.getRuntime().availableProcessors() / 4);
    }

    void stop(@Observes ShutdownEvent event) {
        worker.shutdownNow();
        likeWorker.shutdownNow();
        if (players != null) players.shutdownNow();
    }

    /** On the planner's thread: keeps the plan's starts and the newest plan, and wakes the worker if it sleeps. */
    void planned(@Observes PlannedMoment plan) {
        if (!enabled) return;
        plan.decision().starts().forEach(s -> starts.add(new Started(s.jobId(), plan.now())));
        lastPlan = plan;
        // a worker with one waiting already takes this one instead
        if (newestForLike.getAndSet(plan) == null) execute(likeWorker, this::addLikeBands);
        if (newest.getAndSet(plan) == null) execute(worker, this::computeNewest);
    }

    private static void execute(ExecutorService on, Runnable task) {
        try {
            on.execute(task);
        } catch (RejectedExecutionException e) {
            // the service is shutting down: no more bands
        }
    }

    private void addLikeBands() {
        PlannedMoment plan = newestForLike.getAndSet(null);
        if (plan != null) shown.updateAndGet(s -> s.withLikeBands(plan.moment(), plan.decision()));
    }

    /** The bands of the latest plan computed so far. */
    public Snapshot latest() {
        return shown.get();
    }

    /**
     * A band was read after its time passed: asks for a plan, whose bands replace it (on a real clock; a virtual one plans
     * only when its driver asks).
     */
    void refresh() {
        if (enabled) planner.requestPlan();
    }

    /** Waits until the bands of every plan handed over so far are computed (for tests and the demo's checks), then returns them. */
    public Snapshot awaitLatest() {
        if (!enabled) return shown.get();
        try {
            worker.submit(this::computeNewest).get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException e) {
            throw new IllegalStateException("start-time bands failed: " + e.getCause().getMessage(), e.getCause());
        }
        return shown.get();
    }

    private void computeNewest() {
        PlannedMoment plan = newest.getAndSet(null);
        if (plan == null) return;
        long t0 = System.nanoTime();
        try {
            shown.set(compute(plan));
            PlannedMoment last = lastPlan;
            shown.updateAndGet(s -> s.withLikeBands(last.moment(), last.decision()));
        } catch (RuntimeException e) {
            // a computation running when the service stops meets its store and beans gone: that is the shutdown, not a fault
            if (worker.isShutdown()) LOG.infof("start-time bands stopped by the shutdown: %s", e.getMessage());
            else LOG.error("start-time bands failed; the next plan computes them again", e);
        }
        PlannedMoment next = newest.get();
        if (next == null || !shown.get().leavesWithoutBand(next.moment(), next.decision())) rest(System.nanoTime() - t0);
    }

    /**
     * Rests as long as the computation took before the next may start, so bands that only refresh take at most half of the
     * cores they are played on ({@code horizon.eta.threads}) however often the cluster plans (a busy cluster plans after
     * every event); their lag at most doubles. A plan with a job these bands leave without one, even off the work like it
     * (it was submitted since, and no future brought its like), is computed at once: that job's user has no answer yet,
     * and a burst of submissions would otherwise wait two computations for its first (on the demo's 288x clock, about 35
     * simulated minutes at 400 waiting jobs).
     */
    private static void rest(long nanos) {
        try {
            Thread.sleep(nanos / 1_000_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private Snapshot compute(PlannedMoment plan) {
        resumeSaved();
        Snapshot out = bands(plan);
        stored.save(out);
        calibrations.save(calibrator.learnt(), writer, plan.now());
        savedAt = plan.now();
        return out;
    }

    /** Goes on from the saved calibration unless it is this process's own latest: another control plane saved it since. */
    private void resumeSaved() {
        calibrations.load().filter(s -> !(s.writer().equals(writer) && Objects.equals(s.savedAt(), savedAt)))
                .ifPresent(s -> calibrator.resume(s.learnt()));
    }

    private Snapshot bands(PlannedMoment plan) {
        long t0 = System.nanoTime();
        ClusterMoment m = plan.moment();
        List<Started> started = new ArrayList<>();
        for (Started s = starts.peek(); s != null && s.at() <= plan.now(); s = starts.peek()) started.add(starts.poll());
        Set<String> waiting = waiting(m, plan.decision());
        // the jobs of the bands before that neither wait nor started since were cancelled: their bands' outcomes are
        // unknown, so they are let go before time is passed on to now, or their levels would count as missed
        Set<String> left = new HashSet<>(lastWaiting);
        left.removeAll(waiting);
        started.forEach(s -> left.remove(s.jobId()));
        left.forEach(calibrator::dropped);
        lastWaiting = waiting;
        started.forEach(s -> calibrator.started(s.jobId(), s.at()));
        if (waiting.isEmpty()) return new Snapshot(plan.now(), Map.of(), Map.of(), calibrator.learnt(), LikeArrivals.NONE);
        List<JobRow> day = jobs.submittedSince((plan.now() - ExpectedArrivals.WINDOW_SECONDS) * 1000, MAX_ARRIVALS);
        int beyondSteps = StartBands.beyondSteps(beyondHours, m.stepSeconds());
        StartBands.Players played = players == null ? StartBands.Players.oneAtATime(new HorizonPolicy())
                : new StartBands.Players(HorizonPolicy::new, players, threads);
        Calibrator.Learnt learnt = calibrator.learnt();
        ClusterMoment withRuns = withFinishedRuns(m, day, jobs.durationEstimator());
        StartBands.Computed computed = StartBands.computedWithQueueAlone(withRuns, plan.decision(), played,
                arrivals(plan.now(), day), waiting, samples, plan.now(), beyondSteps,
                first -> shown.updateAndGet(s -> s.withFirstFutures(first, plan.now(), samples, learnt)));
        Map<String, StartBands.Band> raw = computed.bands();
        Map<String, Shown> out = shownBands(withRuns, calibrator, raw, computed.alone(), waiting, beyondHours, plan.nodesOut());
        LOG.infof("start-time bands of %d waiting jobs on %d GPUs (%d samples, %d at once) in %.0f ms", waiting.size(),
                m.nodes().stream().mapToInt(n -> n.node().gpus()).sum(), samples, threads, (System.nanoTime() - t0) / 1e6);
        return new Snapshot(plan.now(), Map.copyOf(out), Map.copyOf(raw), calibrator.learnt(), computed.like());
    }

    /**
     * Each waiting job's band as shown, calibrated by calibrator (which follows each from here), from its sampled starts
     * raw; a job those leave without a P90 is also told when the queue alone would start it (alone: every job's starts
     * with no more work arriving, {@link StartBands.Computed#alone}; nodesOut: the registered nodes out of the moment, lost
     * or awaiting approval).
     */
    static Map<String, Shown> shownBands(ClusterMoment m, Calibrator calibrator, Map<String, StartBands.Band> raw, Map<String, StartBands.Band> alone,
                                         Set<String> waiting, int beyondHours, NodesOut nodesOut) {
        Map<String, ActiveJob> byId = new HashMap<>();
        m.jobs().forEach(j -> byId.put(j.id(), j));
        Map<String, Shown> out = new HashMap<>();
        for (String id : waiting) {
            out.put(id, BandNotes.shown(calibrator.shown(id, m.now(), raw.get(id)), raw.get(id), alone.get(id), byId.get(id), m, beyondHours, nodesOut));
        }
        return out;
    }

    /**
     * The moment with an estimator that also remembers the day's successful runs with their shape, so the futures draw a
     * burst's waiting and running jobs from how its finished ones ran, as the bench does. A fresh estimator: the plan's
     * own is left as the plan used it. rows: the day's jobs, newest first; estimator: a fresh one from the store.
     */
    static ClusterMoment withFinishedRuns(ClusterMoment m, List<JobRow> rows, DurationEstimator estimator) {
        for (int i = rows.size() - 1; i >= 0; i--) {
            JobRow j = rows.get(i);
            if (j.state() != dev.horizon.service.jobs.JobState.SUCCEEDED || j.endedAt() == null || j.gpus() <= 0) continue;
            estimator.remember(new DurationEstimator.Finished(j.team(), j.jobClass(), j.gpus(), j.submittedAt() / 1000, j.endedAt(),
                    Math.max(1, j.doneGpuSeconds() / j.gpus())));
        }
        return new ClusterMoment(m.now(), m.stepSeconds(), m.horizonSteps(), m.nodes(), m.jobs(), m.teams(), m.services(), estimator);
    }

    /** The moment's waiting jobs the plan did not start. */
    private static Set<String> waiting(ClusterMoment m, Decision decision) {
        Set<String> started = new java.util.HashSet<>();
        decision.starts().forEach(s -> started.add(s.jobId()));
        Set<String> out = new LinkedHashSet<>();
        for (ActiveJob j : m.jobs()) if (!j.isRunning() && !started.contains(j.id())) out.add(j.id());
        return out;
    }

    /**
     * The jobs submitted over the last day, as they were when they arrived, at the day's rate; when more than
     * {@link #MAX_ARRIVALS} came, the latest of them over the span they cover.
     */
    private static ExpectedArrivals arrivals(long now, List<JobRow> rows) {
        List<ActiveJob> recent = new ArrayList<>();
        for (JobRow j : rows) recent.add(MomentReader.state(j, MomentReader.spec(j), ActiveJob.RunHistory.NEW, null));
        return ExpectedArrivals.overTheLastDay(recent, now, rows.size() >= MAX_ARRIVALS);
    }
}
