package dev.horizon.service.mig;

import dev.horizon.api.Limits;
import dev.horizon.api.mig.MigGeometry;
import dev.horizon.api.mig.MigProfile;
import dev.horizon.fractional.mig.MigPolicy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;

/**
 * A MIG policy as the API reads and writes it (the pool comes from the path). {@link #problems()} names each bad
 * field with the valid choices; only a body without problems becomes a {@link MigPolicy}, whose own check then holds.
 */
public record MigPolicyBody(Set<String> partitionableModels, Set<String> allowedProfiles, String layout, Long drainTimeSeconds,
                            Integer maxConcurrentReconfigurations) {
    public static final String EXAMPLE = "{\"partitionableModels\":[\"H100-80GB\"],\"allowedProfiles\":[\"1g.10gb\",\"3g.40gb\"],"
            + "\"layout\":\"DYNAMIC\",\"drainTimeSeconds\":300,\"maxConcurrentReconfigurations\":2}";
    /** A drain longer than a day leaves a GPU idle for longer than any plan looks ahead. */
    private static final long MAX_DRAIN_SECONDS = 86_400;
    /** More entries than there are MIG models or profiles cannot all be valid; the store keeps a policy in 4000 characters. */
    private static final int MAX_ENTRIES = 32;

    public List<String> problems() {
        List<String> problems = new ArrayList<>();
        for (var list : List.of(java.util.Map.entry("partitionableModels", partitionableModels == null ? Set.<String>of() : partitionableModels),
                java.util.Map.entry("allowedProfiles", allowedProfiles == null ? Set.<String>of() : allowedProfiles))) {
            if (list.getValue().size() > MAX_ENTRIES) problems.add(list.getKey() + ": " + list.getValue().size() + " entries; the limit is " + MAX_ENTRIES);
        }
        if (!problems.isEmpty()) return problems;
        if (partitionableModels == null || partitionableModels.isEmpty()) {
            problems.add("partitionableModels: required, at least one of " + MigGeometry.models());
        } else {
            for (String m : partitionableModels) {
                if (!MigGeometry.supportsMig(m)) problems.add("partitionableModels: " + Limits.quote(m) + " has no MIG; use models from " + MigGeometry.models());
            }
        }
        Set<String> offered = offeredProfiles();
        if (allowedProfiles == null || allowedProfiles.isEmpty()) {
            problems.add("allowedProfiles: required, at least one profile of the partitionable models " + offered);
        } else if (partitionableModels != null && !partitionableModels.isEmpty()) {
            for (String p : allowedProfiles) {
                if (!offered.contains(p)) problems.add("allowedProfiles: unknown MIG profile " + Limits.quote(p) + " for " + Limits.quote(partitionableModels) + "; use one of "
                        + offered);
            }
        }
        if (layout == null || !Set.of("FIXED", "DYNAMIC").contains(layout.toUpperCase(Locale.ROOT))) {
            problems.add("layout: one of FIXED (the admin's layout stays) or DYNAMIC (the planner re-partitions idle GPUs) (got " + Limits.quote(layout) + ")");
        }
        if (drainTimeSeconds == null || drainTimeSeconds < 0 || drainTimeSeconds > MAX_DRAIN_SECONDS) {
            problems.add("drainTimeSeconds: required, 0 to " + MAX_DRAIN_SECONDS + " seconds a GPU drains before it is re-partitioned (got "
                    + drainTimeSeconds + ")");
        }
        if (maxConcurrentReconfigurations == null || maxConcurrentReconfigurations < 1) {
            problems.add("maxConcurrentReconfigurations: required, at least 1 GPU reconfiguring at once (got " + maxConcurrentReconfigurations + ")");
        }
        return problems;
    }

    /** Valid only once {@link #problems()} is empty. */
    public MigPolicy policy(String pool) {
        return new MigPolicy(pool, partitionableModels, allowedProfiles, MigPolicy.Layout.valueOf(layout.toUpperCase(Locale.ROOT)),
                Duration.ofSeconds(drainTimeSeconds), maxConcurrentReconfigurations);
    }

    /** What the API answers and the store keeps: the policy with its pool, sets sorted so the JSON is stable. */
    public record Stored(String pool, Set<String> partitionableModels, Set<String> allowedProfiles, String layout, long drainTimeSeconds,
                         int maxConcurrentReconfigurations) {
        public static Stored of(MigPolicy p) {
            return new Stored(p.nodePool(), new TreeSet<>(p.partitionableModels()), new TreeSet<>(p.allowedProfiles()), p.layout().name(),
                    p.drainTime().toSeconds(), p.maxConcurrentReconfigurations());
        }
    }

    private Set<String> offeredProfiles() {
        Set<String> out = new TreeSet<>();
        if (partitionableModels == null) return out;
        for (String m : partitionableModels) {
            if (MigGeometry.supportsMig(m)) MigGeometry.of(m).profiles().stream().map(MigProfile::name).forEach(out::add);
        }
        return out;
    }
}
