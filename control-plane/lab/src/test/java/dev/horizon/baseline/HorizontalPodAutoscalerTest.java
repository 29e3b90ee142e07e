package dev.horizon.baseline;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.horizon.allocator.PlanningContext;
import dev.horizon.allocator.model.InferenceService;
import org.junit.jupiter.api.Test;

/** The HPA's algorithm with its defaults: scale up at once, down only after 300 s, nothing inside the 0.1 tolerance. */
class HorizontalPodAutoscalerTest {
    private static final InferenceService SVC = new InferenceService("svc", "s", 4, 8);

    private static PlanningContext.ServiceView view(int held, double lastMinute) {
        return new PlanningContext.ServiceView(SVC, held, 0, new double[96], 0, new double[] {0, lastMinute});
    }

    @Test
    void scalesUpAtOnceToTheTargetUtilization() {
        HorizontalPodAutoscaler hpa = new HorizontalPodAutoscaler(HpaSettings.DEFAULT);
        assertEquals(6, hpa.replicas("svc", view(2, 4.0), 0), "4 GPUs busy at a 0.7 target need ceil(4 / 0.7) = 6");
    }

    @Test
    void scalesDownOnlyOnceTheStabilizationWindowHasPassed() {
        HorizontalPodAutoscaler hpa = new HorizontalPodAutoscaler(HpaSettings.DEFAULT);
        assertEquals(6, hpa.replicas("svc", view(2, 4.0), 0));
        for (long t = 60; t <= 300; t += 60) assertEquals(6, hpa.replicas("svc", view(6, 0.5), t), "t=" + t + ": within 300 s of the 6");
        assertEquals(1, hpa.replicas("svc", view(6, 0.5), 360), "every recommendation of the last 300 s is 1");
    }

    @Test
    void keepsItsSizeInsideTheTolerance() {
        HorizontalPodAutoscaler hpa = new HorizontalPodAutoscaler(HpaSettings.DEFAULT);
        assertEquals(10, hpa.replicas("svc", view(10, 7.3), 0), "7.3 / 10 / 0.7 = 1.04 is within 0.1 of 1");
        assertEquals(12, new HorizontalPodAutoscaler(HpaSettings.DEFAULT).replicas("svc", view(10, 7.8), 0), "7.8 / 10 / 0.7 = 1.11 scales to ceil(11.1)");
    }
}
