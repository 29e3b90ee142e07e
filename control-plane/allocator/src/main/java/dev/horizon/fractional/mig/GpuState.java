package dev.horizon.fractional.mig;

import dev.horizon.api.mig.MigLayout;

/** One GPU as the planner sees it: its layout, how many tasks run on it, and whether it is being re-partitioned now. */
public record GpuState(String id, String model, MigLayout layout, int runningTasks, boolean reconfiguring) {
    public boolean idle() {
        return runningTasks == 0 && !reconfiguring;
    }
}
