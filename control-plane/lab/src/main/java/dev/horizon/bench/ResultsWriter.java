package dev.horizon.bench;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.horizon.allocator.eta.StartBands;
import dev.horizon.api.JobJson;
import dev.horizon.simulation.RtMinute;
import dev.horizon.simulation.Audit;
import dev.horizon.simulation.CalibratedOdds;
import dev.horizon.simulation.EtaCalibration;
import dev.horizon.simulation.Segment;
import dev.horizon.simulation.ServiceDemand;
import dev.horizon.simulation.SimResult;
import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Writes results.json, schedule.csv, rt.csv and report.html for one bench run. */
final class ResultsWriter {
    private ResultsWriter() {
    }

    static void write(BenchCommand.Outcome o, Path dir) throws IOException {
        write(o, dir, null);
    }

    /** interval95: each ratio's mean and interval over jittered repeats (null: one run). */
    static void write(BenchCommand.Outcome o, Path dir, ObjectNode interval95) throws IOException {
        ObjectNode root = JobJson.mapper().createObjectNode();
        ObjectNode scenario = JobJson.mapper().valueToTree(o.scenario().description());
        scenario.put("rtSloResolutionSeconds", ServiceDemand.SECONDS_PER_MINUTE);
        scenario.put("reclaimSeconds", o.reclaimSeconds());
        scenario.put("engine", o.engine());
        if (Double.isNaN(o.sloTarget())) scenario.put("sloTarget", "off");
        else scenario.put("sloTarget", o.sloTarget());
        root.set("scenario", scenario);
        ObjectNode bound = root.putObject("upperBound");
        bound.put("priorityWeightedOutput", o.bound().priorityWeightedOutput());
        bound.put("utilization", o.bound().utilization());
        ObjectNode policies = root.putObject("policies");
        o.results().forEach((name, r) -> {
            ObjectNode m = BenchCommand.metricsJson(r.metrics());
            m.set("audit", auditJson(r.audit()));
            EtaCalibration.Report eta = o.eta().get(name);
            if (eta != null) m.set("eta", etaJson(eta));
            SloCalibration.Choice knob = o.knobs().get(name);
            if (knob != null) {
                m.set("inferenceKnob", knob.knob().json());
                m.putObject("dayBefore").put("rtSloAttainment", knob.dayBeforeRtSloAttainment()).put("inferenceGpuHours", knob.dayBeforeGpuHours())
                        .put("metSloTarget", knob.metTarget()).put("settingsTried", knob.settingsTried());
            } else {
                m.putNull("inferenceKnob");
                m.putNull("dayBefore");
            }
            // the same run as the headline where the policy has no knob or its calibrated knob is its default
            m.set("untuned", BenchCommand.metricsJson(o.untuned().getOrDefault(name, r).metrics()));
            policies.set(name, m);
        });
        ObjectNode ratios = root.putObject("ratios");
        PeerRatios equal = PeerRatios.of(o.results(), o.bound().priorityWeightedOutput());
        PeerRatios untuned = PeerRatios.of(o.untuned(), o.bound().priorityWeightedOutput());
        if (equal != null && !o.knobs().isEmpty()) ratios.set("equalSlo", equal.json());
        if (untuned != null) ratios.set("untuned", untuned.json());
        if (interval95 != null) ratios.set("interval95", interval95);
        JobJson.mapper().writerWithDefaultPrettyPrinter().writeValue(dir.resolve("results.json").toFile(), root);

        try (BufferedWriter w = Files.newBufferedWriter(dir.resolve("schedule.csv"))) {
            w.write("policy,job,class,team,weight,arrival_s,start_s,end_s,gpus,node\n");
            for (SimResult r : o.results().values()) {
                for (Segment s : r.segments()) {
                    w.write(String.join(",", r.policy(), s.jobId(), s.jobClass().name(), s.team(), fmt(s.weight()),
                            Long.toString(s.arrivalSeconds()), s.started() ? Long.toString(s.startSeconds()) : "",
                            s.started() ? Long.toString(s.endSeconds()) : "", (s.gpus() == Math.rint(s.gpus()) ? Long.toString((long) s.gpus()) : String.format(java.util.Locale.ROOT, "%.4f", s.gpus())), s.nodes()));
                    w.write('\n');
                }
            }
        }
        try (BufferedWriter w = Files.newBufferedWriter(dir.resolve("rt.csv"))) {
            w.write("policy,service,minute_start_s,demand_gpus,held_gpus,serving_gpus,served_gpu_s\n");
            for (SimResult r : o.results().values()) {
                for (RtMinute s : r.rtMinutes()) {
                    w.write(r.policy() + "," + s.service() + "," + s.startSeconds() + "," + String.format(java.util.Locale.ROOT, "%.4f", s.demandGpus())
                            + "," + s.heldGpus() + "," + s.servingGpus() + "," + String.format(java.util.Locale.ROOT, "%.2f", s.servedGpuSeconds()) + "\n");
                }
            }
        }
        if (!o.eta().isEmpty()) writeEta(o, dir);
        Files.writeString(dir.resolve("report.html"), HtmlReport.render(o));
    }

