package dev.horizon.api;

/** Where a job came from (a PyTorchJob, a RayJob, a scenario file), so decisions can be traced back. */
public record JobSource(String kind, String namespace, String name) {
}
