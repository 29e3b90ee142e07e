package dev.horizon.kit.manifest;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The one rule every adapter names a workload's team by: the sources in order, first match wins (by default every
 * queue label, then runPolicy.schedulingPolicy.queue, then the namespace), queues mapped to teams by {@link QueueTeams}.
 */
public record TeamRule(List<TeamSource> sources, QueueTeams queues) {
    /** Volcano's Job names its queue in spec.queue, the queue a scheduling policy names elsewhere. */
    private static final String VOLCANO_GROUP = "batch.volcano.sh";
    public static final List<TeamSource> DEFAULT_SOURCES = List.of(TeamSource.QUEUE_LABEL, TeamSource.SCHEDULING_QUEUE, TeamSource.NAMESPACE);

    public TeamRule {
        if (sources.isEmpty()) throw new ManifestException("give at least one team source, one or more of " + TeamSource.flags());
        sources = List.copyOf(sources);
    }

    public static TeamRule defaults() {
        return new TeamRule(DEFAULT_SOURCES, QueueTeams.NONE);
    }

    /**
     * The rule a user configures: {@code sources} as flags ("kai,namespace"; null for the default) and the queue-to-team
     * file at {@code queueTeamsFile} (null for none). Each problem names the option or variable it came from.
     */
    public static TeamRule configured(String sources, String sourcesOption, String queueTeamsFile, String queueTeamsOption) {
        List<TeamSource> order;
        try {
            order = sources == null ? DEFAULT_SOURCES : TeamSource.ofFlags(sources);
        } catch (ManifestException e) {
            throw new ManifestException(sourcesOption + ": " + e.getMessage());
        }
        try {
            return new TeamRule(order, queueTeamsFile == null ? QueueTeams.NONE : QueueTeams.read(Path.of(queueTeamsFile)));
        } catch (ManifestException e) {
            throw new ManifestException(queueTeamsOption + " " + queueTeamsFile + ": " + e.getMessage());
        }
    }

    /** The team of the manifest, whose namespace (given or defaulted) is {@code namespace}. */
    public String team(JsonNode manifest, String namespace) {
        for (TeamSource source : expanded()) {
            String value = read(source, manifest, namespace);
            if (value != null && !value.isBlank()) return source.isQueue() ? queues.teamOf(namespace, value.trim()) : value.trim();
        }
        throw new ManifestException("no team: the workload has none of " + sources.stream().map(TeamSource::flag).toList() + "; label it "
                + TeamSource.KUEUE.keys().get(0) + ": QUEUE or allow the namespace as team source");
    }

    private List<TeamSource> expanded() {
        List<TeamSource> out = new ArrayList<>();
        for (TeamSource s : sources) {
            if (s == TeamSource.QUEUE_LABEL) out.addAll(TeamSource.QUEUE_LABELS);
            else out.add(s);
        }
        return out;
    }

    private static String read(TeamSource source, JsonNode manifest, String namespace) {
        return switch (source) {
            case NAMESPACE -> namespace;
            case SCHEDULING_QUEUE -> manifest.path("spec").path("runPolicy").path("schedulingPolicy").path("queue")
                    .asText(Manifests.group(manifest).equals(VOLCANO_GROUP) ? manifest.path("spec").path("queue").asText(null) : null);
            default -> source.keys().stream().map(key -> {
                String label = Manifests.label(manifest, key);
                return label != null ? label : Manifests.annotation(manifest, key);
            }).filter(v -> v != null && !v.isBlank()).findFirst().orElse(null);
        };
    }
}
