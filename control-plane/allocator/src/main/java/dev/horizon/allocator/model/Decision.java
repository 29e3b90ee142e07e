package dev.horizon.allocator.model;

import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BiConsumer;
import java.util.function.Supplier;

/** What a policy commits now: preemptions first, then starts; and why each pending job waits. */
public final class Decision {
    /** Start a job on these GPUs; fill means on GPUs lent from the inference reservation. */
    public record Start(String jobId, Placement placement, boolean fill) {
    }

    /** Re-partition GPU gpu of node (index) to layout, so that job can get a MIG instance it needs. */
    public record Reconfigure(int node, int gpu, dev.horizon.api.mig.MigLayout layout, String forJob) {
    }

    private final List<Reconfigure> reconfigurations = new ArrayList<>();
    private final List<String> preemptions = new ArrayList<>();
    private final Map<String, String> preemptionReasons = new LinkedHashMap<>();
    private final List<String> promotions = new ArrayList<>();
    private final List<Start> starts = new ArrayList<>();
    /**
     * Each waiting job's reason, worded when it is read: a decision gives every waiting job one, and a start-time band's
     * futures take hundreds of decisions over queues of tens of thousands and read almost none of them (at 10,240 GPUs the
     * wording was a quarter of what a decision cost, docs/control-plane.md).
     */
    private Map<String, Supplier<String>> waitReasons = new LinkedHashMap<>();
    private final Map<String, String> wordedWaitReasons = new WordedReasons();
    private Map<String, Long> plannedStarts = new LinkedHashMap<>();
    private Map<String, WaitRule> waitRules = new LinkedHashMap<>();
    private final List<SolverStats> solverStats = new ArrayList<>();
    private double planObjective = Double.NaN;
    private List<Integer> nodesHeldForWideJob = List.of();

    /** The rule a job left waiting falls under, as the service files it; a job the plan gave no rule has no room in the horizon. */
    public enum WaitRule {
        /** The plan starts it in a later step. */
        PLANNED_START("planned-start"),
        /** The plan starts it now but no contiguous block is free yet. */
        FRAGMENTED("fragmented"),
        /** Its team already runs all it is owed: it waits to run as fill. */
        OVER_SHARE("over-share"),
        NO_ROOM_IN_HORIZON("no-room-in-horizon");

        private final String label;

        WaitRule(String label) {
            this.label = label;
        }

        public String label() {
            return label;
        }
    }

    /** One solver run behind the plan: the heuristic's objective it was warm-started from, its own, and its status. */
    public record SolverStats(double hintObjective, double objective, String status) {
    }

    public void preempt(String jobId) {
        preemptions.add(jobId);
    }

    /** Preempts a job and says why, for the victim's own explanation. */
    public void preempt(String jobId, String reason) {
        preemptions.add(jobId);
        preemptionReasons.put(jobId, reason);
    }

    /** A running fill job now fits in protected capacity: it is protected from here on. */
    public void promote(String jobId) {
        promotions.add(jobId);
    }

    public void start(String jobId, Placement placement, boolean fill) {
        starts.add(new Start(jobId, placement, fill));
    }

    public void reconfigure(Reconfigure r) {
        reconfigurations.add(r);
    }

    /** MIG layouts the plan wants, each on a GPU that held no work when planned. */
    public List<Reconfigure> reconfigurations() {
        return reconfigurations;
    }

    public void waiting(String jobId, String reason) {
        // a job given no reason keeps none (null), as before: the futures pass over it and keep the reason it had
        waitReasons.put(jobId, reason == null ? null : () -> reason);
    }

    /**
     * Why the job waits, worded only when read. reason must word the same sentence whenever it is asked: it may read only
     * what no later step of the decision changes.
     */
    public void waiting(String jobId, Supplier<String> reason) {
        waitReasons.put(jobId, reason);
    }

    /** The job's wait reason, not yet worded; null when it has none (or was given none). */
    public Supplier<String> waitReasonOf(String jobId) {
        return waitReasons.get(jobId);
    }

    /** Each job's wait reason, not yet worded, in the order they were given: for whoever keeps only some of them. */
    public void forEachWaitReason(BiConsumer<String, Supplier<String>> action) {
        waitReasons.forEach(action);
    }

    /**
     * About this many jobs will be given a reason, a planned start and a wait rule: the maps still empty are sized for
     * them at once (a decision over tens of thousands of waiting jobs grew each from the default size every time). Call it
     * before any of them is handed out; order and contents are as without it.
     */
    public void expectWaiting(int jobs) {
        int capacity = (int) Math.min(1 << 30, jobs * 4L / 3 + 1);
        if (waitReasons.isEmpty()) waitReasons = new LinkedHashMap<>(capacity);
        if (plannedStarts.isEmpty()) plannedStarts = new LinkedHashMap<>(capacity);
        if (waitRules.isEmpty()) waitRules = new LinkedHashMap<>(capacity);
    }

