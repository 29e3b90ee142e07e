package dev.horizon.bench;

import dev.horizon.allocator.eta.DurationDraws;
import dev.horizon.simulation.CalibratedOdds;
import dev.horizon.simulation.EtaCalibration;
import dev.horizon.simulation.PolicyMetrics;
import dev.horizon.simulation.RtMinute;
import dev.horizon.simulation.SimResult;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** A self-contained HTML report with inline SVG charts (no scripts, nothing fetched). */
final class HtmlReport {
    private static final String[] COLORS = {"#888888", "#e69f00", "#56b4e9", "#d62728", "#009e73", "#cc79a7", "#0072b2", "#f0e442"};
    private static final int W = 900, H = 260, PAD = 40;
    /** The inference chart shows this many minutes on each side of the busiest hour. */
    private static final int AROUND_BUSIEST_MINUTES = 60;

    private HtmlReport() {
    }

    static String render(BenchCommand.Outcome o) {
        StringBuilder b = new StringBuilder();
        b.append("<!doctype html><html><head><meta charset='utf-8'><title>Horizon bench: ").append(esc(o.scenario().name()))
                .append("</title><style>body{font-family:sans-serif;margin:2em;max-width:1100px}table{border-collapse:collapse}"
                        + "td,th{border:1px solid #ccc;padding:4px 8px;text-align:right}th{background:#f4f4f4}.l{text-align:left}"
                        + ".best{background:#fff4d6}</style></head><body>");
        b.append("<h1>Horizon bench: ").append(esc(o.scenario().name())).append("</h1><p>");
        o.scenario().description().forEach((k, v) -> b.append(esc(k)).append(": <b>").append(esc(String.valueOf(v))).append("</b>; "));
        b.append("inference scored per minute; reclaimed GPUs serve after <b>").append(o.reclaimSeconds()).append(" s</b></p>");
        metricsTable(o, b);

        b.append("<h2>Utilization over time</h2>");
        List<String> names = new ArrayList<>();
        List<double[]> series = new ArrayList<>();
        for (SimResult r : o.results().values()) {
            names.add(r.policy());
            series.add(r.utilizationPerStep());
        }
        b.append(chart(names, series, 1.0, "share of GPUs busy"));
        inferenceChart(o, b);
        waitsTable(o, b);
        if (!o.eta().isEmpty()) etaCalibration(o, b);
        b.append("</body></html>\n");
        return b.toString();
    }

    /** Policies by output, best first; the best baseline (any policy but Horizon) is marked. */
    private static void metricsTable(BenchCommand.Outcome o, StringBuilder b) {
        String best = BenchCommand.bestBaseline(o);
        b.append("<h2>Metrics</h2><p>Sorted by priority-weighted output; the best baseline is marked. Wide jobs ask for ")
                .append(PolicyMetrics.WIDE_JOB_GPUS).append(" GPUs or more.</p><table><tr><th class=l>policy</th><th>utilization</th>"
                        + "<th>priority-weighted output</th><th>share of bound</th><th>rtSloAttainment (per minute)</th><th>jobs completed</th>"
                        + "<th>preemptions</th><th>lost GPU-h</th><th>wide jobs</th><th>wide wait p50 s</th><th>wide wait p95 s</th>"
                        + "<th>wait p50 s</th><th>wait p95 s</th><th>audit violations</th><th>decision p99 ms</th></tr>");
        b.append(String.format("<tr><td class=l>upper bound</td><td>%.3f</td><td>%.1f</td><td>1.000</td><td>1.000</td>%s</tr>",
                o.bound().utilization(), o.bound().priorityWeightedOutput(), "<td></td>".repeat(10)));
        for (SimResult r : BenchCommand.byOutput(o)) {
            PolicyMetrics m = r.metrics();
            boolean isBest = r.policy().equals(best);
            b.append(String.format("<tr%s><td class=l>%s%s</td><td>%.3f</td><td>%.1f</td><td>%.3f</td><td>%.4f</td><td>%d</td><td>%d</td><td>%.1f</td>"
                            + "<td>%d</td><td>%.0f</td><td>%.0f</td><td>%.0f</td><td>%.0f</td><td>%d</td><td>%.2f</td></tr>",
                    isBest ? " class=best" : "", esc(r.policy()), isBest ? " (best baseline)" : "", m.utilization(), m.priorityWeightedOutput(),
                    m.priorityWeightedOutput() / o.bound().priorityWeightedOutput(), m.rtSloAttainment(), m.jobsCompleted(), m.preemptions(),
                    m.lostGpuHours(), m.wideJobs(), m.wideJobWaitSeconds().p50(), m.wideJobWaitSeconds().p95(), m.waitSeconds().p50(),
                    m.waitSeconds().p95(), r.audit().violations(), m.decisionLatencyMs().p99()));
        }
        b.append("</table>");
    }

