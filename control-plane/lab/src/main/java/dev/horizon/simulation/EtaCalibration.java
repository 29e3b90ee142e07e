package dev.horizon.simulation;

import dev.horizon.allocator.SchedulingPolicy;
import dev.horizon.allocator.eta.Calibrator;
import dev.horizon.allocator.eta.LikeArrivals;
import dev.horizon.allocator.eta.StartBands;
import dev.horizon.allocator.model.Decision;
import dev.horizon.allocator.moment.ActiveJob;
import dev.horizon.allocator.moment.ClusterMoment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BiFunction;

/**
 * How well a policy's start-time bands came true. Bands are computed as the service computes them: once a step (they
 * may lag the plan by one step), from the sampled futures of that step's moment, calibrated on what became of the
 * bands before ({@link Calibrator}); each job's first band after it arrived is recorded, and at the end held against
 * when the job really started. A policy whose decisions plan no start beyond now produces no bands.
 */
public final class EtaCalibration implements DecisionObserver {
    /** The quantile levels bands are computed and charted at. */
    public static final double[] LEVELS = Calibrator.LEVELS;
    static final int P50 = Calibrator.P50, P90 = Calibrator.P90;
    /** The targets a window's bands are held to: coverage close to the nominal level, neither below nor far above it. */
    public static final CalibratedOdds.Target TARGET_P50 = new CalibratedOdds.Target(0.4, 0.6), TARGET_P90 = new CalibratedOdds.Target(0.85, 0.95);
    private final SchedulingPolicy planner;
    private final int samples;
    private final RecentArrivals arrivals;
    private final Map<String, Long> firstStarts = new HashMap<>();
    private final Map<String, Recorded> recorded = new LinkedHashMap<>();
    private final Map<String, ActiveJob> banded = new HashMap<>();
    private final Calibrator calibrator = new Calibrator();
    /** Each job's band read off the work like it in the futures of the computation before its first (as the service shows it until then). */
    private final Map<String, Recorded> likeRecorded = new LinkedHashMap<>();
    /** The latest computation's futures' early arrivals, and what the calibration had learnt then. */
    private LikeArrivals like = LikeArrivals.NONE;
    private Calibrator.Learnt likeLearnt;
    private boolean plansAhead;

    /** What was said of one job: when, its arrival, the plan's start, the raw band and the band calibrated (per level). */
    public record Recorded(String jobId, long at, long arrivalSeconds, Long plannedAt, StartBands.Band raw, Long[] calibrated) {
        public Long p50At() {
            return calibrated[P50];
        }

        public Long p90At() {
            return calibrated[P90];
        }
    }

    /**
     * The outcome over n banded jobs: the share that started no later than their startP50At and startP90At, the median
     * absolute error of startP50At, the median wait of those jobs from arrival, and per level of {@link #LEVELS} the share
     * that started no later than the calibrated and the raw quantile (the calibration chart); how many bursts the jobs
     * came in and where a perfectly calibrated band would put this window's coverage against each target
     * ({@link CalibratedOdds}).
     */
    public record Report(int jobs, double coverageP50, double coverageP90, double medianAbsErrorSeconds, double medianWaitSeconds,
                         double[] coverageByLevel, double[] rawCoverageByLevel, int bursts, CalibratedOdds.Odds calibratedP50, CalibratedOdds.Odds calibratedP90,
                         Like like, List<Row> rows) {
    }

    /**
     * The bands a job is shown between its arrival and its first own band, read off the work like it that the futures of
     * the computation before brought ({@link LikeArrivals}), held to account as the others: how many jobs had one, and
     * the share that started by their startP50At and startP90At.
     */
    public record Like(int jobs, double coverageP50, double coverageP90) {
    }

    /**
     * One banded job for eta.csv: when its band was computed, its arrival, the plan's start, the band, the raw band (its
     * P50, P90 and every sampled start, so other calibrations can be replayed on one run's output), its start.
     */
    public record Row(String jobId, long at, long arrivalSeconds, Long plannedAt, Long p50At, Long p90At, Long rawP50At, Long rawP90At,
                      StartBands.Band raw, Long startedAt) {
    }

    /**
     * planner: a policy of the same kind as the one measured, kept for the bands' projections (it may keep state);
     * priorArrivals: the scenario's submissions of the day before the window, which the expected-arrival model reads as
     * the service reads its store's (without them, the first hours would read as the day's only arrivals).
     */
    public EtaCalibration(SchedulingPolicy planner, int samples, List<SimJob> priorArrivals) {
        this.planner = planner;
        this.samples = samples;
        this.arrivals = new RecentArrivals(priorArrivals);
    }

