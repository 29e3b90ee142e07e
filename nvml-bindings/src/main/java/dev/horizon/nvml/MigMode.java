package dev.horizon.nvml;

/** MIG mode now, and after the next GPU reset (a change is pending while they differ). */
public record MigMode(boolean current, boolean pending) {
    public boolean changePending() {
        return current != pending;
    }
}
