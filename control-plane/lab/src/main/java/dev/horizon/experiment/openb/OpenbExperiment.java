package dev.horizon.experiment.openb;

import dev.horizon.allocator.fragmentation.WorkloadTask;
import dev.horizon.allocator.model.GpuTypes;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * FGD's protocol on an openb pod list: the tasks, shuffled with the seed as the reference artifact runs them, then
 * sampled from the list until arrived GPU demand would pass 130% of the cluster's GPUs (or dropped at random while
 * it is above, for the lists that ask for more); no departures. It records the share of GPU capacity allocated, fractions
 * counted, each time arrived demand crosses another whole percent.
 */
public final class OpenbExperiment {
    public static final int MAX_ARRIVAL_PCT = 130;

    private final List<OpenbNode> nodes;
    private final List<WorkloadTask> pods;
    private final long capacityMilli;

    public OpenbExperiment(List<OpenbNode> nodes, List<WorkloadTask> pods) {
        if (pods.isEmpty()) throw new IllegalArgumentException("the pod list has no tasks");
        this.nodes = nodes.stream().sorted(Comparator.comparing(OpenbNode::name)).toList();
        this.pods = pods.stream().sorted(Comparator.comparing(WorkloadTask::name)).toList();
        this.capacityMilli = nodes.stream().mapToLong(n -> (long) n.gpus() * WorkloadTask.MILLI).sum();
        Set<String> models = nodes.stream().filter(n -> n.gpus() > 0).map(OpenbNode::model).collect(Collectors.toSet());
        for (WorkloadTask p : pods) {
            try {
                GpuTypes.requirePresent(List.copyOf(p.gpuTypes()), models);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("task " + p.name() + ": " + e.getMessage());
            }
        }
    }

    public long capacityMilli() {
        return capacityMilli;
    }

    /** The arrival order for one seed. */
    List<WorkloadTask> arrivals(long seed) {
        Random rng = new Random(seed);
        List<WorkloadTask> order = new ArrayList<>(pods);
        Collections.shuffle(order, rng);
        double target = MAX_ARRIVAL_PCT / 100.0 * capacityMilli;
        long demand = order.stream().mapToLong(WorkloadTask::totalGpuMilli).sum();
        while (demand > target) demand -= order.remove(rng.nextInt(order.size())).totalGpuMilli();
        while (true) {
            WorkloadTask sample = pods.get(rng.nextInt(pods.size()));
            if (demand + sample.totalGpuMilli() > target) break;
            order.add(sample);
            demand += sample.totalGpuMilli();
        }
        return order;
    }

    /** Allocation ratio (% of GPU capacity) at each arrived-demand percent 0..130; index = percent. */
    public double[] run(PolicyFactory policyFactory, long seed) {
        PlacementPolicy policy = policyFactory.create(pods, nodes);
        Random rng = new Random(seed);
        List<Integer> ranks = new ArrayList<>(IntStream.range(0, nodes.size()).boxed().toList());
        Collections.shuffle(ranks, rng);
        List<NodeRoom> state = IntStream.range(0, nodes.size()).mapToObj(i -> new NodeRoom(nodes.get(i), ranks.get(i))).toList();
        double[] curve = new double[MAX_ARRIVAL_PCT + 1];
        long arrived = 0;
        long allocated = 0;
        int next = 1;
        for (WorkloadTask pod : arrivals(seed)) {
            arrived += pod.totalGpuMilli();
            TaskPlacement p = policy.place(pod, state, rng);
            if (p != null) {
                state.get(p.node()).place(pod, p.gpus());
                allocated += pod.totalGpuMilli();
            }
            while (next <= MAX_ARRIVAL_PCT && arrived * 100 >= (long) next * capacityMilli) curve[next++] = 100.0 * allocated / capacityMilli;
        }
        while (next <= MAX_ARRIVAL_PCT) curve[next++] = 100.0 * allocated / capacityMilli;
        return curve;
    }
}
