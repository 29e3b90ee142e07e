package dev.horizon.allocator.model;

import dev.horizon.api.MigProfiles;

/**
 * What one replica of fractional work holds of one GPU: a MIG instance (migProfile at memory slice migStart) or a
 * time-slicing share (milli of the GPU's compute, memoryMiB of its memory).
 */
public record GpuShare(String migProfile, int migStart, int milli, long memoryMiB) {
    static final int MAX_REPLICAS = 64;

    public GpuShare {
        if (migProfile == null && (milli < 1 || milli > 1000 || memoryMiB < 1)) {
            throw new IllegalArgumentException("a time-slicing share needs 1..1000 milli-GPU and memoryMiB >= 1 (got " + milli + ", " + memoryMiB + ")");
        }
    }

    public static GpuShare mig(String profile, int start) {
        return new GpuShare(profile, start, 0, 0);
    }

    public static GpuShare timeSlice(int milli, long memoryMiB) {
        return new GpuShare(null, 0, milli, memoryMiB);
    }

    public boolean isMig() {
        return migProfile != null;
    }

    /** The share's size in GPUs: a MIG instance by its compute slices of 7, a time-slice by its milli-GPU. */
    public double gpuFraction() {
        return isMig() ? MigProfiles.gpuFraction(migProfile) : milli / 1000.0;
    }

    /**
     * The time-slicing replicas that give this share its part of a GPU: 1000 / milli, at least 2 and at most 64 (the
     * device plugin's and the agent's bounds). Where one sharing config covers a whole node (the device plugin), every
     * share of the node must have the same count.
     */
    public int timeSlicingReplicas() {
        if (isMig()) throw new IllegalStateException("a MIG instance is not time-sliced");
        return Math.max(2, Math.min(MAX_REPLICAS, 1000 / milli));
    }

    /** "3g.40gb@4" or "500m/20000MiB": the form placements are stored in. */
    public String describe() {
        return isMig() ? migProfile + "@" + migStart : milli + "m/" + memoryMiB + "MiB";
    }

    /** The inverse of {@link #describe()}, or null when the text is not a share. */
    public static GpuShare parse(String text) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("(\\d+)m/(\\d+)MiB").matcher(text);
        if (m.matches()) return timeSlice(Integer.parseInt(m.group(1)), Long.parseLong(m.group(2)));
        int at = text.lastIndexOf('@');
        if (at < 1 || !MigProfiles.isKnown(text.substring(0, at)) || !text.substring(at + 1).matches("\\d")) return null;
        return mig(text.substring(0, at), Integer.parseInt(text.substring(at + 1)));
    }
}
