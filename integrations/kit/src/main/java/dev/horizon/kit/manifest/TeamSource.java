package dev.horizon.kit.manifest;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * Where a workload's team (whose GPU budget pays for it) is read from. The queue sources are the queue labels of the
 * schedulers users come from, so their queues keep naming who pays; each is read from the labels, then the
 * annotations (Volcano's pods carry theirs as an annotation).
 */
public enum TeamSource {
    /** Kueue's LocalQueue label. */
    KUEUE("kueue.x-k8s.io/queue-name"),
    /** KAI Scheduler's queue label. */
    KAI("kai.scheduler/queue"),
    /** Volcano's queue, and the label KubeRay's Volcano integration reads. */
    VOLCANO("scheduling.volcano.sh/queue-name", "volcano.sh/queue-name"),
    /** Apache YuniKorn's queue label. */
    YUNIKORN("yunikorn.apache.org/queue"),
    /** Every queue label above, in that order: the first one present. */
    QUEUE_LABEL,
    /** runPolicy.schedulingPolicy.queue of the Kubeflow training-operator and mpi-operator jobs, and a Volcano Job's spec.queue. */
    SCHEDULING_QUEUE,
    /** The workload's namespace, for clusters with one namespace per team. */
    NAMESPACE;

    /** The order {@link #QUEUE_LABEL} tries. */
    public static final List<TeamSource> QUEUE_LABELS = List.of(KUEUE, KAI, VOLCANO, YUNIKORN);

    private final List<String> keys;

    TeamSource(String... keys) {
        this.keys = List.of(keys);
    }

    /** The label (and annotation) keys a queue source reads; empty for the others. */
    public List<String> keys() {
        return keys;
    }

    /** Whether the value read is a queue (which a queue-to-team file may map), not a namespace. */
    public boolean isQueue() {
        return this != NAMESPACE;
    }

    /** The name on the command line and in HORIZON_TEAM_FROM. */
    public String flag() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    public static TeamSource ofFlag(String flag) {
        return Arrays.stream(values()).filter(s -> s.flag().equals(flag)).findFirst().orElseThrow(() -> new ManifestException(
                "'" + flag + "' is not a team source; use one or more of " + flags()));
    }

    /** A comma-separated list of flags, first match wins ("kai,namespace"). */
    public static List<TeamSource> ofFlags(String flags) {
        return Arrays.stream(flags.split(",")).map(String::trim).map(TeamSource::ofFlag).toList();
    }

    public static List<String> flags() {
        List<TeamSource> order = List.of(QUEUE_LABEL, KUEUE, KAI, VOLCANO, YUNIKORN, SCHEDULING_QUEUE, NAMESPACE);
        return order.stream().map(TeamSource::flag).toList();
    }
}
