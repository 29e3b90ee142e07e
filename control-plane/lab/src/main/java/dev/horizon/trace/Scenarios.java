package dev.horizon.trace;

import dev.horizon.allocator.eta.ExpectedArrivals;
import dev.horizon.allocator.model.Cluster;
import dev.horizon.allocator.model.InferenceService;
import dev.horizon.api.Contract;
import dev.horizon.api.JobClass;
import dev.horizon.simulation.Scenario;
import dev.horizon.simulation.ServiceDemand;
import dev.horizon.simulation.SimJob;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.stream.Stream;

/** Builds the benchmark's scenarios: two generated ones that need nothing outside the product, Philly, and files. */
public final class Scenarios {
    public static final List<String> BUILT_IN = List.of("training-heavy", "mixed", "philly", "fairshare", WideGangsScenario.NAME,
            DemoDayScenario.NAME);
    private static final double[] WEIGHTS = {1, 2, 4, 8};
    private static final double[] WEIGHT_ODDS = {0.4, 0.3, 0.2, 0.1};
    private static final double INFERENCE_WEIGHT = 4;
    /** The Philly log, under the traces folder (--trace-dir). */
    public static final String PHILLY_LOG = "philly-via-pollux/philly.csv";
    /** The GenAI request trace the philly scenario's inference demand comes from, under the traces folder. */
    public static final String GENAI_LOG = "alibaba-genai-v2026/lora_request_trace.csv";
    /** The GenAI trace has 23 days; the first 8 are always history for the forecaster. */
    private static final int GENAI_HISTORY_DAYS = 8;
    private static final int GENAI_DAYS = 23;
    private static final int PHILLY_BUSY_DAY_JOBS = 100;
    /** Share of the log's 1-GPU jobs that run over an hour (15,749 of 76,627): the odds a 1-GPU job is training. */
    private static final double PHILLY_SINGLE_GPU_TRAINING = 0.21;

    private Scenarios() {
    }

    public static Scenario build(String name, ScenarioOptions o) throws IOException {
        Scenario s = drawn(name, o);
        if (o.ageDoublingHours() == null || (o.ageDoublingHours() == 0 && s.budgets() == null)) return s;
        if (s.budgets() == null) {
            throw new IllegalArgumentException("--age-doubling-hours ages work inside team budgets, and scenario '" + name
                    + "' has none: use fairshare, demo-day or --budgets FILE");
        }
        Map<String, Object> description = new LinkedHashMap<>(s.description());
        description.put("ageDoublingHours", o.ageDoublingHours());
        return s.withBudgets(s.budgets().withAgeDoubling(o.ageDoublingHours() * 3600L), description);
    }

    private static Scenario drawn(String name, ScenarioOptions o) throws IOException {
        return switch (name) {
            case "training-heavy" -> generated(name, o, o.gpus() != null ? o.gpus() : 8, 0.75, 0.15, 0.10, 0.0);
            case "mixed" -> generated(name, o, o.gpus() != null ? o.gpus() : 64, 0.35, 0.30, 0.20, 0.15);
            case "philly" -> philly(o);
            case "fairshare" -> FairShareScenario.build(o);
            case WideGangsScenario.NAME -> WideGangsScenario.build(o);
            case DemoDayScenario.NAME -> DemoDayScenario.build(o.seed(), o.traceDir(), DemoDayScenario.AS_TRANSLATED).scenario();
            default -> {
                Path file = Path.of(name);
                if (!Files.isRegularFile(file)) {
                    throw new IllegalArgumentException("unknown scenario '" + name + "': use one of " + BUILT_IN + " or the path of a scenario file");
                }
                yield ScenarioFile.read(file, o);
            }
        };
    }

    static double drawWeight(Random rng) {
        double u = rng.nextDouble(), acc = 0;
        for (int i = 0; i < WEIGHTS.length; i++) {
            acc += WEIGHT_ODDS[i];
            if (u < acc) return WEIGHTS[i];
        }
        return WEIGHTS[WEIGHTS.length - 1];
    }

    /** GPU-seconds a job could run inside the window: GPUs x time from arrival to the earlier of its end and the window's end. */
    static double loadOf(SimJob j, long window) {
        return (double) j.gpus() * Math.max(0, Math.min(j.trueDurationSeconds(), window - j.arrivalSeconds()));
    }

