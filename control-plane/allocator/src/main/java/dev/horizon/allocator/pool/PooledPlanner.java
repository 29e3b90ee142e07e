package dev.horizon.allocator.pool;

import dev.horizon.allocator.PlanningContext;
import dev.horizon.allocator.SchedulingPolicy;
import dev.horizon.allocator.model.Cluster;
import dev.horizon.allocator.model.Decision;
import dev.horizon.allocator.model.GpuNode;
import dev.horizon.allocator.model.PendingJob;
import dev.horizon.allocator.model.Placement;
import dev.horizon.allocator.model.RunningJob;
import dev.horizon.allocator.placement.Occupancy;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Supplier;

/**
 * Plans each group of dependent node pools ({@link PoolPartition}) on its own, in parallel, with the
 * same policy the joint plan uses, and merges the decisions. Each group sees only its own nodes
 * (renumbered from 0), the running work on them, its pending jobs and its inference services, so
 * one decision costs about what the largest group costs instead of what the whole cluster costs.
 *
 * <p>One call at a time. The policy instances must not share state across groups, so a new
 * one is taken from {@code policies} for each group, on the worker thread (CP-SAT keeps per-solve statistics).
 */
public final class PooledPlanner implements AutoCloseable {
    /** How long one group's decision took, and how big it was. */
    public record GroupTiming(List<String> models, int gpus, int pendingJobs, double millis) {
    }

    /** The merged decision, the partition it came from, and what each group and the whole call took. */
    public record Result(Decision decision, PoolPartition partition, List<GroupTiming> groups, double totalMillis) {
        /** The groups planned apart, each named by its GPU models joined with '+' (empty: one joint plan). */
        public List<String> groupNames() {
            return groups.size() < 2 ? List.of() : groups.stream().map(g -> String.join("+", g.models())).toList();
        }
    }

    private final Supplier<SchedulingPolicy> policies;
    private final ExecutorService workers;

    /** threads: how many groups are planned at once (1 plans them one after another). */
    public PooledPlanner(Supplier<SchedulingPolicy> policies, int threads) {
        if (threads < 1) throw new IllegalArgumentException("threads must be at least 1 (got " + threads + ")");
        this.policies = policies;
        this.workers = Executors.newFixedThreadPool(threads, r -> {
            Thread t = new Thread(r, "horizon-pool-planner");
            t.setDaemon(true);
            return t;
        });
    }

    /** {@link #decide(PlanningContext, PoolConstraints)} with the models the jobs' placement rules accept. */
    public Result decide(PlanningContext ctx) {
        return decide(ctx, PoolConstraints.of(ctx));
    }

    /**
     * Like {@link SchedulingPolicy#decide}: the starts, preemptions and node holds of every group,
     * applied to {@code ctx.occupancy()} as the joint decision would apply them.
     */
    public Result decide(PlanningContext ctx, PoolConstraints constraints) {
        long t0 = System.nanoTime();
        PoolPartition partition = PoolPartition.of(ctx, constraints);
        if (partition.groups().size() == 1 && partition.unplaceable().isEmpty()) {
            // every pool depends on every other: this is the joint plan, on the moment as given
            PoolPartition.Group all = partition.groups().get(0);
            long start = System.nanoTime();
            Decision d = policies.get().decide(ctx);
            double ms = (System.nanoTime() - start) / 1e6;
            return new Result(d, partition, List.of(new GroupTiming(all.models(), all.gpus(ctx), all.pending().size(), ms)),
                    (System.nanoTime() - t0) / 1e6);
        }
        List<Future<GroupRun>> futures = new ArrayList<>();
        for (PoolPartition.Group group : partition.groups()) {
            // each worker builds its own group's view too: that only reads the moment, which nothing changes until all are done
            futures.add(workers.submit(() -> {
                PlanningContext sub = restrict(ctx, group);
                long start = System.nanoTime();
                Decision d = policies.get().decide(sub);
                return new GroupRun(sub, d, (System.nanoTime() - start) / 1e6);
            }));
        }
        List<PlanningContext> subs = new ArrayList<>();
        List<GroupTiming> timings = new ArrayList<>();
        Decision merged = new Decision();
        double objective = 0;
        for (int g = 0; g < futures.size(); g++) {
            PoolPartition.Group group = partition.groups().get(g);
            GroupRun run = join(futures.get(g));
            Decision d = run.decision();
            subs.add(run.sub());
            d.preemptions().forEach(merged::preempt);
            d.promotions().forEach(merged::promote);
            for (Decision.Start s : d.starts()) merged.start(s.jobId(), toCluster(s.placement(), group.nodes()), s.fill());
            d.forEachWaitReason(merged::waiting);
            d.plannedStarts().forEach(merged::planned);
            d.waitRules().forEach(merged::waitRule);
            d.solverStats().forEach(merged::solved);
            if (!Double.isNaN(d.planObjective())) objective += d.planObjective();
            timings.add(new GroupTiming(group.models(), group.gpus(ctx), group.pending().size(), run.millis()));
        }
        partition.unplaceable().forEach((id, why) -> merged.waiting(id, "no node pool can take it: " + why));
        merged.planObjective(objective);
        applyTo(ctx, merged, partition, subs);
        return new Result(merged, partition, List.copyOf(timings), (System.nanoTime() - t0) / 1e6);
    }