    /**
     * The plan expects the waiting job to start at atSeconds: the start of the step it placed it in (for a job the start-now
     * caution holds, the first step its cautious run fits), or now. Prices weigh the plan's own step (Session.planStartOf).
     */
    public void planned(String jobId, long atSeconds) {
        plannedStarts.put(jobId, atSeconds);
    }

    public void waitRule(String jobId, WaitRule rule) {
        waitRules.put(jobId, rule);
    }

    public void solved(SolverStats stats) {
        solverStats.add(stats);
    }

    public void planObjective(double value) {
        planObjective = value;
    }

    public List<String> preemptions() {
        return preemptions;
    }

    /** Why a preempted job was taken off, where the rule that took it said (the rest: only that its contract allowed it). */
    public Map<String, String> preemptionReasons() {
        return preemptionReasons;
    }

    public List<String> promotions() {
        return promotions;
    }

    public List<Start> starts() {
        return starts;
    }

    /**
     * For "why is my job pending?": one sentence per job that was not started, worded as it is read; removing a job's
     * removes it from the decision.
     */
    public Map<String, String> waitReasons() {
        return wordedWaitReasons;
    }

    /**
     * When the plan expects each job it left waiting to start (epoch seconds); a job absent has no planned start within
     * the horizon, or its policy plans no further than now.
     */
    public Map<String, Long> plannedStarts() {
        return plannedStarts;
    }

    /** The rule each job left waiting falls under (see {@link WaitRule}). */
    public WaitRule waitRule(String jobId) {
        return waitRules.getOrDefault(jobId, WaitRule.NO_ROOM_IN_HORIZON);
    }

    public Map<String, WaitRule> waitRules() {
        return waitRules;
    }

    /** The solver runs behind the plan, one per planned group (empty for the heuristic, which keeps none). */
    public List<SolverStats> solverStats() {
        return solverStats;
    }

    /** The planner's objective for the whole horizon plan (NaN for policies without one). */
    public double planObjective() {
        return planObjective;
    }

    /** A priority as the reasons say it, as users wrote it: 8, not 8.0. */
    public static String priority(double v) {
        return v == Math.rint(v) ? String.valueOf((long) v) : String.valueOf(v);
    }

    private static String worded(Supplier<String> reason) {
        return reason == null ? null : reason.get();
    }

    /** The wait reasons as sentences: a view that words each one when it is read. */
    private final class WordedReasons extends AbstractMap<String, String> {
        @Override
        public String get(Object jobId) {
            return worded(waitReasons.get(jobId));
        }

        @Override
        public boolean containsKey(Object jobId) {
            return waitReasons.containsKey(jobId);
        }

        @Override
        public String remove(Object jobId) {
            return worded(waitReasons.remove(jobId));
        }

        @Override
        public int size() {
            return waitReasons.size();
        }

        @Override
        public Set<Entry<String, String>> entrySet() {
            return new AbstractSet<>() {
                @Override
                public Iterator<Entry<String, String>> iterator() {
                    Iterator<Entry<String, Supplier<String>>> given = waitReasons.entrySet().iterator();
                    return new Iterator<>() {
                        @Override
                        public boolean hasNext() {
                            return given.hasNext();
                        }

                        @Override
                        public Entry<String, String> next() {
                            Entry<String, Supplier<String>> e = given.next();
                            return new SimpleImmutableEntry<>(e.getKey(), worded(e.getValue()));
                        }

                        @Override
                        public void remove() {
                            given.remove();
                        }
                    };
                }

                @Override
                public int size() {
                    return waitReasons.size();
                }
            };
        }
    }

    /**
     * The nodes (by index) this decision holds for a waiting wide job: new inference replicas go elsewhere first, and a
     * shrinking service lets its replicas there go first, or the service's first replicas stay on them for good (wide-gangs
     * seed 87: three to seven on node-0 kept every H100-only 64-GPU job waiting two days).
     */
    public void holdForWideJob(List<Integer> nodes) {
        nodesHeldForWideJob = List.copyOf(nodes);
    }

    public List<Integer> nodesHeldForWideJob() {
        return nodesHeldForWideJob;
    }

    /** {@link #nodesHeldForWideJob()} as a mask over a cluster of this many nodes; null when none is held. */
    public boolean[] nodesHeldForWideJob(int nodes) {
        if (nodesHeldForWideJob.isEmpty()) return null;
        boolean[] out = new boolean[nodes];
        for (int n : nodesHeldForWideJob) out[n] = true;
        return out;
    }
}
