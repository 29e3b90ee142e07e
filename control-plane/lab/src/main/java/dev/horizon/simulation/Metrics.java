package dev.horizon.simulation;

import dev.horizon.fairshare.FairShareLedger;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** The design's metrics, computed only from segments and (service, step) records, as a reader of the CSVs would. */
public final class Metrics {
    private Metrics() {
    }

    static PolicyMetrics compute(Scenario scenario, List<Segment> segments, List<RtMinute> rt, int completed,
                                 Map<String, Long> firstStart, int preemptions, List<Double> latencies, FairShareLedger ledger) {
        double window = scenario.windowSeconds();
        double capacity = scenario.cluster().totalGpus() * window;
        double busy = 0, output = 0, lost = 0, occupied = 0;
        // utilization counts GPU-time held by work that was kept (a slice on a whole GPU holds the GPU); output counts what
        // the work asked for (the slice); a run lost to a preemption (or the checkpoint it cost) is reported as lostGpuHours
        for (Segment s : segments) {
            if (!s.started()) continue;
            busy += s.heldGpus() * s.keptSeconds();
            occupied += s.heldGpus() * (s.endSeconds() - s.startSeconds());
            output += s.weight() * s.gpus() * s.keptSeconds() / 3600.0;
            lost += s.gpus() * (double) (s.endSeconds() - s.startSeconds() - s.keptSeconds()) / 3600.0;
        }
        int met = 0;
        for (RtMinute r : rt) {
            busy += r.servedGpuSeconds();
            output += r.weightPerGpuHour() * r.servedGpuSeconds() / 3600.0;
            if (r.met()) met++;
        }
        Map<String, Long> arrival = new HashMap<>();
        Map<String, String> cls = new HashMap<>();
        List<Double> wide = new java.util.ArrayList<>();
        for (SimJob j : scenario.jobs()) {
            arrival.put(j.id(), j.arrivalSeconds());
            cls.put(j.id(), j.jobClass().name());
            if (j.gpus() >= PolicyMetrics.WIDE_JOB_GPUS && j.slice() == null) {
                wide.add((double) firstStart.getOrDefault(j.id(), scenario.windowSeconds()) - j.arrivalSeconds());
            }
        }
        double[] waits = new double[arrival.size()];
        Map<String, List<Double>> byClass = new TreeMap<>();
        int i = 0;
        for (Map.Entry<String, Long> e : arrival.entrySet()) {
            Long start = firstStart.get(e.getKey());
            double wait = (start != null ? start : scenario.windowSeconds()) - e.getValue();
            waits[i++] = wait;
            byClass.computeIfAbsent(cls.get(e.getKey()), k -> new java.util.ArrayList<>()).add(wait);
        }
        Map<String, PolicyMetrics.Percentiles> waitsByClass = new TreeMap<>();
        byClass.forEach((k, v) -> waitsByClass.put(k, PolicyMetrics.Percentiles.of(v.stream().mapToDouble(Double::doubleValue).toArray())));
        PolicyMetrics.FairShare fairShare = ledger == null ? null : new PolicyMetrics.FairShare(ledger.owedDelivered(), ledger.unallocatedShare());
        return new PolicyMetrics(busy / capacity, output, rt.isEmpty() ? 1.0 : met / (double) rt.size(), completed,
                firstStart.size(), arrival.size(), preemptions, PolicyMetrics.Percentiles.of(waits), waitsByClass,
                PolicyMetrics.Percentiles.of(latencies.stream().mapToDouble(Double::doubleValue).toArray()),
                occupied / capacity, lost, fairShare, wide.size(), PolicyMetrics.Percentiles.of(wide.stream().mapToDouble(Double::doubleValue).toArray()));
    }

    /** Share of the cluster busy in each step (all running work, lost or kept, plus inference at the demand it served). */
    static double[] utilizationPerStep(Scenario scenario, List<Segment> segments, List<RtMinute> rt) {
        int steps = scenario.windowSteps();
        long step = scenario.stepSeconds();
        double[] busy = new double[steps];
        for (Segment s : segments) {
            if (!s.started()) continue;
            for (long k = s.startSeconds() / step; k < steps && k * step < s.endSeconds(); k++) {
                long a = Math.max(s.startSeconds(), k * step), b = Math.min(s.endSeconds(), (k + 1) * step);
                busy[(int) k] += s.heldGpus() * (b - a);
            }
        }
        for (RtMinute r : rt) busy[(int) (r.startSeconds() / step)] += r.servedGpuSeconds();
        double per = scenario.cluster().totalGpus() * (double) step;
        for (int k = 0; k < steps; k++) busy[k] /= per;
        return busy;
    }
}
