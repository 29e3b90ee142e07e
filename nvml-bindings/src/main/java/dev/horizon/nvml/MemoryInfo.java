package dev.horizon.nvml;

/**
 * Device memory in bytes. {@code usedBytes} is what allocations hold; {@code reservedBytes} is what
 * the driver and firmware keep for themselves (null when the driver only offers the v1 struct,
 * whose "used" includes it).
 */
public record MemoryInfo(long totalBytes, Long reservedBytes, long freeBytes, long usedBytes) {
    private static final long MIB = 1024L * 1024L;

    public long totalMiB() {
        return totalBytes / MIB;
    }

    public long usedMiB() {
        return usedBytes / MIB;
    }

    public long freeMiB() {
        return freeBytes / MIB;
    }
}
