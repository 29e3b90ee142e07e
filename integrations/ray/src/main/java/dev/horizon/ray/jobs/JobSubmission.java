package dev.horizon.ray.jobs;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.horizon.api.GpuShape;
import dev.horizon.api.JobClass;
import dev.horizon.api.JobSource;
import dev.horizon.api.JobSpec;
import dev.horizon.kit.manifest.Accelerators;
import dev.horizon.ray.translate.FractionalGpuPolicy;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;

/**
 * A body of Ray's {@code POST /api/jobs/} (what {@code ray job submit} sends), checked field by field, and the scheduler
 * job it asks for: one replica holding {@code entrypoint_num_gpus} GPUs, a fraction made a share by the admin's policy.
 * The team and class come from the {@code horizon.dev/team} and {@code horizon.dev/class} metadata, which Ray passes
 * through untouched ({@code ray job submit --metadata-json}).
 */
record JobSubmission(String submissionId, ObjectNode request, JobSpec spec) {
    static final String TEAM_METADATA = "horizon.dev/team";
    static final String CLASS_METADATA = "horizon.dev/class";
    /** Ray's own field names; any other is refused, as Ray's JobSubmitRequest dataclass refuses it. */
    private static final List<String> FIELDS = List.of("entrypoint", "submission_id", "job_id", "runtime_env", "metadata", "entrypoint_num_cpus",
            "entrypoint_num_gpus", "entrypoint_memory", "entrypoint_resources");

    /** A request Horizon cannot queue; the message starts with the field it is about. */
    static final class BadRequest extends RuntimeException {
        BadRequest(String field, String problem) {
            super(field + ": " + problem);
        }
    }

    static JobSubmission parse(JsonNode body, String defaultTeam, FractionalGpuPolicy fractions) {
        if (!(body instanceof ObjectNode request)) throw new BadRequest("body", "must be a JSON object such as {\"entrypoint\": \"python job.py\"}");
        for (Iterator<String> it = request.fieldNames(); it.hasNext(); ) {
            String field = it.next();
            if (!FIELDS.contains(field)) throw new BadRequest(field, "is not a field of Ray's job submission; use one of " + FIELDS);
        }
        JsonNode entrypoint = request.path("entrypoint");
        if (!entrypoint.isTextual() || entrypoint.asText().isBlank()) throw new BadRequest("entrypoint", "is required: the shell command to run");
        String submissionId = optionalText(request, "submission_id");
        if (submissionId == null) submissionId = "raysubmit_" + UUID.randomUUID().toString().replace("-", "").substring(0, 16);
        double gpus = number(request, "entrypoint_num_gpus");
        number(request, "entrypoint_num_cpus");
        number(request, "entrypoint_memory");
        if (request.has("runtime_env") && !request.get("runtime_env").isObject() && !request.get("runtime_env").isNull()) {
            throw new BadRequest("runtime_env", "must be a JSON object such as {\"pip\": [\"torch\"]}");
        }
        Map<String, String> metadata = metadata(request);
        resources(request);
        if (gpus == 0) {
            throw new BadRequest("entrypoint_num_gpus", "Horizon queues GPU work; ask for the entrypoint's GPUs (such as 1 or 0.5),"
                    + " or submit CPU-only jobs to the Ray cluster directly");
        }
        String team = metadata.getOrDefault(TEAM_METADATA, defaultTeam);
        GpuShape shape;
        if (gpus == Math.rint(gpus)) {
            shape = GpuShape.wholeGpus((int) gpus);
        } else if (gpus < 1) {
            try {
                shape = fractions.shareOf(gpus, null);
            } catch (IllegalArgumentException e) {
                throw new BadRequest("entrypoint_num_gpus", e.getMessage());
            }
        } else {
            throw new BadRequest("entrypoint_num_gpus", "a fraction above one GPU (" + gpus + ") cannot be planned; ask for whole GPUs or a share of one");
        }
        JobSpec spec = new JobSpec(submissionId, team, jobClass(metadata), null, 1, null, shape, false, null, null, null,
                new JobSource("RayJobSubmission", team, submissionId));
        List<String> problems = spec.problems();
        if (!problems.isEmpty()) throw new BadRequest("submission", "the scheduler job would be invalid: " + String.join("; ", problems));
        return new JobSubmission(submissionId, request, spec);
    }

    private static String optionalText(JsonNode request, String field) {
        JsonNode value = request.path(field);
        if (value.isMissingNode() || value.isNull()) return null;
        if (!value.isTextual() || value.asText().isBlank()) throw new BadRequest(field, "must be a non-empty string");
        return value.asText();
    }

    private static double number(JsonNode request, String field) {
        JsonNode value = request.path(field);
        if (value.isMissingNode() || value.isNull()) return 0;
        if (!value.isNumber() || value.asDouble() < 0) throw new BadRequest(field, "must be a number >= 0 (got " + value + ")");
        return value.asDouble();
    }

    private static Map<String, String> metadata(JsonNode request) {
        JsonNode value = request.path("metadata");
        if (value.isMissingNode() || value.isNull()) return Map.of();
        if (!value.isObject()) throw new BadRequest("metadata", "must be a JSON object of strings");
        Map<String, String> metadata = new LinkedHashMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = value.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            if (!e.getValue().isTextual()) throw new BadRequest("metadata." + e.getKey(), "must be a string");
            metadata.put(e.getKey(), e.getValue().asText());
        }
        return metadata;
    }

    /** Custom resources stay Ray's to place inside the cluster; they are only checked the way Ray checks them. */
    private static void resources(JsonNode request) {
        JsonNode value = request.path("entrypoint_resources");
        if (value.isMissingNode() || value.isNull()) return;
        if (!value.isObject()) throw new BadRequest("entrypoint_resources", "must be a JSON object such as {\"custom\": 1}");
        for (Iterator<Map.Entry<String, JsonNode>> it = value.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            String field = "entrypoint_resources." + e.getKey();
            if (!e.getValue().isNumber() || e.getValue().asDouble() < 0) throw new BadRequest(field, "must be a number >= 0");
            if (e.getKey().equals("GPU") || e.getKey().equals("CPU")) {
                throw new BadRequest(field, "use entrypoint_num_" + e.getKey().toLowerCase(Locale.ROOT) + "s instead");
            }
            if (Accelerators.isOther(e.getKey())) throw new BadRequest(field, Accelerators.refusal(e.getKey()));
        }
    }

    private static JobClass jobClass(Map<String, String> metadata) {
        String label = metadata.get(CLASS_METADATA);
        if (label == null) return JobClass.TRAINING;
        try {
            return JobClass.valueOf(label.trim().toUpperCase(Locale.ROOT).replace('-', '_'));
        } catch (IllegalArgumentException e) {
            throw new BadRequest("metadata." + CLASS_METADATA, "'" + label + "' is not a job class");
        }
    }
}