    /** The group's part of the moment: its nodes renumbered 0.., their busy GPUs and drains, and the work it plans. */
    static PlanningContext restrict(PlanningContext ctx, PoolPartition.Group group) {
        int[] nodes = group.nodes();
        Map<Integer, Integer> local = new LinkedHashMap<>();
        List<GpuNode> subNodes = new ArrayList<>();
        for (int i = 0; i < nodes.length; i++) {
            local.put(nodes[i], i);
            subNodes.add(ctx.cluster().nodes().get(nodes[i]));
        }
        Cluster cluster = new Cluster(subNodes);
        Occupancy occupancy = new Occupancy(cluster);
        Occupancy whole = ctx.occupancy();
        for (int i = 0; i < nodes.length; i++) {
            if (whole.isDrained(nodes[i])) occupancy.drain(i);
            // busy GPUs carry over one by one: some are held without a running job (inference replicas)
            for (int gpu = 0; gpu < subNodes.get(i).gpus(); gpu++) {
                if (!whole.isFree(single(nodes[i], gpu))) occupancy.occupy(single(i, gpu));
            }
        }
        List<RunningJob> running = new ArrayList<>();
        for (RunningJob r : ctx.running()) {
            if (!group.running().contains(r.id())) continue;
            List<Placement.Slice> slices = new ArrayList<>();
            for (Placement.Slice s : r.placement().slices()) slices.add(new Placement.Slice(local.get(s.node()), s.firstGpu(), s.count(), s.share()));
            running.add(r.at(new Placement(slices)));
        }
        List<PendingJob> pending = ctx.pending().stream().filter(j -> group.pending().contains(j.id())).toList();
        Map<String, PlanningContext.ServiceView> services = new LinkedHashMap<>();
        ctx.services().forEach((name, view) -> {
            if (group.services().contains(name)) services.put(name, view);
        });
        return new PlanningContext(ctx.now(), ctx.stepSeconds(), ctx.horizonSteps(), cluster, occupancy, running, pending, services,
                ctx.fairShare());
    }

    /** What the groups' policies did to their own occupancies, done to the whole cluster's. */
    private static void applyTo(PlanningContext ctx, Decision decision, PoolPartition partition, List<PlanningContext> subs) {
        Map<String, RunningJob> running = new LinkedHashMap<>();
        ctx.running().forEach(r -> running.put(r.id(), r));
        for (String id : decision.preemptions()) ctx.occupancy().release(running.get(id).placement());
        for (Decision.Start s : decision.starts()) ctx.occupancy().occupy(s.placement());
        // a policy holds nodes for a wide job by draining them for this decision
        for (int g = 0; g < subs.size(); g++) {
            int[] nodes = partition.groups().get(g).nodes();
            for (int i = 0; i < nodes.length; i++) if (subs.get(g).occupancy().isDrained(i)) ctx.occupancy().drain(nodes[i]);
        }
    }

    private static Placement toCluster(Placement local, int[] nodes) {
        List<Placement.Slice> slices = new ArrayList<>();
        for (Placement.Slice s : local.slices()) slices.add(new Placement.Slice(nodes[s.node()], s.firstGpu(), s.count(), s.share()));
        return new Placement(slices);
    }

    private static Placement single(int node, int gpu) {
        return new Placement(List.of(new Placement.Slice(node, gpu, 1)));
    }

    /** One group's view of the moment, what its policy decided there, and how long deciding took. */
    private record GroupRun(PlanningContext sub, Decision decision, double millis) {
    }

    private static GroupRun join(Future<GroupRun> future) {
        try {
            return future.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while planning a node pool", e);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException r) throw r;
            throw new IllegalStateException("planning a node pool failed", e.getCause());
        }
    }

    @Override
    public void close() {
        workers.shutdownNow();
    }
}
