package dev.horizon.kubeflow.batch;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;

/**
 * The pod templates of a batch workload and how many pods each makes, read one way for every kind, so that the
 * translation counts and the release hands out planned devices over the same groups in the same order.
 *
 * @param groups       the pod templates in the order the manifest lists them
 * @param gang         whether the pods must start together
 * @param minAvailable the fewest pods (of every group, GPU or not) the workload starts with, or null for all of them
 */
public record PodGroups(List<Group> groups, boolean gang, Integer minAvailable) {
    /**
     * One pod template: {@code name} as the workload names it (a replicated job, a task), {@code path} of the template
     * (metadata and spec) in the manifest, and the pods it makes.
     */
    public record Group(String name, String path, ObjectNode template, int pods) {
        public String podSpecPath() {
            return path.isEmpty() ? "spec" : path + ".spec";
        }
    }

    public static PodGroups of(BatchKind kind, ObjectNode manifest) {
        JsonNode spec = manifest.path("spec");
        return switch (kind) {
            case POD -> new PodGroups(List.of(new Group("pod", "", manifest, 1)), true, null);
            case JOB -> new PodGroups(List.of(new Group("job", "spec.template", object(spec.path("template")), jobPods(spec))),
                    "Indexed".equals(spec.path("completionMode").asText()), null);
            case JOB_SET -> jobSet(spec);
            case VOLCANO_JOB -> volcanoJob(spec);
        };
    }

    /** A template the manifest leaves out reads as an empty one (its pods ask for nothing); the schema check names what is missing. */
    private static ObjectNode object(JsonNode node) {
        return node instanceof ObjectNode o ? o : JsonNodeFactory.instance.objectNode();
    }

    /** The pods a Job runs at once: its parallelism (1 by default), no more than its completions. */
    static int jobPods(JsonNode jobSpec) {
        int parallelism = jobSpec.path("parallelism").asInt(1);
        return jobSpec.has("completions") ? Math.min(parallelism, jobSpec.path("completions").asInt()) : parallelism;
    }

    /** Each replicated job is a group of replicas x its Job's pods; a JobSet's jobs are one distributed program, so one gang. */
    private static PodGroups jobSet(JsonNode spec) {
        List<Group> groups = new ArrayList<>();
        JsonNode jobs = spec.path("replicatedJobs");
        for (int i = 0; i < jobs.size(); i++) {
            JsonNode job = jobs.get(i);
            JsonNode jobSpec = job.path("template").path("spec");
            groups.add(new Group(job.path("name").asText(), "spec.replicatedJobs[" + i + "].template.spec.template",
                    object(jobSpec.path("template")), job.path("replicas").asInt(1) * jobPods(jobSpec)));
        }
        return new PodGroups(groups, true, null);
    }

    /** Each task is a group of its replicas; minAvailable (every pod by default) is the gang Volcano starts together. */
    private static PodGroups volcanoJob(JsonNode spec) {
        List<Group> groups = new ArrayList<>();
        JsonNode tasks = spec.path("tasks");
        for (int i = 0; i < tasks.size(); i++) {
            JsonNode task = tasks.get(i);
            groups.add(new Group(task.path("name").asText("task-" + i), "spec.tasks[" + i + "].template", object(task.path("template")),
                    task.path("replicas").asInt(1)));
        }
        return new PodGroups(groups, true, spec.has("minAvailable") ? spec.get("minAvailable").asInt() : null);
    }
}
