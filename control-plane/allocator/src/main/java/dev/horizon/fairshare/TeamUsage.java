package dev.horizon.fairshare;

/** A team's GPU-seconds held and owed over the sliding window. */
public record TeamUsage(double usedGpuSeconds, double owedGpuSeconds) {
    public static final TeamUsage NONE = new TeamUsage(0, 0);

    /** Occupancy / owed over the window (below 1: under-served); 1 for a team owed nothing. */
    public double ratio() {
        return owedGpuSeconds < 1e-9 ? 1.0 : usedGpuSeconds / owedGpuSeconds;
    }
}
