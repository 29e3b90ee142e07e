package dev.horizon.kit.manifest;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Which team pays for each queue, for clusters whose queues are not team names. Read from a YAML file with one map,
 * {@code queues: {QUEUE: TEAM, NAMESPACE/QUEUE: TEAM}}; a namespaced key wins over a bare one, since Kueue's
 * LocalQueues of one name live in many namespaces. A queue the file does not list is its own team.
 */
public record QueueTeams(Map<String, String> teams) {
    public static final QueueTeams NONE = new QueueTeams(Map.of());
    private static final String FORM = "the file has one map, queues: {QUEUE: TEAM}";

    public QueueTeams {
        teams = Map.copyOf(teams);
    }

    public String teamOf(String namespace, String queue) {
        return teams.getOrDefault(namespace + "/" + queue, teams.getOrDefault(queue, queue));
    }

    /** Reads the file; a problem is one line naming the key and the form expected. */
    public static QueueTeams read(Path file) {
        JsonNode doc = ManifestFile.yamlObjects(ManifestFile.text(file)).get(0);
        Map<String, String> teams = new LinkedHashMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = doc.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> top = it.next();
            if (!top.getKey().equals("queues")) throw new ManifestException(top.getKey() + ": unknown field; " + FORM);
            if (!top.getValue().isObject()) throw new ManifestException("queues: must be a map of QUEUE: TEAM; " + FORM);
            for (Iterator<Map.Entry<String, JsonNode>> q = top.getValue().fields(); q.hasNext(); ) {
                Map.Entry<String, JsonNode> entry = q.next();
                if (!entry.getValue().isTextual() || entry.getValue().asText().isBlank()) {
                    throw new ManifestException("queues[" + entry.getKey() + "]: must be a team name, got " + entry.getValue());
                }
                teams.put(entry.getKey(), entry.getValue().asText().trim());
            }
        }
        return new QueueTeams(teams);
    }
}
