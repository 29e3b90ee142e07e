package dev.horizon.baseline;

import dev.horizon.allocator.PlanningContext;
import java.util.LinkedHashMap;
import java.util.Map;

/** The references' baseline for inference: each service holds its historical daily peak, all day. */
final class PeakReservation {
    private PeakReservation() {
    }

    static Map<String, Integer> of(PlanningContext ctx) {
        Map<String, Integer> out = new LinkedHashMap<>();
        ctx.services().forEach((name, view) -> out.put(name, view.historicalPeakGpus()));
        return out;
    }

    /** GPUs left to batch work once every service holds its peak. */
    static int batchPartition(PlanningContext ctx) {
        int reserved = ctx.services().values().stream().mapToInt(PlanningContext.ServiceView::historicalPeakGpus).sum();
        return ctx.cluster().totalGpus() - reserved;
    }
}
