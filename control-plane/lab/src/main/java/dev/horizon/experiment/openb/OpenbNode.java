package dev.horizon.experiment.openb;

/** One machine of the Alibaba openb node list: CPU in milli-cores, host memory in MiB, and its GPUs (all of one model). */
public record OpenbNode(String name, int cpuMilli, long memoryMiB, int gpus, String model) {
}
