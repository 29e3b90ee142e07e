package dev.horizon.allocator.eta;

import dev.horizon.allocator.SchedulingPolicy;
import dev.horizon.allocator.model.Decision;
import dev.horizon.allocator.model.GpuNode;
import dev.horizon.allocator.model.PlacementRules;
import dev.horizon.allocator.model.SliceRequest;
import dev.horizon.allocator.moment.ActiveJob;
import dev.horizon.allocator.moment.ClusterMoment;
import dev.horizon.allocator.moment.ContextBuilder;
import dev.horizon.api.Contract;
import dev.horizon.api.mig.MigGeometry;
import dev.horizon.api.mig.MigProfile;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Supplier;

/**
 * What would make a waiting job start sooner: the moment re-planned with the job changed in one way its user could
 * change it (fewer GPUs within its minimum, another GPU model of the cluster, a shorter minimum runtime, a MIG profile
 * instead of a share or a share instead of a MIG profile where its memory fits, a slice instead of a whole GPU where
 * its measured memory fits), each by the same policy on the same moment, keeping the changes whose planned start is
 * strictly sooner than the plan's, soonest first. A whole-GPU job says nothing of its memory: only one whose run the
 * agents measured (a job preempted or evicted, waiting again) is offered a slice.
 */
public final class Alternatives {
    /** At most this many changes are offered: more is a menu, not advice. */
    public static final int MAX = 3;
    /** A slice offered for a measured job holds its measured peak and this much more: a run's peak varies with its data. */
    static final double MEMORY_HEADROOM = 1.1;

    /**
     * One change and the start it gets. field: the job JSON field it changes (gpus, perReplica.gpuTypes,
     * contract.minRuntimeSeconds, perReplica.migProfile, perReplica.gpuMilli).
     */
    public record Alternative(String change, String field, long plannedStartAt) {
    }

    /** A candidate change: the job as changed. */
    record Candidate(String change, String field, ActiveJob job) {
    }

    private Alternatives() {
    }

    /**
     * The changes that make job jobId of moment m start sooner than decided plans it (decided: the policy's decision on
     * m); empty when it starts now or is not waiting. policy: a fresh policy per re-plan (a policy may keep state).
     */
    public static List<Alternative> of(ClusterMoment m, Decision decided, Supplier<SchedulingPolicy> policy, String jobId) {
        ActiveJob job = m.jobs().stream().filter(j -> j.id().equals(jobId) && !j.isRunning()).findFirst().orElse(null);
        if (job == null || decided.starts().stream().anyMatch(s -> s.jobId().equals(jobId))) return List.of();
        Long planned = decided.plannedStarts().get(jobId);
        List<Alternative> out = new ArrayList<>();
        for (Candidate c : candidates(m, job)) {
            Long start = plannedStart(with(m, c.job()), policy.get(), jobId);
            if (start != null && (planned == null || start < planned)) out.add(new Alternative(c.change(), c.field(), start));
        }
        out.sort(Comparator.comparingLong(Alternative::plannedStartAt));
        return List.copyOf(out.subList(0, Math.min(MAX, out.size())));
    }

    /** When the policy plans the job on m: now if it starts at once, the plan's start, or null beyond the horizon. */
    static Long plannedStart(ClusterMoment m, SchedulingPolicy policy, String jobId) {
        Decision d = policy.decide(ContextBuilder.build(m));
        if (d.starts().stream().anyMatch(s -> s.jobId().equals(jobId))) return m.now();
        return d.plannedStarts().get(jobId);
    }

    static List<Candidate> candidates(ClusterMoment m, ActiveJob j) {
        List<Candidate> out = new ArrayList<>(narrower(j));
        out.addAll(otherModels(m, j));
        if (j.contract() != null && j.contract().minRuntimeSeconds() >= 120) {
            Contract c = j.contract();
            long shorter = c.minRuntimeSeconds() / 2 / 60 * 60;
            out.add(new Candidate("ask for contract.minRuntimeSeconds " + shorter + " instead of " + c.minRuntimeSeconds(), "contract.minRuntimeSeconds",
                    copy(j, j.gpus(), j.minGpus(), new Contract(shorter, c.resumable(), c.checkpointCostSeconds()), j.slice(), j.rules())));
        }
        if (j.slice() != null) out.addAll(otherSlice(m, j));
        out.addAll(measuredSlices(m, j));
        return out;
    }

