package dev.horizon.trace;

import dev.horizon.allocator.model.Cluster;
import dev.horizon.allocator.model.GpuNode;
import dev.horizon.allocator.model.PlacementRules;
import dev.horizon.api.Contract;
import dev.horizon.api.JobClass;
import dev.horizon.simulation.Scenario;
import dev.horizon.simulation.ServiceDemand;
import dev.horizon.simulation.SimJob;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

/**
 * `wide-gangs`, a generated scenario where planning matters: 128 GPUs on 16 nodes of 8, half H100-80GB and half
 * A100-80GB, NVLink domains of 4 nodes (each of one model); job widths 1/2/4/8/16/32/64 GPUs in 30/15/15/15/10/10/5% of
 * jobs, every job of 2 GPUs or more a gang (up to 8 GPUs one pod on one node; wider, pods of 8 GPUs, 16 and 32 in one
 * NVLink domain), a third of the jobs restricted to one GPU model, minimum runtimes of 30 min to 2 h and checkpoint costs
 * of 2 to 10 min, durations lognormal like the Philly log's (median 19 min, log-sd 2.16, at most 48 h), and a diurnal
 * inference curve per minute peaking at --rt-peak-share (30% by default) of the GPUs. Seeded like the others.
 */
public final class WideGangsScenario {
    public static final String NAME = "wide-gangs";
    public static final double DEFAULT_RT_PEAK_SHARE = 0.3;
    static final int NODES = 16, GPUS_PER_NODE = 8, NODES_PER_DOMAIN = 4;
    static final String[] MODELS = {"H100-80GB", "A100-80GB"};
    private static final int[] WIDTHS = {1, 2, 4, 8, 16, 32, 64};
    private static final double[] WIDTH_ODDS = {0.30, 0.15, 0.15, 0.15, 0.10, 0.10, 0.05};
    /** The Philly log's durations: log-mean 6.79 (a median of 19 minutes), log-sd 2.16 (82,247 jobs). */
    private static final double PHILLY_LOG_MEAN = 6.79, PHILLY_LOG_SD = 2.16;
    private static final long MAX_DURATION_SECONDS = 48 * 3600;
    private static final String[] TEAMS = {"nlp", "vision", "speech", "research"};

    private WideGangsScenario() {
    }

    public static Scenario build(ScenarioOptions o) {
        if (o.gpus() != null && o.gpus() != NODES * GPUS_PER_NODE) {
            throw new IllegalArgumentException("--gpus: wide-gangs has a fixed cluster of " + NODES * GPUS_PER_NODE + " GPUs (16 nodes of 8); leave --gpus out");
        }
        int days = o.days() != null ? o.days() : 2;
        long step = ScenarioOptions.STEP_SECONDS;
        int windowSteps = (int) (days * 86_400 / step);
        long window = windowSteps * step;
        Random rng = new Random(o.seed());
        Cluster cluster = cluster();
        int gpus = cluster.totalGpus();
        List<ServiceDemand> services = List.of(Scenarios.diurnalService("chat-serving", gpus, o.rtPeakShare(), (int) (step / 60), windowSteps, rng));
        double target = Scenarios.loadTarget(o, gpus, window, services);
        double meanGap = window / Math.max(1.0, target / (gpus * 3600.0 * 1.5));
        Scenarios.Arrivals arrivals = (id, t) -> job(id, t, rng);
        List<SimJob> jobs = new ArrayList<>(arrivals.draw("wg-", window, meanGap, target, 100_000, rng));
        jobs.sort(Comparator.comparingLong(SimJob::arrivalSeconds).thenComparing(SimJob::id));
        List<SimJob> history = new ArrayList<>();
        for (int i = 0; i < 400; i++) history.add(job("hist-" + i, 0, rng));
        List<SimJob> priorArrivals = arrivals.dayBefore(window, meanGap, target, 100_000, rng);
        Map<String, Object> info = o.describe(NAME, "generated (seeded): 16 nodes of 8 GPUs, half H100-80GB, half A100-80GB, NVLink domains of 4 nodes; "
                + "wide gangs, Philly-like durations, diurnal inference per minute", gpus, days);
        info.put("rtPeakShare", o.rtPeakShare());
        info.put("jobs", jobs.size());
        info.put("priorArrivals", priorArrivals.size());
        return new Scenario(NAME, cluster, step, windowSteps, ScenarioOptions.HORIZON_STEPS, jobs, services, history, info, null, null, List.of(),
                priorArrivals);
    }

    static Cluster cluster() {
        List<GpuNode> nodes = new ArrayList<>();
        for (int n = 0; n < NODES; n++) {
            String model = MODELS[n < NODES / 2 ? 0 : 1];
            nodes.add(new GpuNode("node-" + n, model, GPUS_PER_NODE, 81_920, "nvl-" + n / NODES_PER_DOMAIN));
        }
        return new Cluster(nodes);
    }

    private static SimJob job(String id, long arrival, Random rng) {
        int gpus = WIDTHS[pick(rng)];
        JobClass cls = gpus > 1 ? JobClass.TRAINING : new JobClass[] {JobClass.TRAINING, JobClass.BATCH_INFERENCE, JobClass.QUANTIZATION}[rng.nextInt(3)];
        boolean resumable = cls != JobClass.QUANTIZATION;
        long minRuntime = 1800 + rng.nextInt(5401);
        Contract contract = new Contract(minRuntime, resumable, resumable ? 120 + rng.nextInt(481) : 0);
        long duration = Math.max(60, Math.min(MAX_DURATION_SECONDS, Math.round(Math.exp(PHILLY_LOG_MEAN + PHILLY_LOG_SD * rng.nextGaussian()))));
        Set<String> types = rng.nextInt(3) == 0 ? Set.of(MODELS[rng.nextInt(2)]) : Set.of();
        PlacementRules rules = new PlacementRules(types, gpus <= GPUS_PER_NODE ? gpus : GPUS_PER_NODE, gpus >= 2,
                gpus <= GPUS_PER_NODE ? PlacementRules.Topology.SAME_NODE
                        : gpus <= NODES_PER_DOMAIN * GPUS_PER_NODE ? PlacementRules.Topology.SAME_NVLINK_DOMAIN : PlacementRules.Topology.ANY);
        return new SimJob(id, TEAMS[rng.nextInt(TEAMS.length)], cls, Scenarios.drawWeight(rng), gpus, gpus, arrival, duration, null, contract, null, rules);
    }

    private static int pick(Random rng) {
        double u = rng.nextDouble(), acc = 0;
        for (int i = 0; i < WIDTH_ODDS.length; i++) {
            acc += WIDTH_ODDS[i];
            if (u < acc) return i;
        }
        return WIDTH_ODDS.length - 1;
    }
}
