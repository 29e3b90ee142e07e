package dev.horizon.ray.translate;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Whether a RayCluster runs Ray Serve: a container of its head or a worker starts it ({@code serve run},
 * {@code serve deploy}, {@code serve start}, in its command, its args or a postStart hook). A serve port alone is no
 * sign: KubeRay's samples declare port 8000 on clusters that never serve.
 */
final class RayServe {
    private static final Pattern SERVE_CLI = Pattern.compile("(^|[\\s;&|'\"(])serve\\s+(run|deploy|start)\\b");

    private RayServe() {
    }

    /** The field that starts Ray Serve, if one does ("spec.headGroupSpec.template.spec.containers[0].command"). */
    static Optional<String> startedBy(JsonNode clusterSpec) {
        Optional<String> head = inGroup(clusterSpec.path("headGroupSpec"), "spec.headGroupSpec");
        if (head.isPresent()) return head;
        JsonNode groups = clusterSpec.path("workerGroupSpecs");
        for (int i = 0; i < groups.size(); i++) {
            Optional<String> worker = inGroup(groups.get(i), "spec.workerGroupSpecs[" + i + "]");
            if (worker.isPresent()) return worker;
        }
        return Optional.empty();
    }

    private static Optional<String> inGroup(JsonNode group, String path) {
        JsonNode containers = group.path("template").path("spec").path("containers");
        for (int i = 0; i < containers.size(); i++) {
            JsonNode c = containers.get(i);
            String base = path + ".template.spec.containers[" + i + "]";
            if (startsServe(c.path("command"))) return Optional.of(base + ".command");
            if (startsServe(c.path("args"))) return Optional.of(base + ".args");
            if (startsServe(c.path("lifecycle").path("postStart").path("exec").path("command"))) return Optional.of(base + ".lifecycle.postStart");
        }
        return Optional.empty();
    }

    private static boolean startsServe(JsonNode words) {
        StringBuilder line = new StringBuilder();
        words.forEach(w -> line.append(' ').append(w.asText()));
        return SERVE_CLI.matcher(line).find();
    }
}
