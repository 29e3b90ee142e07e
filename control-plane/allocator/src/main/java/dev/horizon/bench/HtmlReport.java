package dev.horizon.bench;

import dev.horizon.simulation.PolicyMetrics;
import dev.horizon.simulation.RtStep;
import dev.horizon.simulation.SimResult;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** A self-contained HTML report with inline SVG charts (no scripts, nothing fetched). */
final class HtmlReport {
    private static final String[] COLORS = {"#888888", "#e69f00", "#56b4e9", "#d62728", "#009e73", "#cc79a7"};
    private static final int W = 900, H = 260, PAD = 40;

    private HtmlReport() {
    }

    static String render(BenchCommand.Outcome o) {
        StringBuilder b = new StringBuilder();
        b.append("<!doctype html><html><head><meta charset='utf-8'><title>Horizon bench: ").append(esc(o.scenario().name()))
                .append("</title><style>body{font-family:sans-serif;margin:2em;max-width:960px}table{border-collapse:collapse}"
                        + "td,th{border:1px solid #ccc;padding:4px 8px;text-align:right}th{background:#f4f4f4}.l{text-align:left}</style></head><body>");
        b.append("<h1>Horizon bench: ").append(esc(o.scenario().name())).append("</h1><p>");
        o.scenario().description().forEach((k, v) -> b.append(esc(k)).append(": <b>").append(esc(String.valueOf(v))).append("</b>; "));
        b.append("</p><h2>Metrics</h2><table><tr><th class=l>policy</th><th>utilization</th><th>priority-weighted output</th><th>share of bound</th>"
                + "<th>rtSloAttainment</th><th>jobs completed</th><th>preemptions</th><th>wait p50 s</th><th>wait p95 s</th><th>decision p99 ms</th></tr>");
        b.append(String.format("<tr><td class=l>upper bound</td><td>%.3f</td><td>%.1f</td><td>1.00</td><td>1.000</td><td></td><td></td><td></td><td></td><td></td></tr>",
                o.bound().utilization(), o.bound().priorityWeightedOutput()));
        for (SimResult r : o.results().values()) {
            PolicyMetrics m = r.metrics();
            b.append(String.format("<tr><td class=l>%s</td><td>%.3f</td><td>%.1f</td><td>%.2f</td><td>%.3f</td><td>%d</td><td>%d</td><td>%.0f</td><td>%.0f</td><td>%.2f</td></tr>",
                    esc(r.policy()), m.utilization(), m.priorityWeightedOutput(), m.priorityWeightedOutput() / o.bound().priorityWeightedOutput(),
                    m.rtSloAttainment(), m.jobsCompleted(), m.preemptions(), m.waitSeconds().p50(), m.waitSeconds().p95(), m.decisionLatencyMs().p99()));
        }
        b.append("</table>");

        b.append("<h2>Utilization over time</h2>");
        List<String> names = new ArrayList<>();
        List<double[]> series = new ArrayList<>();
        for (SimResult r : o.results().values()) {
            names.add(r.policy());
            series.add(r.utilizationPerStep());
        }
        b.append(chart(names, series, 1.0, "share of GPUs busy"));

        b.append("<h2>Inference demand vs GPUs held</h2>");
        List<String> rtNames = new ArrayList<>();
        List<double[]> rtSeries = new ArrayList<>();
        double max = 1;
        boolean demandAdded = false;
        for (SimResult r : o.results().values()) {
            if (r.rtSteps().isEmpty()) continue;
            double[] demand = new double[o.scenario().windowSteps()];
            double[] held = new double[demand.length];
            for (RtStep s : r.rtSteps()) {
                int k = (int) (s.stepStartSeconds() / o.scenario().stepSeconds());
                demand[k] += s.demandGpus();
                held[k] += s.allocatedGpus();
            }
            if (!demandAdded) {
                rtNames.add("demand");
                rtSeries.add(demand);
                demandAdded = true;
            }
            rtNames.add(r.policy() + " held");
            rtSeries.add(held);
            for (double v : held) max = Math.max(max, v);
            for (double v : demand) max = Math.max(max, v);
        }
        b.append(rtSeries.isEmpty() ? "<p>No inference services in this scenario.</p>" : chart(rtNames, rtSeries, max, "GPUs"));

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
        b.append("</table></body></html>\n");
        return b.toString();
    }

    private static String chart(List<String> names, List<double[]> series, double max, String yLabel) {
        StringBuilder b = new StringBuilder();
        b.append("<svg width='").append(W).append("' height='").append(H + 30).append("' xmlns='http://www.w3.org/2000/svg'>");
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
            b.append(String.format("<rect x='%d' y='%d' width='12' height='12' fill='%s'/><text x='%d' y='%d' font-size='12'>%s</text>",
                    PAD + i * 140, H + 5, color, PAD + i * 140 + 16, H + 15, esc(names.get(i))));
        }
        b.append("</svg>");
        return b.toString();
    }

    private static String esc(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("'", "&#39;");
    }
}
