package dev.horizon.trace;

import dev.horizon.allocator.model.Cluster;
import dev.horizon.allocator.model.GpuNode;
import dev.horizon.allocator.model.InferenceService;
import dev.horizon.api.Contract;
import dev.horizon.api.GpuShape;
import dev.horizon.api.JobClass;
import dev.horizon.api.JobSource;
import dev.horizon.api.JobSpec;
import dev.horizon.api.mig.MigLayout;
import dev.horizon.fairshare.BudgetTree;
import dev.horizon.fractional.mig.MigPolicy;
import dev.horizon.simulation.Scenario;
import dev.horizon.simulation.ServiceDemand;
import dev.horizon.simulation.SimJob;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.IntStream;

/**
 * The contended day `./horizon demo` replays and `./horizon bench --scenario demo-day` runs, built in this one place so
 * that the live control plane and every policy in the simulator get the very same jobs on the very same cluster: two
 * 8-GPU hosts (an H100 node, and an A100 node under a MIG policy whose GPU 6 starts as two 3g.40gb halves and GPU 7 as
 * seven 1g.10gb slices, as the demo's agents are set up), three teams with budgets in a tree, a stream of training,
 * batch-inference, quantization and debug jobs (the Philly log's arrivals, sizes and durations when the traces are
 * there, the built-in generator's otherwise), and an inference service on the GenAI request trace's daily curve (or the
 * generator's). Each job is written the way its team would submit it (a PyTorchJob, a RayCluster of half-GPU actors, or
 * job JSON for MIG slices and single GPUs); {@link Manifests} turns the first two into job JSON, and the simulator's job
 * is made from that job JSON.
 */
public final class DemoDayScenario {
    public static final String NAME = "demo-day";
    public static final String H100_NODE = "node-h100";
    public static final String A100_NODE = "node-a100";
    public static final List<GpuNode> NODES = List.of(new GpuNode(H100_NODE, "H100-80GB", 8, 81_559, null),
            new GpuNode(A100_NODE, "A100-80GB", 8, 81_920, null));
    public static final String SERVICE = "chat-serving";
    public static final String SERVICE_TEAM = "applied";
    /** The team tree: research (nlp and vision) owns most of the cluster, applied the rest. */
    public static final List<BudgetTree.Budget> BUDGETS = List.of(new BudgetTree.Budget("research", null, 0.65),
            new BudgetTree.Budget("nlp", "research", 0.55), new BudgetTree.Budget("vision", "research", 0.45), new BudgetTree.Budget(SERVICE_TEAM, null, 0.35));
    /**
     * The demo's cluster ages waiting work every this many hours (horizon.planner.age-doubling-hours, off by default; the
     * launcher gives the demo's control plane the same): the day is 1.5 times its GPUs, and its admins bound how long a
     * team's low-priority work waits, as a Slurm site sets an age factor. No job waits this long inside the day, so the
     * day's schedule is the same with or without it; the start-time bands, which play days past it, count on it.
     */
    public static final int AGE_DOUBLING_HOURS = 12;
    public static final MigPolicy MIG = new MigPolicy("a100", Set.of("A100-80GB"), Set.of("1g.10gb", "3g.40gb"), MigPolicy.Layout.DYNAMIC,
            Duration.ofMinutes(5), 2);
    /** node-a100's GPU 6 in two 3g.40gb halves and GPU 7 in seven 1g.10gb slices, as `./horizon demo` partitions them at start. */
    public static final List<Scenario.StartLayout> START_LAYOUTS = List.of(
            new Scenario.StartLayout(1, 6, new MigLayout("A100-80GB", List.of(new MigLayout.Slot("3g.40gb", 0), new MigLayout.Slot("3g.40gb", 4)))),
            new Scenario.StartLayout(1, 7, new MigLayout("A100-80GB", IntStream.range(0, 7).mapToObj(k -> new MigLayout.Slot("1g.10gb", k)).toList())));
    public static final long STEP_SECONDS = ScenarioOptions.STEP_SECONDS;
    /** Priority classes, lowest first, and the priority each maps to (the Kubeflow adapter's --priority-class). */
    public static final Map<String, Integer> PRIORITY_CLASSES = Map.of("low", 1, "normal", 2, "high", 4, "urgent", 8);
    /** Three teams asking for different amounts: nlp the most, so fair share has something to do. */
    private static final String[] TEAMS = {"nlp", "nlp", "nlp", "vision", "vision", "applied"};
    /** The demo's jobs run at most this long, so a day shows many of them start and end. */
    private static final long LONGEST_RUN_SECONDS = 8 * 3600;
    private static final double LOAD = 1.5;
    private static final double INFERENCE_PEAK_SHARE = 0.35;
    /** A Ray actor's half GPU: half the compute and, rounded down as Ray packs fractions, half an H100's memory. */
    private static final GpuShape HALF_GPU = new GpuShape(null, null, 500, 81_559 / 2, null);