    /**
     * Starts and arrivals are remembered (the expected-arrival model reads the last day of arrivals); on a step boundary,
     * the jobs left waiting that have no band yet get one.
     */
    @Override
    public void decided(ClusterMoment moment, Decision decision) {
        plansAhead |= !decision.plannedStarts().isEmpty();
        arrivals.saw(moment);
        decision.starts().forEach(s -> {
            firstStarts.putIfAbsent(s.jobId(), moment.now());
            calibrator.started(s.jobId(), moment.now());
        });
        if (!plansAhead || moment.now() % moment.stepSeconds() != 0) return;
        Set<String> fresh = new LinkedHashSet<>();
        Map<String, ActiveJob> byId = new HashMap<>();
        for (ActiveJob j : moment.jobs()) {
            if (j.isRunning() || firstStarts.containsKey(j.id()) || recorded.containsKey(j.id())) continue;
            fresh.add(j.id());
            byId.put(j.id(), j);
        }
        if (fresh.isEmpty()) return;
        like.bandsOf(new ArrayList<>(byId.values()), arrivals.list(), moment.now()).forEach((id, b) -> {
            long at = byId.get(id).arrivalSeconds();
            likeRecorded.put(id, new Recorded(id, at, at, null, b, Calibrator.scaled(likeLearnt, at, b)));
        });
        StartBands.Computed computed = StartBands.computed(moment, decision, StartBands.Players.oneAtATime(planner),
                arrivals.expected(moment.now()), fresh, samples, moment.now(), 0);
        Map<String, StartBands.Band> bands = computed.bands();
        like = computed.like();
        likeLearnt = calibrator.learnt();
        for (String id : fresh) {
            StartBands.Band raw = bands.get(id);
            Long[] calibrated = calibrator.shown(id, moment.now(), raw);
            recorded.put(id, new Recorded(id, moment.now(), byId.get(id).arrivalSeconds(), decision.plannedStarts().get(id), raw, calibrated));
            banded.put(id, byId.get(id));
        }
    }

    public Map<String, Recorded> recorded() {
        return recorded;
    }

    /**
     * Holds every band against the job's first start. A job still waiting at the window's end counts as started late
     * for a quantile before the end and is left out of one after it (nothing is known); its error and wait count up to
     * the end, so both figures lean against the bands.
     */
    public Report report(long windowEnd) {
        if (recorded.isEmpty()) return null;
        double[] byLevel = coverage(recorded, windowEnd, (r, i) -> r.calibrated()[i]);
        double[] raw = coverage(recorded, windowEnd, (r, i) -> r.raw().at(LEVELS[i]));
        double[] likeByLevel = coverage(likeRecorded, windowEnd, (r, i) -> r.calibrated()[i]);
        List<Double> errors = new ArrayList<>(), waits = new ArrayList<>();
        List<Row> rows = new ArrayList<>();
        recorded.forEach((id, r) -> {
            Long start = firstStarts.get(id);
            rows.add(new Row(id, r.at(), r.arrivalSeconds(), r.plannedAt(), r.p50At(), r.p90At(), r.raw().p50At(), r.raw().p90At(), r.raw(), start));
            long seen = start != null ? start : windowEnd;
            waits.add((double) (seen - r.arrivalSeconds()));
            Long p50 = r.p50At();
            if (p50 != null && (start != null || p50 < windowEnd)) errors.add((double) Math.abs(seen - p50));
        });
        List<List<String>> bursts = CalibratedOdds.bursts(new ArrayList<>(banded.values()));
        return new Report(recorded.size(), byLevel[P50], byLevel[P90], median(errors), median(waits), byLevel, raw, bursts.size(),
                CalibratedOdds.of(heldToAccount(bursts, P50, windowEnd), LEVELS[P50], TARGET_P50),
                CalibratedOdds.of(heldToAccount(bursts, P90, windowEnd), LEVELS[P90], TARGET_P90),
                new Like(likeRecorded.size(), likeByLevel[P50], likeByLevel[P90]), rows);
    }

    /** Per burst, how many of its jobs the calibrated coverage at level i holds to account (as {@link #coverage} counts them). */
    private List<Integer> heldToAccount(List<List<String>> bursts, int i, long windowEnd) {
        List<Integer> sizes = new ArrayList<>();
        for (List<String> burst : bursts) {
            int n = 0;
            for (String id : burst) if (known(firstStarts.get(id), recorded.get(id).calibrated()[i], windowEnd)) n++;
            sizes.add(n);
        }
        return sizes;
    }

    /** A band's quantile q can be held to account: the job started, or q passed before the window ended. */
    private static boolean known(Long start, Long q, long windowEnd) {
        return start != null || q != null && q < windowEnd;
    }

    private double[] coverage(Map<String, Recorded> of, long windowEnd, BiFunction<Recorded, Integer, Long> quantile) {
        double[] covered = new double[LEVELS.length], known = new double[LEVELS.length];
        of.forEach((id, r) -> {
            Long start = firstStarts.get(id);
            for (int i = 0; i < LEVELS.length; i++) {
                Long q = quantile.apply(r, i);
                if (!known(start, q, windowEnd)) continue;
                known[i]++;
                if (start != null && (q == null || start <= q)) covered[i]++;
            }
        });
        double[] out = new double[LEVELS.length];
        for (int i = 0; i < LEVELS.length; i++) out[i] = known[i] == 0 ? Double.NaN : covered[i] / known[i];
        return out;
    }

    private static double median(List<Double> values) {
        if (values.isEmpty()) return Double.NaN;
        double[] v = values.stream().mapToDouble(Double::doubleValue).toArray();
        Arrays.sort(v);
        return v[(v.length - 1) / 2];
    }
}
