package dev.horizon.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.ArrayList;
import java.util.List;

/** A scheduler job as the design's job JSON defines it (REST body, translation output, scenario files). */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record JobSpec(
        String name,
        String team,
        @JsonProperty("class") JobClass jobClass,
        Integer priority,
        Integer replicas,
        Integer minReplicas,
        GpuShape perReplica,
        Boolean gang,
        String topology,
        Long durationEstimateSeconds,
        Contract contract,
        JobSource source,
        Boolean mixModels) {

    public static final List<String> TOPOLOGIES = List.of("any", "same-node", "same-nvlink-domain");

    /** Without mixModels: the replicas of a job all land on one GPU model. */
    public JobSpec(String name, String team, JobClass jobClass, Integer priority, Integer replicas, Integer minReplicas, GpuShape perReplica,
                   Boolean gang, String topology, Long durationEstimateSeconds, Contract contract, JobSource source) {
        this(name, team, jobClass, priority, replicas, minReplicas, perReplica, gang, topology, durationEstimateSeconds, contract, source, null);
    }

    /**
     * Whether the job's replicas may run on different GPU models: only when the user says so and lists the models in
     * perReplica.gpuTypes; by default every replica lands on one model (a gang runs at its slowest member's pace).
     */
    public boolean mixModelsOrDefault() {
        return mixModels != null && mixModels;
    }

    /** Replicas after defaults (1). */
    public int replicaCount() {
        return replicas == null ? 1 : replicas;
    }

    /**
     * Fewest replicas the job can make progress with (Kubeflow's elasticPolicy.minReplicas); the
     * allocator may start it anywhere between this and replicas. Defaults to replicas (not elastic).
     */
    public int minReplicaCount() {
        return minReplicas == null ? replicaCount() : minReplicas;
    }

    /** Priority after defaults (1): orders jobs inside a team and weights their output. */
    public int priorityOrDefault() {
        return priority == null ? 1 : priority;
    }

    public boolean gangOrDefault() {
        return gang == null || gang;
    }

    public Contract contractOrDefault() {
        return contract != null ? contract : Contract.defaultFor(jobClass);
    }

    /** Whole GPUs the job needs when every replica runs, counting fractional shapes by their fraction. */
    public double totalGpus() {
        return replicaCount() * perReplica.gpuFraction();
    }

    /** Every problem with this job, each naming its field and the limit or the fix; empty when the job is valid (see {@link Limits}). */
    public List<String> problems() {
        List<String> errors = new ArrayList<>();
        if (name == null || name.isBlank()) errors.add("name is required: a short name for the job, such as \"llama-sft-7b\"");
        Limits.text("name", name, Limits.NAME, errors);
        if (team == null || team.isBlank()) errors.add("team is required: the team whose GPU budget pays for the job");
        Limits.text("team", team, Limits.SHORT_NAME, errors);
        if (jobClass == null) errors.add("class is required: one of " + List.of(JobClass.values()));
        if (priority != null && (priority < 0 || priority > Limits.PRIORITY)) {
            errors.add("priority must be between 0 and " + Limits.PRIORITY + " (got " + priority + "); priority orders jobs inside a team, fair share orders teams");
        }
        if (replicas != null && (replicas < 1 || replicas > Limits.REPLICAS)) {
            errors.add("replicas must be between 1 and " + Limits.REPLICAS + " (got " + replicas + ")");
        }
        if (minReplicas != null && (minReplicas < 1 || minReplicas > replicaCount())) {
            errors.add("minReplicas must be between 1 and replicas (" + replicaCount() + "); got " + minReplicas);
        }
        if (perReplica == null) errors.add("perReplica is required: {\"gpus\": N}, {\"migProfile\": \"1g.10gb\"} or {\"gpuMilli\": 500, \"memoryMiB\": 20000}");
        else perReplica.validate(errors);
        if (perReplica != null && perReplica.gpus() != null && (long) replicaCount() * perReplica.gpus() > Limits.GPUS_PER_JOB) {
            errors.add("replicas x perReplica.gpus is " + (long) replicaCount() * perReplica.gpus() + " GPUs; the limit is " + Limits.GPUS_PER_JOB);
        }
        if (topology != null && !TOPOLOGIES.contains(topology)) errors.add("topology " + Limits.quote(topology) + " is not one of " + TOPOLOGIES);
        if (mixModelsOrDefault() && (perReplica == null || perReplica.gpuTypes() == null || perReplica.gpuTypes().stream().distinct().count() < 2)) {
            errors.add("mixModels: true lets replicas run on different GPU models, so perReplica.gpuTypes must name two or more;"
                    + " list the models the job may mix, or leave mixModels out to keep every replica on one model");
        }
        if (durationEstimateSeconds != null && (durationEstimateSeconds < 1 || durationEstimateSeconds > Limits.DURATION_SECONDS)) {
            errors.add("durationEstimateSeconds must be between 1 and " + Limits.DURATION_SECONDS + " (a year) in seconds; got " + durationEstimateSeconds);
        }
        if (contract != null) contract.validate(errors);
        if (source != null) source.validate(errors);
        return errors;
    }
}