    private DemoDayScenario() {
    }

    /** How a team's Kubeflow and KubeRay manifests become job JSON: the demo uses the adapters' own translation. */
    public interface Manifests {
        JobSpec pytorchJob(String name, String team, String priorityClass, int gpusPerPod, int workers, long estimateSeconds);

        JobSpec rayCluster(String name, String team, int actors);
    }

    /**
     * The job JSON the Kubeflow adapter (its default team rule and the demo's priority classes) and the KubeRay adapter
     * (time-slicing, an H100's memory) make of the demo's manifests, written out here for the bench, which embeds no adapter;
     * tests/demo checks that the adapters translate every manifest of a day to exactly this.
     */
    public static final Manifests AS_TRANSLATED = new Manifests() {
        @Override
        public JobSpec pytorchJob(String name, String team, String priorityClass, int gpusPerPod, int workers, long estimateSeconds) {
            return new JobSpec(name, team, JobClass.TRAINING, PRIORITY_CLASSES.get(priorityClass), workers + 1, null, GpuShape.wholeGpus(gpusPerPod),
                    true, null, estimateSeconds, null, new JobSource("PyTorchJob", team, name));
        }

        @Override
        public JobSpec rayCluster(String name, String team, int actors) {
            return new JobSpec(name + "-actors", team, JobClass.BATCH_INFERENCE, null, actors, null, HALF_GPU, true, null, null, null,
                    new JobSource("RayCluster", team, name));
        }
    };

    /** One job of the day: when it arrives, how long it truly runs, the job JSON submitted for it and what made that JSON. */
    public record Submission(SimJob job, JobSpec spec, String via) {
    }

    /**
     * The day: the scenario every policy runs, the submissions in arrival order, the inference service, where the jobs
     * came from, and traceDay: the Philly log's day the window begins on (null with the generator).
     */
    public record Day(Scenario scenario, List<Submission> submissions, ServiceDemand service, String source, LocalDate traceDay) {
        /**
         * The date the control plane's virtual clock starts on: the trace's day on this year's calendar (today with the
         * generator), at midnight UTC, so the day reads as a date of this year, never 1970.
         */
        public Instant clockStart(LocalDate today) {
            LocalDate day = traceDay == null ? today : traceDay.withYear(today.getYear());
            return day.atStartOfDay(ZoneOffset.UTC).toInstant();
        }

        /** Where the day comes from, with the date it is shown on. */
        public String dateWords(LocalDate today) {
            LocalDate shown = LocalDate.ofInstant(clockStart(today), ZoneOffset.UTC);
            return traceDay == null ? "shown on " + shown : "the trace's " + traceDay + ", shown on this year's calendar as " + shown;
        }