    /** The batch GPU-seconds to draw: load x (the window's GPU-seconds minus inference demand). */
    static double loadTarget(ScenarioOptions o, int gpus, long window, List<ServiceDemand> services) {
        double demand = 0;
        for (ServiceDemand s : services) for (double d : s.windowMinutes()) demand += Math.min(d, gpus) * ServiceDemand.SECONDS_PER_MINUTE;
        return o.load() * ((double) gpus * window - demand);
    }

    private static Scenario generated(String name, ScenarioOptions o, int gpus, double training, double batch, double quant, double debug) {
        int days = o.days() != null ? o.days() : 2;
        long step = ScenarioOptions.STEP_SECONDS;
        int stepsPerDay = (int) (86_400 / step);
        int windowSteps = days * stepsPerDay;
        long window = windowSteps * step;
        Random rng = new Random(o.seed());
        Cluster cluster = Cluster.homogeneous(gpus, 8, "H100-80GB", 81_559);
        List<ServiceDemand> services = List.of(diurnalService("chat-serving", gpus, o.rtPeakShare(), (int) (step / 60), windowSteps, rng));
        double[] classOdds = {training, batch, quant, debug};
        JobClass[] classes = {JobClass.TRAINING, JobClass.BATCH_INFERENCE, JobClass.QUANTIZATION, JobClass.DEBUG};
        String[] teams = {"nlp", "vision", "speech", "research"};
        double target = loadTarget(o, gpus, window, services);
        // arrivals spread over the window so that the drawn work keeps coming, not all at t=0
        double meanGap = window / Math.max(1.0, target / (gpus * 3600.0 * 1.5));
        Arrivals arrivals = (id, t) -> syntheticJob(id, t, classes[pick(classOdds, rng)], teams[rng.nextInt(teams.length)], gpus, rng);
        List<SimJob> jobs = arrivals.draw("job-", window, meanGap, target, 200_000, rng);
        List<SimJob> history = new ArrayList<>();
        for (int i = 0; i < 400; i++) history.add(syntheticJob("hist-" + i, 0, classes[pick(classOdds, rng)], teams[rng.nextInt(teams.length)], gpus, rng));
        List<SimJob> priorArrivals = arrivals.dayBefore(window, meanGap, target, 200_000, rng);
        Map<String, Object> info = o.describe(name, "generated (seeded); diurnal inference demand peaking at 14:00", gpus, days);
        info.put("rtPeakShare", o.rtPeakShare());
        info.put("jobs", jobs.size());
        info.put("priorArrivals", priorArrivals.size());
        return new Scenario(name, cluster, step, windowSteps, ScenarioOptions.HORIZON_STEPS, jobs, services, history, info, null, null, List.of(),
                priorArrivals);
    }

    /** How a generated scenario makes the job that arrives at a time. */
    interface Arrivals {
        SimJob job(String id, long arrivalSeconds);

        /**
         * Jobs arriving over span with exponential gaps (wrapping round its end) until their load inside the span reaches
         * target, or cap jobs were drawn; in the order drawn.
         */
        default List<SimJob> draw(String idPrefix, long span, double meanGap, double target, int cap, Random rng) {
            List<SimJob> out = new ArrayList<>();
            double drawn = 0;
            long t = 0;
            for (int i = 0; drawn < target && i < cap; i++) {
                t = (long) ((t + (long) (-Math.log(1 - rng.nextDouble()) * meanGap)) % span);
                SimJob j = job(idPrefix + i, t);
                out.add(j);
                drawn += loadOf(j, span);
            }
            return out;
        }

        /**
         * The day before a window's submissions, drawn as the window's are (same rate, same load per second), after
         * everything of the window was drawn so the window is the same with or without them; arrivals in [-1 day, 0).
         */
        default List<SimJob> dayBefore(long window, double meanGap, double target, int cap, Random rng) {
            long day = 86_400;
            return draw("prior-", day, meanGap, target * day / window, cap, rng).stream().map(j -> j.arrivingAt(j.arrivalSeconds() - day)).toList();
        }
    }

