package dev.horizon.service.nodes;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import dev.horizon.service.web.ApiTime;

/**
 * A command queued for a node's agent. state: QUEUED (not yet streamed), SENT (streamed, no result yet), SUCCEEDED or
 * FAILED (with the agent's error text). leaderEpoch: the epoch of the leader that queued it; the agent refuses a command
 * from an older epoch than one it has already seen.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record NodeCommand(String id, String node, CommandRequest action, String state, @JsonSerialize(using = ApiTime.Millis.class) long createdAt, @JsonSerialize(using = ApiTime.Millis.class) Long sentAt, @JsonSerialize(using = ApiTime.Millis.class) Long finishedAt,
                          String error, long leaderEpoch) {
    public static final String QUEUED = "QUEUED";
    public static final String SENT = "SENT";
    public static final String SUCCEEDED = "SUCCEEDED";
    public static final String FAILED = "FAILED";
}
