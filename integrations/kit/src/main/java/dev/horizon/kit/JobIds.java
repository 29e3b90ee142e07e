package dev.horizon.kit;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.horizon.api.JobSpec;
import dev.horizon.kit.manifest.Translation;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Where a workload keeps the ids of its scheduler jobs, so they survive the adapter's restarts, and how its submission
 * is said: a {@link GenericJob}'s one id in {@link WorkloadReconciler#JOB_ID}, a {@link ComposableJob}'s ids by job
 * name as a JSON object in {@link WorkloadReconciler#JOB_IDS}.
 */
enum JobIds {
    ONE {
        @Override
        List<JobSpec> toSubmit(Translation translation) {
            return translation.jobs().subList(0, 1);
        }

        @Override
        Map<String, String> read(HeldWorkload job) {
            String id = job.annotations().path(WorkloadReconciler.JOB_ID).asText(null);
            return id == null ? Map.of() : Map.of(job.object().path("metadata").path("name").asText(), id);
        }

        @Override
        void write(HeldWorkload job, Map<String, String> ids) {
            job.annotations().put(WorkloadReconciler.JOB_ID, ids.values().iterator().next());
        }

        @Override
        String submitted(Map<String, String> ids, List<JobSpec> specs) {
            return "scheduler job " + ids.values().iterator().next() + ": " + shape(specs.get(0));
        }
    },
    BY_NAME {
        @Override
        List<JobSpec> toSubmit(Translation translation) {
            return translation.jobs();
        }

        @Override
        Map<String, String> read(HeldWorkload job) {
            String text = job.annotations().path(WorkloadReconciler.JOB_IDS).asText("");
            if (text.isEmpty()) return Map.of();
            try {
                return JSON.readValue(text, new TypeReference<LinkedHashMap<String, String>>() { });
            } catch (JsonProcessingException e) {
                throw new IllegalStateException(WorkloadReconciler.JOB_IDS + " is not the JSON object of job ids Horizon wrote: " + e.getOriginalMessage(), e);
            }
        }

        @Override
        void write(HeldWorkload job, Map<String, String> ids) {
            try {
                job.annotations().put(WorkloadReconciler.JOB_IDS, JSON.writeValueAsString(ids));
            } catch (JsonProcessingException e) {
                throw new IllegalStateException("a map of strings always serialises", e);
            }
        }

        @Override
        String submitted(Map<String, String> ids, List<JobSpec> specs) {
            return "scheduler jobs " + String.join(", ", ids.values()) + "; "
                    + specs.stream().map(s -> s.name() + ": " + shape(s)).collect(Collectors.joining(", "));
        }
    };

    private static final ObjectMapper JSON = new ObjectMapper();

    static JobIds of(HeldWorkload job) {
        return job instanceof ComposableJob ? BY_NAME : ONE;
    }

    /** The scheduler jobs the workload is submitted as. */
    abstract List<JobSpec> toSubmit(Translation translation);

    /** Scheduler job id by job name, in submission order; empty before the workload is submitted. */
    abstract Map<String, String> read(HeldWorkload job);

    abstract void write(HeldWorkload job, Map<String, String> ids);

    /** The submitted jobs, as the Submitted event says them. */
    abstract String submitted(Map<String, String> ids, List<JobSpec> specs);

    private static String shape(JobSpec spec) {
        return spec.replicaCount() + " x " + spec.perReplica().gpuFraction() + " GPU";
    }
}
