package dev.horizon.allocator.actions;

import dev.horizon.allocator.PlanningContext;

/** The GPUs Horizon keeps for each inference service, step by step over the horizon. */
public final class InferenceReservation {
    private InferenceReservation() {
    }

    /**
     * GPUs to reserve per step: the forecast, rounded up, raised early where a rise is steeper than the swap cap. No
     * headroom: the forecast is already the busiest minute of each step's slot over the last week, and what the
     * reservation keeps from protected work runs only resumable fill (issue 34: 20% and one GPU more cost 0.7-1.8% of
     * output on three Philly windows and met no more minutes).
     */
    public static int[] path(PlanningContext.ServiceView view, int steps) {
        int[] r = new int[steps];
        for (int t = 0; t < steps; t++) r[t] = (int) Math.ceil(view.forecast()[t] - 1e-9);
        int cap = Math.max(1, view.service().swapCapGpus());
        for (int t = steps - 2; t >= 0; t--) r[t] = Math.max(r[t], r[t + 1] - cap);
        return r;
    }
}
