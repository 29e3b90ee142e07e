package dev.horizon.api;

import java.util.List;

/** Where a job came from (a PyTorchJob, a RayJob, a scenario file), so decisions can be traced back. */
public record JobSource(String kind, String namespace, String name) {
    void validate(List<String> errors) {
        Limits.text("source.kind", kind, Limits.SHORT_NAME, errors);
        Limits.text("source.namespace", namespace, Limits.SHORT_NAME, errors);
        Limits.text("source.name", name, Limits.NAME, errors);
    }
}
