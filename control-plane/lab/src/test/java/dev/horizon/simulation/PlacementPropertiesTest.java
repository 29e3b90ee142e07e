package dev.horizon.simulation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.horizon.allocator.SchedulingPolicy;
import dev.horizon.allocator.cpsat.CpSatPlanner;
import dev.horizon.allocator.model.Cluster;
import dev.horizon.allocator.model.GpuNode;
import dev.horizon.allocator.model.InferenceService;
import dev.horizon.allocator.model.PlacementRules.Topology;
import dev.horizon.allocator.model.PlacementRules;
import dev.horizon.allocator.model.SliceRequest;
import dev.horizon.allocator.placement.Feasibility;
import dev.horizon.allocator.policy.HorizonPolicy;
import dev.horizon.allocator.policy.PooledHorizonPolicy;
import dev.horizon.api.Contract;
import dev.horizon.api.JobClass;
import dev.horizon.bench.BenchPolicies;
import dev.horizon.fairshare.BudgetTree;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Placement rules hold for every policy on random heterogeneous clusters and workloads, checked on what the simulator ran
 * (its segments), not on what a policy meant: no job on a GPU model it does not accept, no partial gang (a start holds
 * whole replicas of an allowed width, no pod spans nodes, no job runs twice at once), no same-node job across nodes, no
 * job across NVLink domains when it asks for one, and nothing new on a drained node. Every policy: Horizon with the
 * heuristic, with CP-SAT, with node pools planned apart, and every baseline. Each rule is also shown to be exercised.
 */
class PlacementPropertiesTest {
    private static final int SEEDS = 4;
    private static final String[] MODELS = {"A100-80GB", "H100-80GB", "L40S-48GB"};
    private static final long STEP = 900;
    private static final int WINDOW_STEPS = 48;
    private static final List<Run> RUNS = runAll();

    /** One simulated run: the scenario, the policy's name, and what ran. */
    private record Run(Scenario scenario, String policy, SimResult result) {
    }

    /** One run segment as placed: the job it ran and the GPUs of each node it held (a slice counts one). */
    private record Placed(Run run, SimJob job, Segment segment, Map<Integer, Integer> gpusByNode) {
        String where() {
            return run.policy() + " on " + run.scenario().name() + ": " + job.id() + " " + segment.nodes() + " at t=" + segment.startSeconds();
        }
    }

    @Test
    void noJobRunsOnAGpuModelItDoesNotAccept() {
        check(p -> !p.job().rules().gpuTypes().isEmpty(), p -> p.gpusByNode().keySet().stream()
                .allMatch(n -> p.job().rules().accepts(p.run().scenario().cluster().nodes().get(n).gpuModel())));
    }

    @Test
    void noGangRunsInPart() {
        check(p -> p.job().gpus() > 1, p -> {
            SimJob j = p.job();
            int held = p.gpusByNode().values().stream().mapToInt(Integer::intValue).sum();
            boolean width = j.slice() == null ? j.rules().widths(j.gpus(), j.minGpus()).contains(held) : held == j.gpus();
            int pod = j.rules().perReplica() ? j.rules().gpusPerReplica() : 1;
            return width && p.gpusByNode().values().stream().allMatch(g -> g % pod == 0);
        });
        for (Run r : RUNS) {
            Map<String, List<Segment>> byJob = new HashMap<>();
            r.result().segments().stream().filter(Segment::started).forEach(s -> byJob.computeIfAbsent(s.jobId(), k -> new ArrayList<>()).add(s));
            byJob.forEach((id, segments) -> {
                for (int a = 0; a < segments.size(); a++) {
                    for (int b = a + 1; b < segments.size(); b++) {
                        Segment x = segments.get(a), y = segments.get(b);
                        assertTrue(x.endSeconds() <= y.startSeconds() || y.endSeconds() <= x.startSeconds(),
                                r.policy() + " on " + r.scenario().name() + ": " + id + " ran twice at once (part of a gang started apart)");
                    }
                }
            });
        }
    }

    @Test
    void noSameNodeJobRunsAcrossNodes() {
        check(p -> p.job().rules().topology() == Topology.SAME_NODE && p.job().gpus() > 1, p -> p.gpusByNode().size() == 1);
    }

