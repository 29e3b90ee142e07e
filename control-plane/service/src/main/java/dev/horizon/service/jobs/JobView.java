package dev.horizon.service.jobs;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonRawValue;
import dev.horizon.api.JobClass;
import dev.horizon.api.integration.PlannedDevice;
import java.util.List;

/**
 * A job as the API shows it: its state and placement, why it waits, and the job JSON it was submitted with. leaderEpoch,
 * on a running job: the epoch of the leader that placed it or confirmed its placement, which adapters check (fencing).
 * devices, on a running job read alone: the placement's GPUs, MIG instances and shares with their UUIDs and GPU modes.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record JobView(String id, String name, String team, @JsonProperty("class") JobClass jobClass, int priority, int gpus,
                      JobState state, long submittedAt, Long startedAt, Long endedAt, String placement, Boolean fill, String reason,
                      Long plannedStart, int preemptions, Long leaderEpoch, @JsonRawValue String spec, List<PlannedDevice> devices) {
    public static JobView of(JobRow j) {
        return new JobView(j.id(), j.name(), j.team(), j.jobClass(), j.priority(), j.gpus(), j.state(), j.submittedAt(), j.startedAt(),
                j.endedAt(), j.placement(), j.state() == JobState.RUNNING ? j.fill() : null, j.reason(), j.plannedStart(), j.preemptions(),
                j.state() == JobState.RUNNING ? j.leaderEpoch() : null, j.spec(), null);
    }

    /** The view with the devices of a running job's placement, which adapters claim or pin (see PlannedDevices). */
    public JobView withDevices(List<PlannedDevice> planned) {
        return new JobView(id, name, team, jobClass, priority, gpus, state, submittedAt, startedAt, endedAt, placement, fill, reason, plannedStart,
                preemptions, leaderEpoch, spec, planned.isEmpty() ? null : planned);
    }
}
