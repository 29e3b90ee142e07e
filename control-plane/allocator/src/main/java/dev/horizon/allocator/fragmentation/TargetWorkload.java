package dev.horizon.allocator.fragmentation;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The workload a placement is judged against (FGD's "typical pods"): the task shapes of the pod list with their
 * frequencies. A node's fragmentation is the free GPU capacity these tasks, weighted by frequency, could not use there.
 */
public final class TargetWorkload {
    static final double COVERAGE = 0.95;

    /** One task shape: CPU, GPUs and milli per GPU, and the models it accepts; freq sums to 1 over the workload. */
    record Shape(int cpuMilli, long memoryMiB, int numGpu, int gpuMilli, Set<String> gpuTypes, double freq) {
    }

    private final List<Shape> shapes;

    TargetWorkload(List<Shape> shapes) {
        this.shapes = List.copyOf(shapes);
    }

    /** FGD's definition: shapes by CPU and GPUs (host memory ignored), the most frequent ones covering 95% of tasks. */
    public static TargetWorkload fgd(List<WorkloadTask> pods) {
        return of(pods, COVERAGE, false);
    }

    /**
     * Every shape, host memory included: the rare wide tasks that FGD's 95% cut drops are the ones a stranded GPU
     * hurts most, and a node whose memory is spent strands its GPUs as surely as one whose CPU is.
     */
    public static TargetWorkload complete(List<WorkloadTask> pods) {
        return of(pods, 1.0, true);
    }

    private static TargetWorkload of(List<WorkloadTask> pods, double coverage, boolean memory) {
        Map<Shape, Double> counts = new LinkedHashMap<>();
        for (WorkloadTask p : pods) counts.merge(new Shape(p.cpuMilli(), memory ? p.memoryMiB() : 0, p.numGpu(), p.gpuMilli(), p.gpuTypes(), 0), 1.0, Double::sum);
        double all = pods.size();
        List<Map.Entry<Shape, Double>> sorted = new ArrayList<>(counts.entrySet());
        // Most frequent first; equal counts larger shape first, so the cut at 95% is deterministic.
        sorted.sort(Comparator.<Map.Entry<Shape, Double>>comparingDouble(Map.Entry::getValue).reversed()
                .thenComparing(e -> e.getKey().cpuMilli(), Comparator.reverseOrder())
                .thenComparing(e -> e.getKey().gpuMilli(), Comparator.reverseOrder())
                .thenComparing(e -> e.getKey().numGpu(), Comparator.reverseOrder())
                .thenComparing(e -> String.join("|", e.getKey().gpuTypes().stream().sorted().toList()), Comparator.reverseOrder()));
        double covered = 0;
        List<Map.Entry<Shape, Double>> kept = new ArrayList<>();
        for (Map.Entry<Shape, Double> e : sorted) {
            if (covered >= coverage * all - 1e-9) break;
            kept.add(e);
            covered += e.getValue();
        }
        List<Shape> shapes = new ArrayList<>();
        for (Map.Entry<Shape, Double> e : kept) {
            Shape s = e.getKey();
            shapes.add(new Shape(s.cpuMilli(), s.memoryMiB(), s.numGpu(), s.gpuMilli(), s.gpuTypes(), e.getValue() / covered));
        }
        return new TargetWorkload(shapes);
    }

    List<Shape> shapes() {
        return shapes;
    }

    /**
     * Expected milli-GPU on a node in this state that the target workload cannot use: for each shape that fits (model,
     * CPU, memory, enough GPUs with room), the GPUs too full for it; for each shape that does not fit (or needs no
     * GPU), all free GPU capacity.
     */
    public double fragment(String model, int cpuLeft, long memLeft, int[] gpuLeft) {
        int total = 0;
        for (int g : gpuLeft) total += g;
        if (total == 0) return 0;
        double usable = 0;
        for (Shape s : shapes) {
            if (s.gpuMilli == 0 || cpuLeft < s.cpuMilli || memLeft < s.memoryMiB || (!s.gpuTypes.isEmpty() && !s.gpuTypes.contains(model))) continue;
            int enough = 0;
            int enoughMilli = 0;
            for (int g : gpuLeft) {
                if (g >= s.gpuMilli) {
                    enough++;
                    enoughMilli += g;
                }
            }
            if (enough >= s.numGpu) usable += s.freq * enoughMilli;
        }
        return total - usable;
    }

    /** FGD's score for a placement: the fragmentation decrease (milli-GPU) on Kubernetes' 0-100 integer scale. */
    public static double scale(double decreaseMilli) {
        return Math.floor(100 / (1 + Math.exp(-decreaseMilli / WorkloadTask.MILLI)));
    }
}