    /** Demand and each policy's GPUs held, per minute, from an hour before the busiest hour of demand to an hour after. */
    private static void inferenceChart(BenchCommand.Outcome o, StringBuilder b) {
        b.append("<h2>Inference demand vs GPUs held, per minute, around the busiest hour</h2>");
        int minutes = o.scenario().windowMinutes();
        double[] demand = new double[minutes];
        SimResult first = o.results().values().stream().filter(r -> !r.rtMinutes().isEmpty()).findFirst().orElse(null);
        if (first == null) {
            b.append("<p>No inference services in this scenario.</p>");
            return;
        }
        for (RtMinute m : first.rtMinutes()) demand[(int) (m.startSeconds() / 60)] += m.demandGpus();
        int busiest = 0;
        double busiestSum = -1;
        for (int h = 0; h + 60 <= minutes; h += 60) {
            double sum = 0;
            for (int i = h; i < h + 60; i++) sum += demand[i];
            if (sum > busiestSum) {
                busiestSum = sum;
                busiest = h;
            }
        }
        int from = Math.max(0, busiest - AROUND_BUSIEST_MINUTES), to = Math.min(minutes, busiest + 60 + AROUND_BUSIEST_MINUTES);
        List<String> names = new ArrayList<>(List.of("demand"));
        List<double[]> series = new ArrayList<>(List.of(java.util.Arrays.copyOfRange(demand, from, to)));
        double max = 1;
        for (double v : series.get(0)) max = Math.max(max, v);
        for (SimResult r : o.results().values()) {
            double[] held = new double[to - from];
            for (RtMinute m : r.rtMinutes()) {
                int i = (int) (m.startSeconds() / 60);
                if (i >= from && i < to) held[i - from] += m.heldGpus();
            }
            for (double v : held) max = Math.max(max, v);
            names.add(r.policy() + " held");
            series.add(held);
        }
        b.append(String.format("<p>Minutes %d to %d of the window (the busiest hour starts at minute %d).</p>", from, to, busiest));
        b.append(chart(names, series, max, "GPUs"));
    }

    private static void waitsTable(BenchCommand.Outcome o, StringBuilder b) {
        b.append("<h2>Waits per class (seconds, p50 / p95)</h2><table><tr><th class=l>policy</th>");
        List<String> classes = new ArrayList<>();
        o.results().values().forEach(r -> r.metrics().waitSecondsByClass().keySet().forEach(c -> {
            if (!classes.contains(c)) classes.add(c);
        }));
        classes.forEach(c -> b.append("<th>").append(esc(c)).append("</th>"));
        b.append("</tr>");
        for (SimResult r : o.results().values()) {
            b.append("<tr><td class=l>").append(esc(r.policy())).append("</td>");
            Map<String, PolicyMetrics.Percentiles> w = r.metrics().waitSecondsByClass();
            for (String c : classes) {
                PolicyMetrics.Percentiles p = w.get(c);
                b.append("<td>").append(p == null ? "" : String.format("%.0f / %.0f", p.p50(), p.p95())).append("</td>");
            }
            b.append("</tr>");
        }
        b.append("</table>");
    }

    /**
     * The calibration chart: per quantile level, the share of banded jobs that started no later than that quantile of
     * their first band, calibrated and raw, drawn against the nominal level and tabled; a calibrated band lies on the
     * diagonal.
     */
    private static void etaCalibration(BenchCommand.Outcome o, StringBuilder b) {
        b.append("<h2>Start-time bands: calibration (share of jobs started by each quantile of their first band)</h2>")
                .append(calibrationChart(o)).append("<table><tr><th class=l>policy</th><th>jobs</th>");
        for (double l : EtaCalibration.LEVELS) b.append(String.format("<th>P%.0f</th>", l * 100));
        b.append("<th>median |start - P50| (s)</th><th>median wait (s)</th></tr>");
        o.eta().forEach((name, e) -> {
            for (boolean raw : new boolean[] {false, true}) {
                b.append("<tr><td class=l>").append(esc(name)).append(raw ? " (raw, before calibration)" : "").append("</td><td>")
                        .append(e.jobs()).append("</td>");
                for (double c : raw ? e.rawCoverageByLevel() : e.coverageByLevel()) b.append(String.format("<td>%.3f</td>", c));
                b.append(raw ? "<td></td><td></td>" : String.format("<td>%.0f</td><td>%.0f</td>", e.medianAbsErrorSeconds(), e.medianWaitSeconds()))
                        .append("</tr>");
            }
        });
        b.append("</table>");
        o.eta().forEach((name, e) -> b.append(String.format("<p>%s: the %d banded jobs came in %d bursts (one team, class and GPU count, arrivals"
                + " within %d minutes of one another). A perfectly calibrated band, each burst coming true or late as one, would put this"
                + " window's coverage %s and %s.</p>", esc(name), e.jobs(), e.bursts(), DurationDraws.BURST_GAP_SECONDS / 60,
                odds("P50", EtaCalibration.TARGET_P50, e.calibratedP50()), odds("P90", EtaCalibration.TARGET_P90, e.calibratedP90()))));
    }

    private static String odds(String level, CalibratedOdds.Target target, CalibratedOdds.Odds odds) {
        return String.format("at %s within %.2f to %.2f with odds %.2f (below it, too early, %.2f; above it, too late, %.2f)", level, target.low(),
                target.high(), odds.within(), odds.tooEarly(), odds.tooLate());
    }