    @Test
    void noJobRunsAcrossNvlinkDomainsWhenItAsksForOne() {
        check(p -> p.job().rules().topology() == Topology.SAME_NVLINK_DOMAIN && p.job().gpus() > 1, p -> {
            Cluster c = p.run().scenario().cluster();
            return p.gpusByNode().keySet().stream().map(c::domainOf).distinct().count() == 1;
        });
    }

    @Test
    void nothingNewStartsOnADrainedNode() {
        check(p -> !p.run().scenario().drains().isEmpty(), p -> p.run().scenario().drains().stream()
                .noneMatch(d -> p.gpusByNode().containsKey(d.node()) && p.segment().startSeconds() >= d.atSeconds()));
    }

    /** Every started segment the rule applies to keeps it, on every run; and the rule applies somewhere for every policy. */
    private static void check(Predicate<Placed> appliesTo, Predicate<Placed> holds) {
        List<String> broken = new ArrayList<>();
        Map<String, Integer> exercised = new LinkedHashMap<>();
        for (Run r : RUNS) {
            exercised.putIfAbsent(r.policy(), 0);
            for (Placed p : placed(r)) {
                if (!appliesTo.test(p)) continue;
                exercised.merge(r.policy(), 1, Integer::sum);
                if (!holds.test(p)) broken.add(p.where());
            }
        }
        assertEquals(List.of(), broken.subList(0, Math.min(10, broken.size())), broken.size() + " starts break the rule");
        exercised.forEach((policy, n) -> assertTrue(n > 0, policy + " never started a job the rule applies to: the check proves nothing"));
    }

    private static final Pattern SLICE = Pattern.compile("([^\\[+]+)\\[(\\d+)-(\\d+)(?::[^\\]]+)?\\]");

    private static List<Placed> placed(Run r) {
        Map<String, Integer> nodeIndex = new HashMap<>();
        List<GpuNode> nodes = r.scenario().cluster().nodes();
        for (int n = 0; n < nodes.size(); n++) nodeIndex.put(nodes.get(n).name(), n);
        Map<String, SimJob> jobs = new HashMap<>();
        r.scenario().jobs().forEach(j -> jobs.put(j.id(), j));
        List<Placed> out = new ArrayList<>();
        for (Segment s : r.result().segments()) {
            if (!s.started() || !jobs.containsKey(s.jobId())) continue;
            Map<Integer, Integer> byNode = new LinkedHashMap<>();
            Matcher m = SLICE.matcher(s.nodes());
            while (m.find()) byNode.merge(nodeIndex.get(m.group(1)), Integer.parseInt(m.group(3)) - Integer.parseInt(m.group(2)) + 1, Integer::sum);
            out.add(new Placed(r, jobs.get(s.jobId()), s, byNode));
        }
        return out;
    }

    private static List<Run> runAll() {
        List<Run> runs = new ArrayList<>();
        for (int seed = 0; seed < SEEDS; seed++) {
            Scenario s = scenario(seed);
            for (SchedulingPolicy policy : policies(s, seed)) {
                runs.add(new Run(s, policy.name(), new Simulator(s, policy).run(f -> { })));
                if (policy instanceof PooledHorizonPolicy pooled) pooled.close();
            }
        }
        return runs;
    }

    /** Every bench policy the scenario suits (legacy and quota need budgets), plus Horizon pooled, and Horizon with CP-SAT on one seed. */
    private static List<SchedulingPolicy> policies(Scenario s, int seed) {
        List<SchedulingPolicy> out = new ArrayList<>();
        for (String name : BenchPolicies.NAMES) {
            boolean needsBudgets = name.equals("legacy") || name.equals("quota");
            if (name.startsWith("horizon-") || (needsBudgets && s.budgets() == null)) continue;
            out.add(BenchPolicies.create(name));
        }
        out.add(new PooledHorizonPolicy(2));
        if (seed == 0) out.add(new HorizonPolicy("horizon-cpsat", new CpSatPlanner(0.05, 16)));
        return out;
    }

