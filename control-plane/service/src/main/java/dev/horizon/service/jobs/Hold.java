package dev.horizon.service.jobs;

import java.time.Instant;

/**
 * Who held a waiting job, and when (epoch seconds), as Slurm's scontrol hold or a deactivated Kueue Workload: it stays
 * PENDING, the planner leaves it out of every moment (so it never starts, and asks nothing of fair share or the bands)
 * until it is released. The one place its sentences are made.
 */
public record Hold(String by, long at) {
    /** The rule a held job's explanation gives. */
    public static final String RULE = "held";

    /** Why it waits, as its reason: who holds it since when, and the command that lets it go. */
    public String reason(String jobName) {
        return "held by " + by + " since " + Instant.ofEpochSecond(at) + "; ./horizon release " + jobName + " lets it start";
    }

    /** Why it has no start band: no plan holds it. */
    public static String bandNote(long heldAt) {
        return "held since " + Instant.ofEpochSecond(heldAt) + ": no plan places it, so it has no start band until it is released";
    }
}
