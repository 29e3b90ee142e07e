package dev.horizon.trace;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.horizon.allocator.model.Cluster;
import dev.horizon.allocator.model.InferenceService;
import dev.horizon.allocator.model.PlacementRules;
import dev.horizon.allocator.model.SliceRequest;
import dev.horizon.api.InvalidJobException;
import dev.horizon.api.JobJson;
import dev.horizon.api.JobSpec;
import dev.horizon.fractional.mig.MigPolicy;
import dev.horizon.simulation.Scenario;
import dev.horizon.simulation.ServiceDemand;
import dev.horizon.simulation.SimJob;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A scenario written by hand: {"name", "gpus", "gpusPerNode", "days", "jobs": [job JSON plus
 * "arrivalSeconds" and "durationSeconds"], "services": [{"name", "team", "weightPerGpuHour",
 * "swapCapGpus", "historyGpus": [...], "demandGpus": [...]}]}; demand is GPUs per 15-minute step.
 * Jobs may ask for slices ({"migProfile": ...} or {"gpuMilli": ..., "memoryMiB": ...}); optional "gpuModel" (default
 * H100-80GB) and "migPolicy" (the API's MIG policy body, for every node) let MIG work run.
 */
public final class ScenarioFile {
    private ScenarioFile() {
    }

    public static Scenario read(Path file, ScenarioOptions o) throws IOException {
        JsonNode root;
        try {
            root = JobJson.mapper().readTree(file.toFile());
        } catch (IOException e) {
            throw new IllegalArgumentException(file + " is not valid JSON: " + e.getMessage().lines().findFirst().orElse(""));
        }
        String where = file.getFileName().toString();
        int gpus = o.gpus() != null ? o.gpus() : require(root, "gpus", where).asInt();
        int perNode = root.path("gpusPerNode").asInt(8);
        int days = o.days() != null ? o.days() : root.path("days").asInt(1);
        long step = ScenarioOptions.STEP_SECONDS;
        int windowSteps = (int) (days * 86_400 / step);
        String model = root.path("gpuModel").asText("H100-80GB");
        Cluster cluster = Cluster.homogeneous(gpus, perNode, model, memoryMiB(model));
        MigPolicy migPolicy = root.has("migPolicy") ? migPolicy(root.get("migPolicy"), where + ": migPolicy") : null;
        List<SimJob> jobs = new ArrayList<>();
        JsonNode jobsNode = root.path("jobs");
        for (int i = 0; i < jobsNode.size(); i++) {
            String at = where + ": jobs[" + i + "]";
            ObjectNode n = (ObjectNode) jobsNode.get(i).deepCopy();
            long arrival = require(n, "arrivalSeconds", at).asLong();
            long duration = require(n, "durationSeconds", at).asLong();
            n.remove(List.of("arrivalSeconds", "durationSeconds"));
            JobSpec spec;
            try {
                spec = JobJson.parse(n.toString());
            } catch (InvalidJobException e) {
                throw new IllegalArgumentException(at + ": " + e.getMessage());
            }
            jobs.add(job(spec, arrival, duration, cluster, at));
        }
        List<ServiceDemand> services = new ArrayList<>();
        JsonNode servicesNode = root.path("services");
        for (int i = 0; i < servicesNode.size(); i++) {
            String at = where + ": services[" + i + "]";
            JsonNode s = servicesNode.get(i);
            double[] demand = numbers(require(s, "demandGpus", at));
            if (demand.length < windowSteps) {
                throw new IllegalArgumentException(at + ".demandGpus has " + demand.length + " steps; the window needs " + windowSteps + " (15-minute steps)");
            }
            services.add(new ServiceDemand(new InferenceService(require(s, "name", at).asText(), s.path("team").asText("serving"),
                    s.path("weightPerGpuHour").asDouble(4), s.path("swapCapGpus").asInt(Math.max(2, gpus / 8))),
                    numbers(s.path("historyGpus")), java.util.Arrays.copyOf(demand, windowSteps)));
        }
        Map<String, Object> info = new LinkedHashMap<>();
        info.put("name", root.path("name").asText(where));
        info.put("source", file.toString());
        info.put("gpus", gpus);
        info.put("days", days);
        info.put("jobs", jobs.size());
        return new Scenario(root.path("name").asText(where), cluster, step, windowSteps, ScenarioOptions.HORIZON_STEPS, jobs, services,
                List.of(), info, null, migPolicy);
    }

    /**
     * The simulator's job for a job JSON that arrives at arrival and truly runs duration seconds at its full width: its
     * name is its id, its priority its weight; a shape the cluster can never hold is refused, naming where (at).
     */
    public static SimJob job(JobSpec spec, long arrival, long duration, Cluster cluster, String at) {
        if (duration < 1) throw new IllegalArgumentException(at + ".durationSeconds must be at least 1");
        SliceRequest slice = SliceRequest.of(spec.perReplica());
        if (slice != null) {
            List<String> problems = slice.problems(cluster);
            if (!problems.isEmpty()) throw new IllegalArgumentException(at + ": " + String.join("; ", problems));
            return new SimJob(spec.name(), spec.team(), spec.jobClass(), spec.priorityOrDefault(), spec.replicaCount(), spec.replicaCount(),
                    arrival, duration, spec.durationEstimateSeconds(), spec.contractOrDefault(), slice, PlacementRules.of(spec));
        }
        int total = spec.replicaCount() * spec.perReplica().gpus();
        int gpus = cluster.totalGpus();
        if (total > gpus) throw new IllegalArgumentException(at + ": asks for " + total + " GPUs but the cluster has " + gpus + "; lower replicas or perReplica.gpus");
        int minTotal = spec.minReplicaCount() * spec.perReplica().gpus();
        return new SimJob(spec.name(), spec.team(), spec.jobClass(), spec.priorityOrDefault(), total, minTotal, arrival, duration,
                spec.durationEstimateSeconds(), spec.contractOrDefault(), null, PlacementRules.of(spec));
    }

    /** GPU memory: what NVML reports for an H100-80GB, else the size in the model's name ("H200-141GB": 141 GiB). */
    private static long memoryMiB(String model) {
        if (model.equals("H100-80GB")) return 81_559;
        java.util.regex.Matcher m = java.util.regex.Pattern.compile(".*-(\\d+)GB").matcher(model);
        if (!m.matches()) throw new IllegalArgumentException("gpuModel '" + model + "' should end in its memory, like H100-80GB");
        return Long.parseLong(m.group(1)) * 1024;
    }

    private static MigPolicy migPolicy(JsonNode n, String at) {
        try {
            return new MigPolicy("scenario", strings(require(n, "partitionableModels", at)), strings(require(n, "allowedProfiles", at)),
                    MigPolicy.Layout.valueOf(require(n, "layout", at).asText().toUpperCase(java.util.Locale.ROOT)),
                    java.time.Duration.ofSeconds(require(n, "drainTimeSeconds", at).asLong()), require(n, "maxConcurrentReconfigurations", at).asInt());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(at + ": " + e.getMessage() + " (layout is FIXED or DYNAMIC)");
        }
    }

    private static java.util.Set<String> strings(JsonNode array) {
        java.util.Set<String> out = new java.util.LinkedHashSet<>();
        array.forEach(v -> out.add(v.asText()));
        return out;
    }

    private static JsonNode require(JsonNode n, String field, String where) {
        JsonNode v = n.get(field);
        if (v == null || v.isNull()) throw new IllegalArgumentException(where + "." + field + " is required");
        return v;
    }

    private static double[] numbers(JsonNode array) {
        double[] out = new double[array.size()];
        for (int i = 0; i < out.length; i++) out[i] = array.get(i).asDouble();
        return out;
    }
}
