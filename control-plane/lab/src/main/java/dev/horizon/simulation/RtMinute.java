package dev.horizon.simulation;

/**
 * One (service, minute): the demand that came, the GPUs the service held, how many of them were serving from the
 * minute's start (a GPU taken back from batch work serves only after the reclaim grace period), and the GPU-seconds of
 * demand it served. The minute is met when the GPUs serving from its start covered its demand.
 */
public record RtMinute(String service, long startSeconds, double demandGpus, int heldGpus, int servingGpus, double servedGpuSeconds,
                       double weightPerGpuHour) {
    public boolean met() {
        return servingGpus >= demandGpus - 1e-9;
    }
}
