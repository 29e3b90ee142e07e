package dev.horizon.simulation;

import java.util.Map;

/**
 * The design's metrics for one policy's run (same names in the simulator, service and dashboard).
 * utilization counts GPU-time whose work was kept (plus inference at the demand it served);
 * occupancy counts every GPU-second batch work held, as Ai2 measures it; the difference is
 * lostGpuHours (runs lost to preemption and checkpoint time). wideJobWaitSeconds: waits of the jobs of
 * {@link #WIDE_JOB_GPUS} GPUs or more (a job still waiting at the end counts its wait until then).
 */
public record PolicyMetrics(double utilization, double priorityWeightedOutput, double rtSloAttainment, int jobsCompleted,
                            int jobsStarted, int jobsArrived, int preemptions, Percentiles waitSeconds,
                            Map<String, Percentiles> waitSecondsByClass, Percentiles decisionLatencyMs,
                            double occupancy, double lostGpuHours, FairShare fairShare, int wideJobs, Percentiles wideJobWaitSeconds) {
    /** Jobs this wide or wider are the ones a greedy scheduler starves or fragments: their waits are reported apart. */
    public static final int WIDE_JOB_GPUS = 16;

    /** Fair-share figures (null for scenarios without budgets). */
    public record FairShare(Map<String, Double> owedGpuHoursDelivered, double unallocatedShare) {
        public double worstTeam() {
            Map.Entry<String, Double> worst = worstServed();
            return worst == null ? 1.0 : worst.getValue();
        }

        /** The team its budget served least and what share of its owed GPU-hours it got; null when no team is owed any. */
        public Map.Entry<String, Double> worstServed() {
            return owedGpuHoursDelivered.entrySet().stream().min(Map.Entry.comparingByValue()).orElse(null);
        }
    }

    public record Percentiles(double p50, double p90, double p95, double p99) {
        public static Percentiles of(double[] values) {
            if (values.length == 0) return new Percentiles(0, 0, 0, 0);
            double[] v = values.clone();
            java.util.Arrays.sort(v);
            return new Percentiles(at(v, 0.50), at(v, 0.90), at(v, 0.95), at(v, 0.99));
        }

        private static double at(double[] sorted, double q) {
            int i = (int) Math.ceil(q * sorted.length) - 1;
            return sorted[Math.max(0, Math.min(sorted.length - 1, i))];
        }
    }
}
