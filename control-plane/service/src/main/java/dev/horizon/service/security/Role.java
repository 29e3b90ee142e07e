package dev.horizon.service.security;

/** What a token may do: admin everything; submitter its own team's jobs; agent report nodes and telemetry. */
public enum Role {
    ADMIN, SUBMITTER, AGENT
}
