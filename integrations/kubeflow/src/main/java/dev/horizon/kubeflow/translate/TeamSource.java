package dev.horizon.kubeflow.translate;

import java.util.Arrays;
import java.util.Locale;

/** Where a job's team (whose GPU budget pays for it) is read from; tried in the configured order. */
public enum TeamSource {
    /** Kueue's LocalQueue label, so clusters moving from Kueue keep their queues as teams. */
    QUEUE_LABEL,
    /** runPolicy.schedulingPolicy.queue of the training-operator jobs (Volcano's queue). */
    SCHEDULING_QUEUE,
    /** The job's namespace, for clusters with one namespace per team. */
    NAMESPACE;

    public String flag() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    public static TeamSource ofFlag(String flag) {
        return Arrays.stream(values()).filter(s -> s.flag().equals(flag)).findFirst().orElseThrow(() -> new IllegalArgumentException(
                "'" + flag + "' is not a team source; use one or more of " + Arrays.stream(values()).map(TeamSource::flag).toList()));
    }
}
