package dev.horizon.allocator.actions;

import dev.horizon.allocator.PlanningContext;

/** The GPUs Horizon keeps for each inference service, step by step over the horizon. */
public final class InferenceReservation {
    static final double HEADROOM = 1.2;

    private InferenceReservation() {
    }

    /**
     * GPUs to reserve per step: the forecast with headroom (20% and one GPU: unused reservation is
     * lent as fill, so headroom costs little), raised early where a rise is steeper than the swap cap.
     */
    public static int[] path(PlanningContext.ServiceView view, int steps) {
        int[] r = new int[steps];
        for (int t = 0; t < steps; t++) r[t] = (int) Math.ceil(view.forecast()[t] * HEADROOM + 1 - 1e-9);
        int cap = Math.max(1, view.service().swapCapGpus());
        for (int t = steps - 2; t >= 0; t--) r[t] = Math.max(r[t], r[t + 1] - cap);
        return r;
    }
}
