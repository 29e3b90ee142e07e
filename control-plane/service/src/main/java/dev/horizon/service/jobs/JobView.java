package dev.horizon.service.jobs;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonRawValue;
import dev.horizon.api.JobClass;

/**
 * A job as the API shows it: its state and placement, why it waits (as of the moment it is read), and the job JSON it
 * was submitted with. leaderEpoch, on a running job: the epoch of the leader that placed it or confirmed its placement,
 * which adapters check (fencing).
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record JobView(String id, String name, String team, @JsonProperty("class") JobClass jobClass, int priority, int gpus,
                      JobState state, long submittedAt, Long startedAt, Long endedAt, String placement, Boolean fill, String reason,
                      Long plannedStart, int preemptions, Long leaderEpoch, @JsonRawValue String spec) {
    public static JobView of(JobRow j, long nowSeconds) {
        return new JobView(j.id(), j.name(), j.team(), j.jobClass(), j.priority(), j.gpus(), j.state(), j.submittedAt(), j.startedAt(),
                j.endedAt(), j.placement(), j.state() == JobState.RUNNING ? j.fill() : null, WaitReasons.shown(j.reason(), j.plannedStart(), nowSeconds),
                j.plannedStart(), j.preemptions(),
                j.state() == JobState.RUNNING ? j.leaderEpoch() : null, j.spec());
    }
}
