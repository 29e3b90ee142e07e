package dev.horizon.nvml;

/** Slices start..start+size-1: memory slices for a GPU instance, compute slices inside it for a compute instance. */
public record MigPlacement(int start, int size) {
    @Override
    public String toString() {
        return start + ":" + size;
    }
}