    /**
     * A whole-GPU job of one GPU per replica whose run the agents measured: the smallest MIG profile of an accepted model
     * whose memory holds its peak with headroom, and a time-slicing share of that memory, with the part of a GPU's compute
     * that its memory is of the smallest accepted GPU that holds it, in tenths (a share's compute and memory in step, so
     * shares that fill a GPU's memory also fill its time). Replicas keep their count, one slice each.
     */
    private static List<Candidate> measuredSlices(ClusterMoment m, ActiveJob j) {
        long peak = j.history().peakGpuMemoryMiB();
        if (j.slice() != null || j.rules().gpusPerReplica() != 1 || peak <= 0) return List.of();
        long need = (long) Math.ceil(peak * MEMORY_HEADROOM);
        MigProfile smallest = null;
        long leastMemory = Long.MAX_VALUE;
        for (var n : m.nodes()) {
            GpuNode g = n.node();
            if (!j.rules().accepts(g.gpuModel()) || g.gpuMemoryMiB() < need) continue;
            leastMemory = Math.min(leastMemory, g.gpuMemoryMiB());
            if (!MigGeometry.supportsMig(g.gpuModel())) continue;
            for (MigProfile p : MigGeometry.of(g.gpuModel()).profiles()) {
                if (profileMemory(p, g) >= need && (smallest == null || p.gpuFraction() < smallest.gpuFraction())) smallest = p;
            }
        }
        if (leastMemory == Long.MAX_VALUE) return List.of();
        String instead = " instead of " + j.gpus() + " whole GPU" + (j.gpus() == 1 ? "" : "s") + " (its runs held at most " + peak + " MiB of a GPU)";
        PlacementRules sliced = new PlacementRules(j.rules().gpuTypes(), 0, j.rules().gang(), j.rules().topology());
        List<Candidate> out = new ArrayList<>();
        if (smallest != null) {
            SliceRequest mig = new SliceRequest(smallest.name(), 0, 0, j.rules().gpuTypes());
            out.add(new Candidate("ask for migProfile " + smallest.name() + instead, "perReplica.migProfile",
                    copy(j, j.gpus(), j.minGpus(), j.contract(), mig, sliced)));
        }
        int milli = (int) Math.min(1000, Math.ceil(10.0 * need / leastMemory) * 100);
        if (milli < 1000) {
            SliceRequest share = new SliceRequest(null, milli, need, j.rules().gpuTypes());
            out.add(new Candidate("ask for gpuMilli " + milli + " with memoryMiB " + need + instead, "perReplica.gpuMilli",
                    copy(j, j.gpus(), j.minGpus(), j.contract(), share, sliced)));
        }
        return out;
    }

    /** Its narrowest width, and halfway there, in whole replicas. */
    private static List<Candidate> narrower(ActiveJob j) {
        if (j.minGpus() >= j.gpus()) return List.of();
        int unit = j.slice() == null ? Math.max(1, j.rules().gpusPerReplica()) : 1;
        Set<Integer> widths = new TreeSet<>(Comparator.reverseOrder());
        int half = (j.gpus() + j.minGpus()) / 2 / unit * unit;
        if (half > j.minGpus() && half < j.gpus()) widths.add(half);
        widths.add(j.minGpus());
        String what = j.slice() == null ? "GPUs" : "replicas";
        return widths.stream().map(w -> new Candidate("ask for " + w + " " + what + " instead of " + j.gpus(), "gpus",
                copy(j, w, w, j.contract(), j.slice(), j.rules()))).toList();
    }

    /** Each GPU model of the cluster the job does not accept yet and that could hold it. */
    private static List<Candidate> otherModels(ClusterMoment m, ActiveJob j) {
        Set<String> accepted = j.slice() != null ? j.slice().gpuTypes() : j.rules().gpuTypes();
        if (accepted.isEmpty()) return List.of();
        Set<String> models = new TreeSet<>();
        m.nodes().forEach(n -> models.add(n.node().gpuModel()));
        List<Candidate> out = new ArrayList<>();
        for (String model : models) {
            if (accepted.contains(model) || !holds(m, j, model)) continue;
            Set<String> one = Set.of(model);
            SliceRequest slice = j.slice() == null ? null : new SliceRequest(j.slice().migProfile(), j.slice().milli(), j.slice().memoryMiB(), one);
            out.add(new Candidate("ask for gpuTypes [" + model + "] instead of " + new TreeSet<>(accepted), "perReplica.gpuTypes",
                    copy(j, j.gpus(), j.minGpus(), j.contract(), slice, j.rules().withGpuTypes(one))));
        }
        return out;
    }

