package dev.horizon.ray.demand;

import dev.horizon.api.JobClass;
import dev.horizon.api.JobSource;

/** Who pending Ray demand belongs to: the name its scheduler job gets, the team that pays, its class, and where it came from. */
public record DemandOwner(String name, String team, JobClass jobClass, JobSource source) {
}
