package dev.horizon.kubeflow.translate;

import java.util.List;
import java.util.Map;

/**
 * How manifests map onto Horizon's teams and priorities.
 *
 * @param teamSources      where the team is read from, first match wins
 * @param defaultNamespace the namespace of a manifest that names none (as kubectl would apply it)
 * @param priorityClasses  Horizon priority for each Kubernetes priority class name in schedulingPolicy.priorityClass;
 *                         a class not listed leaves the job at the default priority
 */
public record TranslationOptions(List<TeamSource> teamSources, String defaultNamespace, Map<String, Integer> priorityClasses) {
    public TranslationOptions {
        if (teamSources.isEmpty()) throw new IllegalArgumentException("give at least one team source");
        teamSources = List.copyOf(teamSources);
        priorityClasses = Map.copyOf(priorityClasses);
    }

    public static TranslationOptions defaults() {
        return new TranslationOptions(List.of(TeamSource.QUEUE_LABEL, TeamSource.SCHEDULING_QUEUE, TeamSource.NAMESPACE), "default", Map.of());
    }
}
