package dev.horizon.trace;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.horizon.allocator.Cluster;
import dev.horizon.allocator.InferenceService;
import dev.horizon.api.InvalidJobException;
import dev.horizon.api.JobJson;
import dev.horizon.api.JobSpec;
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
        Cluster cluster = Cluster.homogeneous(gpus, perNode, root.path("gpuModel").asText("H100-80GB"), 81_559);
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
            if (spec.perReplica().gpus() == null) {
                throw new IllegalArgumentException(at + ".perReplica: the simulator plans whole GPUs; use {\"gpus\": N}");
            }
            int total = spec.replicaCount() * spec.perReplica().gpus();
            if (total > gpus) throw new IllegalArgumentException(at + ": asks for " + total + " GPUs but the cluster has " + gpus + "; lower replicas or perReplica.gpus");
            if (duration < 1) throw new IllegalArgumentException(at + ".durationSeconds must be at least 1");
            int minTotal = spec.minReplicaCount() * spec.perReplica().gpus();
            jobs.add(new SimJob(spec.name(), spec.team(), spec.jobClass(), spec.priorityOrDefault(), total, minTotal, arrival, duration,
                    spec.durationEstimateSeconds(), spec.contractOrDefault()));
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
                List.of(), info);
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
