package dev.horizon.service.jobs;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonRawValue;
import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import dev.horizon.api.JobClass;
import dev.horizon.api.integration.PlannedDevice;
import dev.horizon.service.security.Caller;
import dev.horizon.service.web.ApiTime;
import java.util.List;

/**
 * A job as the API shows it: its state and placement, why it waits (as of the moment it is read), and the job JSON it
 * was submitted with (other teams' jobs without name, spec or reason: {@link #visibleTo}). leaderEpoch, on a running
 * job: the epoch of the leader that placed it or confirmed its placement, which adapters check (fencing). devices, on a
 * running job read alone: the placement's GPUs, MIG instances and shares with their UUIDs and GPU modes. startP50At,
 * startP90At, on a pending job: its start-time band (ISO-8601 UTC, as every time the API writes: {@link ApiTime};
 * absent: none can be given, and startBandNote says why), never before the moment it is read; startBandNote: what else
 * to know of the band (absent: nothing);
 * queueAloneP50At, queueAloneP90At, where the band has no P90: when the queue as it stands would start it were no more
 * work to arrive (a condition, not the band; startBandNote says how it was played; absent: not told, or not within it).
 * peakGpuMemoryMiB, for its own team: the most memory one of its whole GPUs held while it ran, as the agents measured it
 * (absent: never measured). heldAt, on a held job: since when it is held (any team sees that it is, as it sees the plan);
 * heldBy, for its own team: who held it (the token's label or id, and its role).
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record JobView(String id, String name, String team, @JsonProperty("class") JobClass jobClass, int priority, int gpus,
                      JobState state, @JsonSerialize(using = ApiTime.Millis.class) long submittedAt, @JsonSerialize(using = ApiTime.Seconds.class) Long startedAt, @JsonSerialize(using = ApiTime.Seconds.class) Long endedAt, String placement, Boolean fill, String reason,
                      @JsonSerialize(using = ApiTime.Seconds.class) Long plannedStart, @JsonSerialize(using = ApiTime.Seconds.class) Long startP50At, @JsonSerialize(using = ApiTime.Seconds.class) Long startP90At, String startBandNote,
                      @JsonSerialize(using = ApiTime.Seconds.class) Long queueAloneP50At, @JsonSerialize(using = ApiTime.Seconds.class) Long queueAloneP90At, int preemptions, Long leaderEpoch, @JsonRawValue String spec, List<PlannedDevice> devices,
                      Long peakGpuMemoryMiB, String heldBy, @JsonSerialize(using = ApiTime.Seconds.class) Long heldAt) {
    /**
     * The job as caller may see it: in full for its own team (and admins); for other teams only what the plan must show
     * (id, team, class, GPUs, state, times, placement), without name, spec, source or reason.
     */
    public static JobView visibleTo(Caller caller, JobRow j, long nowSeconds) {
        if (caller.seesTeam(j.team())) return of(j, nowSeconds);
        return new JobView(j.id(), null, j.team(), j.jobClass(), j.priority(), j.gpus(), j.state(), j.submittedAt(), j.startedAt(), j.endedAt(),
                j.placement(), null, null, j.plannedStart(), null, null, null, null, null, j.preemptions(), null, null, null, null, null,
                j.hold() == null ? null : j.hold().at());
    }

    public static JobView of(JobRow j, long nowSeconds) {
        return new JobView(j.id(), j.name(), j.team(), j.jobClass(), j.priority(), j.gpus(), j.state(), j.submittedAt(), j.startedAt(),
                j.endedAt(), j.placement(), j.state() == JobState.RUNNING ? j.fill() : null, WaitReasons.shown(j.reason(), j.plannedStart(), nowSeconds),
                j.plannedStart(), null, null, null, null, null, j.preemptions(),
                j.state() == JobState.RUNNING ? j.leaderEpoch() : null, j.spec(), null, j.peakGpuMemoryMiB() > 0 ? j.peakGpuMemoryMiB() : null,
                j.hold() == null ? null : j.hold().by(), j.hold() == null ? null : j.hold().at());
    }

    /** The view with the devices of a running job's placement, which adapters claim or pin (see PlannedDevices). */
    public JobView withDevices(List<PlannedDevice> planned) {
        return new JobView(id, name, team, jobClass, priority, gpus, state, submittedAt, startedAt, endedAt, placement, fill, reason, plannedStart,
                startP50At, startP90At, startBandNote, queueAloneP50At, queueAloneP90At, preemptions, leaderEpoch, spec, planned.isEmpty() ? null : planned,
                peakGpuMemoryMiB, heldBy, heldAt);
    }

    /**
     * The view of pending job j with its start-time band as the outlook shows it at now (none where bands are off, or for a
     * held job, whose note says so); other states show none.
     */
    public JobView withBand(StartOutlook outlook, JobRow j, long now) {
        if (state != JobState.PENDING) return this;
        StartOutlook.Band band = outlook.band(j, now);
        if (band == null) return this;
        return new JobView(id, name, team, jobClass, priority, gpus, state, submittedAt, startedAt, endedAt, placement, fill, reason, plannedStart,
                band.p50At(), band.p90At(), band.note(), band.queueAloneP50At(), band.queueAloneP90At(), preemptions, leaderEpoch, spec, devices, peakGpuMemoryMiB,
                heldBy, heldAt);
    }
}
