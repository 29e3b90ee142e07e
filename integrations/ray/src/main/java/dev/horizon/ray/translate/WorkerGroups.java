package dev.horizon.ray.translate;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;

/**
 * How many pods KubeRay creates for a worker group, the one place this rule lives: {@code replicas} clamped to
 * {@code [minReplicas, maxReplicas]} (minReplicas when replicas is unset), times {@code numOfHosts}; none while the group
 * is suspended. KubeRay's CRD defaults minReplicas to 0 and maxReplicas to 2147483647, and its validation refuses a group
 * whose minReplicas is above its maxReplicas.
 */
public final class WorkerGroups {
    private WorkerGroups() {
    }

    /** The group's replicas as KubeRay clamps them; the group at {@code path} is refused when its bounds cross. */
    public static int replicas(JsonNode group, String path) {
        int min = group.path("minReplicas").asInt(0);
        int max = group.path("maxReplicas").asInt(Integer.MAX_VALUE);
        if (min > max) throw new RayTranslationException(path + ": minReplicas " + min + " is above maxReplicas " + max + "; KubeRay refuses such a group");
        if (!group.has("replicas")) return min;
        return Math.max(min, Math.min(max, group.path("replicas").asInt()));
    }

    /** The pods KubeRay creates for the group; a clamped replica count adds a warning. */
    static int pods(JsonNode group, String path, List<String> warnings) {
        if (group.path("suspend").asBoolean(false)) return 0;
        int replicas = replicas(group, path);
        if (group.has("replicas") && group.path("replicas").asInt() != replicas) {
            int asked = group.path("replicas").asInt();
            String bound = asked > replicas ? "above maxReplicas " : "below minReplicas ";
            warnings.add(path + ".replicas: " + asked + " is " + bound + replicas + "; KubeRay creates " + replicas + ", so Horizon plans " + replicas);
        }
        return replicas * group.path("numOfHosts").asInt(1);
    }
}