    /** Whether the model's nodes could ever hold the job: a slice fits one of its GPUs, whole GPUs fit in count and per replica. */
    private static boolean holds(ClusterMoment m, ActiveJob j, String model) {
        List<GpuNode> nodes = m.nodes().stream().map(n -> n.node()).filter(n -> n.gpuModel().equals(model)).toList();
        if (j.slice() != null) {
            SliceRequest any = new SliceRequest(j.slice().migProfile(), j.slice().milli(), j.slice().memoryMiB(), Set.of());
            return nodes.stream().anyMatch(n -> any.fitsModel(model, n.gpuMemoryMiB()));
        }
        int perReplica = j.rules().gpusPerReplica();
        return nodes.stream().mapToInt(GpuNode::gpus).sum() >= j.minGpus() && nodes.stream().anyMatch(n -> n.gpus() >= perReplica);
    }

    /**
     * A share asks for the smallest MIG profile of its accepted models whose memory holds its memory limit; a MIG slice
     * asks for a share of the same compute and memory.
     */
    private static List<Candidate> otherSlice(ClusterMoment m, ActiveJob j) {
        SliceRequest s = j.slice();
        if (s.isMig()) {
            long memory = Long.MAX_VALUE;
            for (var n : m.nodes()) {
                GpuNode g = n.node();
                if (s.fitsModel(g.gpuModel(), g.gpuMemoryMiB())) memory = Math.min(memory, profileMemory(MigGeometry.of(g.gpuModel()).profile(s.migProfile()), g));
            }
            if (memory == Long.MAX_VALUE) return List.of();
            int milli = (int) Math.ceil(s.gpuFraction() * 1000);
            SliceRequest share = new SliceRequest(null, milli, memory, s.gpuTypes());
            return List.of(new Candidate("ask for gpuMilli " + milli + " with memoryMiB " + memory + " instead of migProfile " + s.migProfile(),
                    "perReplica.gpuMilli", copy(j, j.gpus(), j.minGpus(), j.contract(), share, j.rules())));
        }
        MigProfile best = null;
        for (var n : m.nodes()) {
            GpuNode g = n.node();
            if (!s.accepts(g.gpuModel()) || !MigGeometry.supportsMig(g.gpuModel())) continue;
            for (MigProfile p : MigGeometry.of(g.gpuModel()).profiles()) {
                boolean fits = profileMemory(p, g) >= s.memoryMiB() && p.gpuFraction() >= s.gpuFraction();
                if (fits && (best == null || p.gpuFraction() < best.gpuFraction())) best = p;
            }
        }
        if (best == null) return List.of();
        SliceRequest mig = new SliceRequest(best.name(), 0, 0, s.gpuTypes());
        return List.of(new Candidate("ask for migProfile " + best.name() + " instead of gpuMilli " + s.milli() + " with memoryMiB " + s.memoryMiB(),
                "perReplica.migProfile", copy(j, j.gpus(), j.minGpus(), j.contract(), mig, j.rules())));
    }

    /** A MIG profile's memory on a GPU of this node: its memory slices of eight. */
    private static long profileMemory(MigProfile p, GpuNode g) {
        return g.gpuMemoryMiB() * p.memorySlices() / MigGeometry.MEMORY_SLICES;
    }

    private static ActiveJob copy(ActiveJob j, int gpus, int minGpus, Contract contract, SliceRequest slice, PlacementRules rules) {
        return new ActiveJob(j.id(), j.team(), j.jobClass(), j.priority(), gpus, minGpus, j.arrivalSeconds(), j.userEstimateSeconds(), contract, slice,
                rules, j.history(), null);
    }

    /** The moment with the job replaced by its changed form, in the same place of the order. */
    private static ClusterMoment with(ClusterMoment m, ActiveJob changed) {
        List<ActiveJob> jobs = m.jobs().stream().map(j -> j.id().equals(changed.id()) ? changed : j).toList();
        return new ClusterMoment(m.now(), m.stepSeconds(), m.horizonSteps(), m.nodes(), jobs, m.teams(), m.services(), m.durations());
    }
}
