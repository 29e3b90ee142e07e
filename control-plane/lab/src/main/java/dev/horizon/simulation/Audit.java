package dev.horizon.simulation;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The simulator's audit of one run: every breach of the cluster's hard rules a policy committed, by kind, and the
 * preemptions the rules exempt (fill work is never protected), counted apart. A run with any violation fails.
 */
public final class Audit {
    /** The rules; {@link #key} is the name results.json lists it under. */
    public enum Kind {
        GPU_GIVEN_TWICE("gpuGivenTwice"),
        START_BEFORE_ARRIVAL("startBeforeArrival"),
        STARTED_NOT_WAITING("startedNotWaiting"),
        WRONG_WIDTH("wrongWidth"),
        PREEMPTED_NOT_RUNNING("preemptedNotRunning"),
        PROMOTED_NOT_FILL("promotedNotFill"),
        PREEMPTED_INSIDE_MIN_RUNTIME("preemptedInsideMinRuntime"),
        FILL_WITHOUT_LENDING("fillWithoutLending"),
        NON_RESUMABLE_FILL("nonResumableFill"),
        PROTECTED_IN_RESERVATION("protectedInReservation"),
        ON_DRAINED_NODE("onDrainedNode"),
        GANG_STARTED_PARTLY("gangStartedPartly"),
        WRONG_GPU_TYPE("wrongGpuType"),
        BROKEN_TOPOLOGY("brokenTopology");

        public final String key;

        Kind(String key) {
            this.key = key;
        }
    }

    /** Fill (never protected) taken back inside its minimum runtime: by inference, or by batch work the policy started. */
    public static final String FILL_RECLAIMED_BY_INFERENCE = "fillReclaimedInsideMinRuntime";
    public static final String FILL_PREEMPTED_BY_POLICY = "fillPreemptedInsideMinRuntime";
    private static final int EXAMPLES = 10;

    private final Map<String, Integer> byKind = new TreeMap<>();
    private final Map<String, Integer> exempt = new TreeMap<>();
    private final List<String> examples = new ArrayList<>();
    private int violations;

    void violation(Kind kind, long t, String what) {
        violations++;
        byKind.merge(kind.key, 1, Integer::sum);
        if (examples.size() < EXAMPLES) examples.add("t=" + t + " s " + kind.key + ": " + what);
    }

    void exempt(String key) {
        exempt.merge(key, 1, Integer::sum);
    }

    public Report report() {
        return new Report(violations, Map.copyOf(byKind), Map.copyOf(exempt), List.copyOf(examples));
    }

    /** What results.json shows under {@code audit}: the count, by kind, the exempt preemptions, and the first few cases. */
    public record Report(int violations, Map<String, Integer> byKind, Map<String, Integer> exempt, List<String> examples) {
        public boolean clean() {
            return violations == 0;
        }
    }
}