    /** Coverage against nominal level, one solid line (calibrated) and one dashed (raw) per policy, over the diagonal. */
    private static String calibrationChart(BenchCommand.Outcome o) {
        int side = 300, left = PAD, top = 10, legendY = top + side + 48;
        StringBuilder b = new StringBuilder();
        b.append("<svg width='").append(left + side + 20).append("' height='").append(legendY + 18 * (2 * o.eta().size()))
                .append("' xmlns='http://www.w3.org/2000/svg'>");
        b.append(String.format("<rect x='%d' y='%d' width='%d' height='%d' fill='none' stroke='#000'/>", left, top, side, side));
        b.append(String.format("<line x1='%d' y1='%d' x2='%d' y2='%d' stroke='#bbb' stroke-dasharray='4 3'/>", left, top + side, left + side, top));
        for (int t = 0; t <= 10; t += 5) {
            double v = t / 10.0;
            b.append(String.format("<text x='%.0f' y='%d' font-size='11' text-anchor='middle'>%.1f</text>", left + side * v, top + side + 14, v));
            b.append(String.format("<text x='%d' y='%.0f' font-size='11' text-anchor='end'>%.1f</text>", left - 4, top + side * (1 - v) + 4, v));
        }
        b.append(String.format("<text x='%d' y='%d' font-size='11' text-anchor='middle'>nominal level</text>", left + side / 2, top + side + 30));
        b.append(String.format("<text x='12' y='%d' font-size='11' transform='rotate(-90 12 %d)' text-anchor='middle'>share started by it</text>",
                top + side / 2, top + side / 2));
        int i = 0, row = 0;
        for (var e : o.eta().entrySet()) {
            String color = COLORS[(i++ + 1) % COLORS.length];
            for (boolean raw : new boolean[] {false, true}) {
                double[] c = raw ? e.getValue().rawCoverageByLevel() : e.getValue().coverageByLevel();
                StringBuilder pts = new StringBuilder();
                for (int k = 0; k < c.length; k++) {
                    if (Double.isNaN(c[k])) continue;
                    double x = left + side * EtaCalibration.LEVELS[k], y = top + side * (1 - c[k]);
                    pts.append(String.format("%.1f,%.1f ", x, y));
                    if (!raw) b.append(String.format("<circle cx='%.1f' cy='%.1f' r='3' fill='%s'/>", x, y, color));
                }
                String dash = raw ? " stroke-dasharray='5 3'" : "";
                b.append("<polyline fill='none' stroke-width='1.5' stroke='").append(color).append("'").append(dash).append(" points='").append(pts).append("'/>");
                int y = legendY + 18 * row++;
                b.append(String.format("<line x1='%d' y1='%d' x2='%d' y2='%d' stroke='%s' stroke-width='1.5'%s/><text x='%d' y='%d' font-size='12'>%s</text>",
                        left, y - 4, left + 24, y - 4, color, dash, left + 30, y, esc(e.getKey() + (raw ? " raw" : " calibrated"))));
            }
        }
        return b.append("</svg>").toString();
    }

    private static String chart(List<String> names, List<double[]> series, double max, String yLabel) {
        StringBuilder b = new StringBuilder();
        int legendRows = (names.size() + 5) / 6;
        b.append("<svg width='").append(W).append("' height='").append(H + 12 + 18 * legendRows).append("' xmlns='http://www.w3.org/2000/svg'>");
        b.append(String.format("<line x1='%d' y1='%d' x2='%d' y2='%d' stroke='#000'/>", PAD, H - PAD, W - 10, H - PAD));
        b.append(String.format("<line x1='%d' y1='10' x2='%d' y2='%d' stroke='#000'/>", PAD, PAD, H - PAD));
        b.append(String.format("<text x='2' y='20' font-size='11'>%s</text><text x='%d' y='%d' font-size='11'>%.1f</text>", esc(yLabel), 4, 34, max));
        for (int i = 0; i < series.size(); i++) {
            double[] s = series.get(i);
            StringBuilder pts = new StringBuilder();
            for (int k = 0; k < s.length; k++) {
                double x = PAD + (W - PAD - 10) * (k / (double) Math.max(1, s.length - 1));
                double y = (H - PAD) - (H - PAD - 10) * Math.min(1.0, s[k] / max);
                pts.append(String.format("%.1f,%.1f ", x, y));
            }
            String color = COLORS[i % COLORS.length];
            b.append("<polyline fill='none' stroke-width='1.5' stroke='").append(color).append("' points='").append(pts).append("'/>");
            int x = PAD + (i % 6) * 140, y = H + 5 + 18 * (i / 6);
            b.append(String.format("<rect x='%d' y='%d' width='12' height='12' fill='%s'/><text x='%d' y='%d' font-size='12'>%s</text>",
                    x, y, color, x + 16, y + 10, esc(names.get(i))));
        }
        b.append("</svg>");
        return b.toString();
    }

    private static String esc(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("'", "&#39;");
    }
}