        /**
         * When the day's work first asks for more GPUs than the cluster has, counting each job as running from its arrival
         * for its true duration (a slice as one GPU); the window's end when it never does. The demo replays the quiet hours
         * before it at once.
         */
        public long firstContentionSeconds() {
            int cluster = NODES.stream().mapToInt(GpuNode::gpus).sum();
            TreeMap<Long, Integer> change = new TreeMap<>();
            for (Submission s : submissions) {
                change.merge(s.job().arrivalSeconds(), s.job().gpus(), Integer::sum);
                change.merge(s.job().arrivalSeconds() + s.job().trueDurationSeconds(), -s.job().gpus(), Integer::sum);
            }
            int asked = 0;
            for (Map.Entry<Long, Integer> c : change.entrySet()) {
                asked += c.getValue();
                if (asked > cluster) return c.getKey();
            }
            return scenario.windowSteps() * STEP_SECONDS;
        }
    }

    /** The day of seed, from the traces in traceDir when they are there (else the built-in generator). */
    public static Day build(long seed, Path traceDir, Manifests manifests) throws IOException {
        boolean philly = Scenarios.missingPhillyTrace(traceDir).isEmpty();
        ScenarioOptions o = new ScenarioOptions(seed, 16, 1, LOAD, INFERENCE_PEAK_SHARE, 0, traceDir);
        Scenario base = Scenarios.build(philly ? "philly" : "mixed", o);
        Cluster cluster = new Cluster(NODES);
        Random rng = new Random(seed);
        List<Submission> submissions = new ArrayList<>();
        for (SimJob j : base.jobs()) {
            if (j.gpus() > 8) continue;
            submissions.add(submission(j, "job-" + submissions.size(), rng, manifests, cluster));
        }
        addDebugJobs("debug-", base.windowSeconds(), rng, cluster, submissions);
        submissions.sort(Comparator.comparingLong((Submission s) -> s.job().arrivalSeconds()).thenComparing(s -> s.job().id()));
        List<SimJob> priorArrivals = priorArrivals(base, rng, manifests, cluster);
        ServiceDemand demand = base.services().get(0);
        ServiceDemand service = new ServiceDemand(new InferenceService(SERVICE, SERVICE_TEAM, 8, 2), demand.history(),
                demand.window(), demand.historyMinutes(), demand.windowMinutes());
        String source = philly ? "the Philly job log (arrivals, sizes, durations) and the Alibaba GenAI request trace's daily curve, from " + traceDir
                : "the built-in generator (../shared/traces is absent): jobs like the mixed scenario's, a generated daily inference curve";
        Map<String, Object> info = new LinkedHashMap<>();
        info.put("name", NAME);
        info.put("source", source);
        info.put("seed", seed);
        info.put("jobs", submissions.size());
        info.put("priorArrivals", priorArrivals.size());
        info.put("migStartLayouts", A100_NODE + " GPU 6: 2 x 3g.40gb, GPU 7: 7 x 1g.10gb");
        info.put("ageDoublingHours", AGE_DOUBLING_HOURS);
        BudgetTree budgets = new BudgetTree(BUDGETS).withAgeDoubling(AGE_DOUBLING_HOURS * 3600L);
        Scenario day = new Scenario(NAME, cluster, STEP_SECONDS, base.windowSteps(), ScenarioOptions.HORIZON_STEPS,
                submissions.stream().map(Submission::job).toList(), List.of(service), List.of(), info, budgets, MIG, List.of(),
                priorArrivals, START_LAYOUTS);
        LocalDate traceDay = philly ? LocalDateTime.parse(String.valueOf(base.description().get("windowStart"))).toLocalDate() : null;
        return new Day(day, submissions, service, source, traceDay);
    }