    /**
     * Four to six nodes of three GPU models, racks of two nodes as NVLink domains; jobs of whole-GPU pods and time-slicing
     * shares, some pinned to models, some on one node or one domain, some elastic; even seeds have two teams with budgets
     * and an inference service; one node is drained part way. Jobs no node or domain could ever hold are left out, as
     * the control plane refuses them.
     */
    private static Scenario scenario(int seed) {
        Random rng = new Random(1000 + seed);
        List<GpuNode> nodes = new ArrayList<>();
        int count = 4 + rng.nextInt(3);
        for (int n = 0; n < count; n++) {
            String model = MODELS[rng.nextInt(MODELS.length)];
            nodes.add(new GpuNode("n" + n, model, rng.nextBoolean() ? 8 : 4, model.startsWith("L40S") ? 46_068 : 81_559, "rack-" + n / 2));
        }
        Cluster cluster = new Cluster(nodes);
        List<SimJob> jobs = new ArrayList<>();
        for (int i = 0; jobs.size() < 36 && i < 200; i++) {
            SimJob j = job("j" + i, rng, cluster);
            if (Feasibility.problems(j.gpus(), j.minGpus(), j.slice(), j.rules(), cluster).isEmpty()) jobs.add(j);
        }
        boolean budgets = seed % 2 == 0;
        BudgetTree tree = budgets ? new BudgetTree(List.of(new BudgetTree.Budget("a", null, 0.5), new BudgetTree.Budget("b", null, 0.5))) : null;
        List<ServiceDemand> services = new ArrayList<>();
        if (budgets) {
            double[] history = new double[96], window = new double[WINDOW_STEPS];
            for (int k = 0; k < history.length; k++) history[k] = 1 + (k % 96 > 60 ? 2 : 0);
            for (int k = 0; k < window.length; k++) window[k] = 1 + (k > 30 ? 2 : 0);
            services.add(new ServiceDemand(new InferenceService("chat", "serving", 4, 2), history, window));
        }
        List<Scenario.NodeDrain> drains = List.of(new Scenario.NodeDrain(rng.nextInt(count), (4 + rng.nextInt(20)) * STEP));
        return new Scenario("random-" + seed, cluster, STEP, WINDOW_STEPS, 32, jobs, services, List.of(), Map.of(), tree, null, drains);
    }

    private static SimJob job(String id, Random rng, Cluster cluster) {
        JobClass cls = rng.nextInt(4) == 0 ? JobClass.BATCH_INFERENCE : JobClass.TRAINING;
        Contract contract = Contract.defaultFor(cls);
        String team = rng.nextBoolean() ? "a" : "b";
        double weight = 1 << rng.nextInt(4);
        long arrival = (long) (rng.nextDouble() * WINDOW_STEPS * STEP * 0.6);
        long duration = 900 + rng.nextInt(4 * 3600);
        Set<String> types = new HashSet<>();
        if (rng.nextBoolean()) types.add(cluster.nodes().get(rng.nextInt(cluster.nodes().size())).gpuModel());
        if (!types.isEmpty() && rng.nextInt(3) == 0) types.add(MODELS[rng.nextInt(MODELS.length)]);
        Topology topology = switch (rng.nextInt(4)) {
            case 0 -> Topology.SAME_NODE;
            case 1 -> Topology.SAME_NVLINK_DOMAIN;
            default -> Topology.ANY;
        };
        int replicas = 1 + rng.nextInt(3);
        if (rng.nextInt(4) == 0) {
            SliceRequest share = new SliceRequest(null, rng.nextBoolean() ? 250 : 500, 10_000, types);
            return new SimJob(id, team, cls, weight, replicas, replicas, arrival, duration, null, contract, share,
                    new PlacementRules(types, 0, true, topology));
        }
        int pod = 1 << rng.nextInt(4);
        int minReplicas = replicas > 1 && rng.nextInt(3) == 0 ? 1 : replicas;
        return new SimJob(id, team, cls, weight, replicas * pod, minReplicas * pod, arrival, duration, null, contract, null,
                new PlacementRules(types, pod, true, topology));
    }
}
