package dev.horizon.allocator;

/**
 * What one step of unmet inference demand costs, in the same priority-weighted GPU-hours as the
 * output: penalty x the service's weight per GPU-hour x the step's hours, per GPU.
 */
public record UnmetDemandCost(double penalty, double weightPerGpuHour, long stepSeconds) {
    public double ofGpus(int gpus) {
        return penalty * weightPerGpuHour * gpus * stepSeconds / 3600.0;
    }
}