    /**
     * The job as its team would write it. Training of two or more GPUs is a PyTorchJob (a master and workers, one pod
     * per half of its GPUs); a third of batch inference is a RayCluster of half-GPU actors (two per GPU it asked for); half
     * of quantization runs on a 3g.40gb MIG half of an A100; the rest is job JSON of whole GPUs. Teams and priorities are
     * drawn; the user's estimate is the true duration off by up to a factor of 1.5 either way.
     */
    private static Submission submission(SimJob base, String name, Random rng, Manifests manifests, Cluster cluster) {
        String team = TEAMS[rng.nextInt(TEAMS.length)];
        String priorityClass = priorityClass(rng);
        long duration = Math.min(LONGEST_RUN_SECONDS, base.trueDurationSeconds());
        long estimate = Math.max(60, Math.round(duration * Math.exp((rng.nextDouble() * 2 - 1) * Math.log(1.5))));
        JobSpec spec;
        String via;
        if (base.jobClass() == JobClass.TRAINING && base.gpus() >= 2) {
            int pods = base.gpus() >= 4 ? 2 : base.gpus();
            spec = manifests.pytorchJob(name, team, priorityClass, base.gpus() / pods, pods - 1, estimate);
            via = "PyTorchJob through the Kubeflow adapter";
        } else if (base.jobClass() == JobClass.BATCH_INFERENCE && rng.nextInt(3) == 0) {
            spec = manifests.rayCluster(name, team, 2 * base.gpus());
            via = "RayCluster through the KubeRay adapter";
        } else if (base.jobClass() == JobClass.QUANTIZATION && rng.nextBoolean()) {
            spec = restJob(name, team, base.jobClass(), PRIORITY_CLASSES.get(priorityClass), new GpuShape(null, "3g.40gb", null, null, null), estimate);
            via = "job JSON (a 3g.40gb MIG instance)";
        } else {
            spec = restJob(name, team, base.jobClass(), PRIORITY_CLASSES.get(priorityClass), GpuShape.wholeGpus(base.gpus()), estimate);
            via = "job JSON";
        }
        return new Submission(ScenarioFile.job(spec, base.arrivalSeconds(), duration, cluster, name), spec, via);
    }

    /**
     * What the teams submitted over the day before, made as the day's own jobs are: the base scenario's prior arrivals
     * written as submissions, and a day of debug sessions. Drawn after the day, so the day is the same with or without them.
     */
    private static List<SimJob> priorArrivals(Scenario base, Random rng, Manifests manifests, Cluster cluster) {
        List<SimJob> out = new ArrayList<>();
        for (SimJob j : base.priorArrivals()) {
            if (j.gpus() <= 8) out.add(submission(j, "prior-" + out.size(), rng, manifests, cluster).job());
        }
        long day = 86_400;
        List<Submission> debug = new ArrayList<>();
        addDebugJobs("prior-debug-", day, rng, cluster, debug);
        for (Submission d : debug) out.add(d.job().arrivingAt(d.job().arrivalSeconds() - day));
        return out;
    }

    /** Debug sessions all day, every 40 minutes or so: a 1g.10gb MIG slice or one GPU for 5 to 20 minutes, wanted now. */
    private static void addDebugJobs(String namePrefix, long window, Random rng, Cluster cluster, List<Submission> out) {
        for (long t = (long) (rng.nextDouble() * 2400); t < window; t += 600 + (long) (rng.nextDouble() * 3600)) {
            String name = namePrefix + out.size();
            String team = TEAMS[rng.nextInt(TEAMS.length)];
            long duration = 300 + (long) (rng.nextDouble() * 900);
            GpuShape shape = rng.nextBoolean() ? new GpuShape(null, "1g.10gb", null, null, null) : GpuShape.wholeGpus(1);
            JobSpec spec = restJob(name, team, JobClass.DEBUG, 4, shape, duration);
            out.add(new Submission(ScenarioFile.job(spec, t, duration, cluster, name), spec, "job JSON"));
        }
    }

    private static JobSpec restJob(String name, String team, JobClass jobClass, int priority, GpuShape shape, long estimate) {
        return new JobSpec(name, team, jobClass, priority, 1, null, shape, null, null, estimate, Contract.defaultFor(jobClass), null);
    }

    private static String priorityClass(Random rng) {
        double u = rng.nextDouble();
        return u < 0.4 ? "low" : u < 0.7 ? "normal" : u < 0.9 ? "high" : "urgent";
    }
}