    /**
     * eta.csv: each banded job's band as said at its first step, and when it really started; raw_starts_s holds the start
     * in every sampled future, earliest first, space-separated ("-": not within the horizon in that future).
     */
    private static void writeEta(BenchCommand.Outcome o, Path dir) throws IOException {
        try (BufferedWriter w = Files.newBufferedWriter(dir.resolve("eta.csv"))) {
            w.write("policy,job,band_at_s,arrival_s,planned_start_s,start_p50_s,start_p90_s,raw_p50_s,raw_p90_s,started_s,raw_starts_s\n");
            for (var e : o.eta().entrySet()) {
                for (EtaCalibration.Row r : e.getValue().rows()) {
                    w.write(String.join(",", e.getKey(), r.jobId(), Long.toString(r.at()), Long.toString(r.arrivalSeconds()), opt(r.plannedAt()),
                            opt(r.p50At()), opt(r.p90At()), opt(r.rawP50At()), opt(r.rawP90At()), opt(r.startedAt()), starts(r.raw())) + "\n");
                }
            }
        }
    }

    static ObjectNode auditJson(Audit.Report a) {
        ObjectNode n = JobJson.mapper().createObjectNode();
        n.put("violations", a.violations());
        ObjectNode byKind = n.putObject("byKind");
        new java.util.TreeMap<>(a.byKind()).forEach(byKind::put);
        ObjectNode exempt = n.putObject("exempt");
        new java.util.TreeMap<>(a.exempt()).forEach(exempt::put);
        a.examples().forEach(n.putArray("examples")::add);
        return n;
    }

    /** How well the policy's start-time bands came true (issue 19's figures) and the calibration chart's points. */
    private static ObjectNode etaJson(EtaCalibration.Report e) {
        ObjectNode n = JobJson.mapper().createObjectNode();
        n.put("jobs", e.jobs());
        n.put("coverageP50", e.coverageP50());
        n.put("coverageP90", e.coverageP90());
        n.put("medianAbsErrorSeconds", e.medianAbsErrorSeconds());
        n.put("medianWaitSeconds", e.medianWaitSeconds());
        n.put("bursts", e.bursts());
        n.putObject("likeArrivals").put("jobs", e.like().jobs()).put("coverageP50", e.like().coverageP50()).put("coverageP90", e.like().coverageP90());
        ObjectNode odds = n.putObject("calibratedOdds");
        oddsJson(odds.putObject("p50"), e.calibratedP50());
        oddsJson(odds.putObject("p90"), e.calibratedP90());
        var levels = n.putArray("byLevel");
        for (int i = 0; i < EtaCalibration.LEVELS.length; i++) {
            levels.addObject().put("level", EtaCalibration.LEVELS[i]).put("coverage", e.coverageByLevel()[i])
                    .put("rawCoverage", e.rawCoverageByLevel()[i]);
        }
        return n;
    }

    /** Where a perfectly calibrated band would put the window's coverage against the target: below, within, above. */
    private static void oddsJson(ObjectNode n, CalibratedOdds.Odds odds) {
        n.put("tooEarly", odds.tooEarly()).put("within", odds.within()).put("tooLate", odds.tooLate());
    }

    private static String starts(StartBands.Band b) {
        StringBuilder out = new StringBuilder();
        for (long v : b.starts()) out.append(out.isEmpty() ? "" : " ").append(v == Long.MAX_VALUE ? "-" : Long.toString(v));
        return out.toString();
    }

    private static String opt(Long v) {
        return v == null ? "" : v.toString();
    }

    private static String fmt(double v) {
        return v == Math.rint(v) ? Long.toString((long) v) : Double.toString(v);
    }
}