    private static SimJob syntheticJob(String id, long arrival, JobClass cls, String team, int clusterGpus, Random rng) {
        int gpus;
        double medianSeconds;
        switch (cls) {
            case TRAINING -> {
                int[] sizes = {1, 1, 2, 2, 4, 8};
                gpus = sizes[rng.nextInt(sizes.length)];
                medianSeconds = 3 * 3600;
            }
            case BATCH_INFERENCE -> {
                gpus = rng.nextBoolean() ? 1 : 2;
                medianSeconds = 3600;
            }
            case QUANTIZATION -> {
                gpus = 1;
                medianSeconds = 1800;
            }
            default -> {
                gpus = 1;
                medianSeconds = 600;
            }
        }
        // a job may take at most half the cluster, so inference always keeps room beside it
        gpus = Math.min(gpus, Math.max(1, Math.min(8, clusterGpus / 2)));
        long duration = Math.max(120, Math.round(medianSeconds * Math.exp(0.8 * rng.nextGaussian())));
        // half the training jobs are elastic (torchrun-style): they run on a quarter of their width or more
        int minGpus = cls == JobClass.TRAINING && rng.nextBoolean() ? Math.max(1, gpus / 4) : gpus;
        return new SimJob(id, team, cls, drawWeight(rng), gpus, minGpus, arrival, duration, null, Contract.defaultFor(cls));
    }

    /**
     * A generated inference service: a week of history and the window, per minute, on a daily curve peaking
     * mid-afternoon with a deep night trough; each day's level varies a little, and minutes burst around the curve
     * (lognormal, correlated over a few minutes, as request traffic is). Scaled so its busiest minute is peakShare of
     * the GPUs.
     */
    static ServiceDemand diurnalService(String name, int gpus, double peakShare, int minutesPerStep, int windowSteps, Random rng) {
        int perDay = 1440, historyMinutes = 7 * perDay, minutes = historyMinutes + windowSteps * minutesPerStep;
        double[] curve = new double[minutes];
        double day = 1, burst = 0;
        for (int m = 0; m < minutes; m++) {
            if (m % perDay == 0) day = Math.max(0.5, 1 + 0.08 * rng.nextGaussian());
            burst = 0.7 * burst + Math.sqrt(1 - 0.49) * rng.nextGaussian();
            double hour = 24.0 * (m % perDay) / perDay;
            double shape = 0.12 + 0.88 * Math.exp(-Math.pow((hour - 14) / 3.5, 2));
            curve[m] = shape * day * Math.exp(0.25 * burst - 0.25 * 0.25 / 2);
        }
        scaleToPeak(curve, peakShare * gpus);
        return ServiceDemand.perMinute(new InferenceService(name, "serving", INFERENCE_WEIGHT, Math.max(2, gpus / 8)),
                java.util.Arrays.copyOf(curve, historyMinutes), java.util.Arrays.copyOfRange(curve, historyMinutes, minutes), minutesPerStep);
    }

    /** Scales a curve so its highest value is peak GPUs. */
    static void scaleToPeak(double[] curve, double peak) {
        double max = 0;
        for (double v : curve) max = Math.max(max, v);
        double scale = max == 0 ? 0 : peak / max;
        for (int i = 0; i < curve.length; i++) curve[i] *= scale;
    }

    private static int pick(double[] odds, Random rng) {
        double u = rng.nextDouble() * java.util.Arrays.stream(odds).sum(), acc = 0;
        for (int i = 0; i < odds.length; i++) {
            acc += odds[i];
            if (u < acc) return i;
        }
        return odds.length - 1;
    }

    /**
     * A Philly job's class, from its GPU count and the seed only (the log has no classes, and a class drawn from the
     * duration would tell the duration estimator what only the simulator may know): multi-GPU jobs are training; a
     * 1-GPU job is training with the odds a 1-GPU job of the whole log runs over an hour (21%), else quantization (15%
     * of the rest) or batch inference.
     */
    static JobClass phillyClass(int gpus, Random rng) {
        if (gpus >= 2) return JobClass.TRAINING;
        double u = rng.nextDouble();
        if (u < PHILLY_SINGLE_GPU_TRAINING) return JobClass.TRAINING;
        return u < PHILLY_SINGLE_GPU_TRAINING + (1 - PHILLY_SINGLE_GPU_TRAINING) * 0.15 ? JobClass.QUANTIZATION : JobClass.BATCH_INFERENCE;
    }

