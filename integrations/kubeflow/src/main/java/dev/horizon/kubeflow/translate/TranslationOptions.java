package dev.horizon.kubeflow.translate;

import dev.horizon.kit.manifest.GpuModelTable;
import dev.horizon.kit.manifest.TeamRule;
import java.util.Map;

/**
 * How manifests map onto Horizon's teams and priorities.
 *
 * @param teams            the rule every adapter names the team by (sources in order, queues mapped to teams)
 * @param defaultNamespace the namespace of a manifest that names none (as kubectl would apply it)
 * @param priorityClasses  Horizon priority for each Kubernetes priority class name in schedulingPolicy.priorityClass;
 *                         a class not listed leaves the job at the default priority
 * @param gpuModels        the GPU models each node label value pins, for the jobs' gpuTypes
 */
public record TranslationOptions(TeamRule teams, String defaultNamespace, Map<String, Integer> priorityClasses, GpuModelTable gpuModels) {
    public TranslationOptions {
        priorityClasses = Map.copyOf(priorityClasses);
    }

    /** With the shipped GPU model table. */
    public TranslationOptions(TeamRule teams, String defaultNamespace, Map<String, Integer> priorityClasses) {
        this(teams, defaultNamespace, priorityClasses, GpuModelTable.defaults());
    }

    public static TranslationOptions defaults() {
        return new TranslationOptions(TeamRule.defaults(), "default", Map.of());
    }
}
