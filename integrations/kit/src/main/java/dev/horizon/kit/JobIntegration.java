package dev.horizon.kit;

import dev.horizon.api.integration.PlannedPlacement;
import dev.horizon.kit.manifest.Translation;

/**
 * One workload an adapter hands to Horizon, in the spirit of Kueue's GenericJob: the adapter wraps
 * its own object (a PyTorchJob, a TrainJob, a RayJob) and a shared loop holds it suspended, submits
 * the scheduler job it asks for, and releases it onto the plan. Anything only some workloads can do
 * lives in the optional interfaces beside this one.
 */
public interface JobIntegration {

    /** The workload's kind as its owner names it ("PyTorchJob"). */
    String kind();

    /**
     * The scheduler job this workload asks for, with the warnings the controller records on the workload. Throws
     * {@link IllegalArgumentException} with a message naming the field when the workload cannot be planned.
     */
    Translation translate();

    boolean isSuspended();

    /** Holds the workload: no pod runs until {@link #runOn} releases it. */
    void suspend();

    /** Pins every GPU replica to the planned nodes and MIG profile, then lets the workload run. */
    void runOn(PlannedPlacement placement);
}
