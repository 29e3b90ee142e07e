package dev.horizon.simulation;

/** One (service, step): the demand that came and the GPUs the service held. */
public record RtStep(String service, long stepStartSeconds, double demandGpus, int allocatedGpus, double weightPerGpuHour) {
    public double servedGpus() {
        return Math.min(allocatedGpus, demandGpus);
    }

    public boolean met() {
        return allocatedGpus >= Math.ceil(demandGpus - 1e-9);
    }
}
