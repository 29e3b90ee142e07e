package dev.horizon.simulation;

import dev.horizon.allocator.model.Placement;
import java.util.List;

/**
 * What happens in the simulated world that a scheduler keeping its own state must be told, beside being asked to
 * decide: a scheduler under test that implements this (the control plane replayed through {@code --engine service})
 * hears of each event at the moment it happens, before the decision at that moment. Policies that see only the
 * {@code PlanningContext} do not implement it; the simulator calls nothing else of it.
 */
public interface WorldEvents {
    /** A job is submitted at t. */
    void arrived(SimJob job, long t);

    /** A running job finished its work at t. */
    void finished(String jobId, long t);

    /** The world took a running job off its GPUs at t (inference took them back); the job waits again. */
    void preemptedByWorld(String jobId, long t);

    /** Node n stopped taking new work at t (a scenario drain). */
    void drained(int node, long t);

    /** After the minute starting at t was sized: the GPUs each inference service holds, one placement per replica. */
    void inferenceHeld(String service, List<Placement> held, long t);
}