    /** The first of the files the philly scenario reads that traceDir lacks: its log, then the GenAI demand; empty when it has both. */
    public static Optional<String> missingPhillyTrace(Path traceDir) {
        return Stream.of(PHILLY_LOG, GENAI_LOG).filter(f -> !Files.isRegularFile(traceDir.resolve(f))).findFirst();
    }

    private static Scenario philly(ScenarioOptions o) throws IOException {
        if (o.traceDir() == null) throw new IllegalArgumentException("the philly scenario needs --trace-dir: the folder holding philly-via-pollux/ and alibaba-genai-v2026/");
        Optional<String> missing = missingPhillyTrace(o.traceDir());
        if (missing.isPresent()) {
            throw new IllegalArgumentException("missing trace " + o.traceDir().resolve(missing.get()) + ": point --trace-dir at the folder that holds it");
        }
        Path phillyFile = o.traceDir().resolve(PHILLY_LOG);
        Path genAiFile = o.traceDir().resolve(GENAI_LOG);
        int gpus = o.gpus() != null ? o.gpus() : 64;
        int days = o.days() != null ? o.days() : 2;
        int maxDays = GENAI_DAYS - GENAI_HISTORY_DAYS;
        if (days > maxDays) throw new IllegalArgumentException("--days must be at most " + maxDays + " for philly: the GenAI demand trace has "
                + GENAI_DAYS + " days and the first " + GENAI_HISTORY_DAYS + " are history");
        long step = ScenarioOptions.STEP_SECONDS;
        int stepsPerDay = (int) (86_400 / step);
        int windowSteps = days * stepsPerDay;
        long window = windowSteps * step;
        Random rng = new Random(o.seed());

        // inference, per minute: GenAI days [g0, g0 + days) are the window, every day before is history
        double[] genAi = GenAiDemand.perStep(genAiFile, ServiceDemand.SECONDS_PER_MINUTE);
        int g0 = GENAI_HISTORY_DAYS + o.traceStartDay() % (maxDays - days + 1);
        int from = g0 * 1440, windowMinutes = (int) (window / ServiceDemand.SECONDS_PER_MINUTE);
        double[] used = java.util.Arrays.copyOf(genAi, from + windowMinutes);
        scaleToPeak(used, o.rtPeakShare() * gpus);
        List<ServiceDemand> services = List.of(ServiceDemand.perMinute(
                new InferenceService("genai-serving", "serving", INFERENCE_WEIGHT, Math.max(2, gpus / 8)),
                java.util.Arrays.copyOf(used, from), java.util.Arrays.copyOfRange(used, from, from + windowMinutes), (int) (step / 60)));

        List<PhillyTrace.Row> rows = PhillyTrace.read(phillyFile);
        // the log's first three weeks hold only a few test jobs: day 0 is its first busy day, and
        // start days past its end wrap around, so every K names a window full of real work
        Map<java.time.LocalDate, Integer> perDay = new java.util.TreeMap<>();
        rows.forEach(r -> perDay.merge(r.submitted().toLocalDate(), 1, Integer::sum));
        List<java.time.LocalDate> busyDays = perDay.entrySet().stream().filter(e -> e.getValue() >= PHILLY_BUSY_DAY_JOBS)
                .map(Map.Entry::getKey).toList();
        if (busyDays.isEmpty()) throw new IOException(phillyFile + " has no day with " + PHILLY_BUSY_DAY_JOBS + " or more jobs");
        java.time.LocalDate firstBusy = busyDays.get(0);
        long span = ChronoUnit.DAYS.between(firstBusy, busyDays.get(busyDays.size() - 1)) + 1;
        LocalDateTime start = firstBusy.atStartOfDay().plusDays(o.traceStartDay() % Math.max(1, span - days));
        LocalDateTime end = start.plusSeconds(window);
        LocalDateTime historyFrom = start.minusDays(14);
        rows.sort(Comparator.comparing(PhillyTrace.Row::submitted).thenComparing(PhillyTrace.Row::virtualCluster)
                .thenComparingLong(PhillyTrace.Row::durationSeconds).thenComparingInt(PhillyTrace.Row::gpus));
        LocalDateTime priorFrom = start.minusSeconds(ExpectedArrivals.WINDOW_SECONDS);
        List<SimJob> candidates = new ArrayList<>();
        List<SimJob> history = new ArrayList<>();
        Map<Integer, SimJob> priorRows = new LinkedHashMap<>();
        int tooLarge = 0;
        for (int i = 0; i < rows.size(); i++) {
            PhillyTrace.Row r = rows.get(i);
            if (r.durationSeconds() <= 0 || r.gpus() < 1) continue;
            boolean inWindow = !r.submitted().isBefore(start) && r.submitted().isBefore(end);
            boolean inHistory = !r.submitted().isBefore(historyFrom) && r.submitted().plusSeconds(r.durationSeconds()).isBefore(start);
            boolean prior = !r.submitted().isBefore(priorFrom) && r.submitted().isBefore(start) && r.gpus() <= gpus;
            if (prior) priorRows.put(i, null);
            if (!inWindow && !inHistory) continue;
            if (r.gpus() > gpus) {
                if (inWindow) tooLarge++;
                continue;
            }
            SimJob job = phillyJob(i, r, start, rng);
            (inWindow ? candidates : history).add(job);
            if (prior) priorRows.put(i, job);
        }
        if (candidates.isEmpty()) {
            throw new IllegalArgumentException("--trace-start-day " + o.traceStartDay() + ": the Philly log has no jobs in the window from " + start);
        }
        java.util.Collections.shuffle(candidates, rng);
        double target = loadTarget(o, gpus, window, services);
        List<SimJob> jobs = new ArrayList<>();
        double drawn = 0;
        for (SimJob j : candidates) {
            if (drawn >= target) break;
            jobs.add(j);
            drawn += loadOf(j, window);
        }
        jobs.sort(Comparator.comparingLong(SimJob::arrivalSeconds).thenComparing(SimJob::id));
        List<SimJob> priorArrivals = thinned(priorRows, rows, jobs.size() / (double) candidates.size(), start, rng);
        Map<String, Object> info = o.describe("philly", "Philly job log (Jeon et al., ATC'19) + Alibaba GenAI request trace as inference demand", gpus, days);
        info.put("achievedLoad", drawn / (target / o.load()));
        info.put("rtPeakShare", o.rtPeakShare());
        info.put("traceStartDay", o.traceStartDay());
        info.put("windowStart", start.toString());
        info.put("genAiWindowDay", g0);
        info.put("jobs", jobs.size());
        info.put("jobsInWindow", candidates.size());
        info.put("jobsLargerThanCluster", tooLarge);
        info.put("priorArrivals", priorArrivals.size());
        return new Scenario("philly", Cluster.homogeneous(gpus, 8, "V100-16GB", 16_384), step, windowSteps, ScenarioOptions.HORIZON_STEPS,
                jobs, services, history, info, null, null, List.of(), priorArrivals);
    }

    private static SimJob phillyJob(int i, PhillyTrace.Row r, LocalDateTime start, Random rng) {
        JobClass cls = phillyClass(r.gpus(), rng);
        long arrival = ChronoUnit.SECONDS.between(start, r.submitted());
        return new SimJob("philly-" + i, r.virtualCluster(), cls, drawWeight(rng), r.gpus(), r.gpus(), arrival, r.durationSeconds(), null,
                Contract.defaultFor(cls));
    }

    /**
     * The day before the window's submissions, each kept with the share of the window's jobs the load kept (the window's
     * jobs are a uniform draw of its submissions), so the day before arrives at the rate the window does. A row also in
     * the history keeps the job drawn for it there; drawn after the window's jobs, so they are the same with or without.
     */
    private static List<SimJob> thinned(Map<Integer, SimJob> priorRows, List<PhillyTrace.Row> rows, double share, LocalDateTime start, Random rng) {
        List<SimJob> out = new ArrayList<>();
        priorRows.forEach((i, job) -> {
            if (rng.nextDouble() >= share) return;
            out.add(job != null ? job : phillyJob(i, rows.get(i), start, rng));
        });
        return out;
    }
}
