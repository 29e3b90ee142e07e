package dev.horizon.demo;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.horizon.allocator.actions.Ranking;
import dev.horizon.bench.BenchPolicies;
import dev.horizon.simulation.PolicyMetrics;
import dev.horizon.simulation.SimResult;
import dev.horizon.simulation.Simulator;
import dev.horizon.trace.DemoDayScenario;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * What the same day gives in the simulator under FIFO, the baselines (KAI, Kueue, Slurm) and Horizon's own policy, stored
 * in the control plane (PUT /api/v1/comparisons/demo-day) for the web view to show beside the live figures. The best
 * baseline is the one with the highest priority-weighted output, as ./horizon bench picks it. It is first stored as
 * "computing" with the day's window on the control plane's clock, so the web view can show the day's progress and say
 * that the figures are on their way; the demo computes them while the day runs.
 */
final class Comparison {
    static final String NAME = "demo-day";
    private static final List<String> POLICIES = List.of("fifo", "kai", "kueue", "slurm", "horizon");

    private final DemoDayScenario.Day day;
    private final long from;
    private final long to;

    /** from, to: the replayed day on the control plane's clock, epoch seconds. */
    Comparison(DemoDayScenario.Day day, long from, long to) {
        this.day = day;
        this.from = from;
        this.to = to;
    }

    /** The comparison without figures yet: the day's window, and that the simulator is computing them. */
    void announce(ControlPlane cp, String admin) {
        cp.put("/api/v1/comparisons/" + NAME, about().put("computing", true), admin);
    }

    /** Runs the day under each policy in the simulator, stores the figures and answers one line per policy for the user. */
    List<String> store(ControlPlane cp, String admin) {
        List<SimResult> results = new ArrayList<>();
        for (String p : POLICIES) results.add(new Simulator(day.scenario(), BenchPolicies.create(p)).run(x -> { }));
        String best = results.stream().filter(r -> !r.policy().startsWith("horizon") && !r.policy().equals("fifo"))
                .max(Comparator.comparingDouble(r -> r.metrics().priorityWeightedOutput())).map(SimResult::policy).orElse(null);
        ObjectNode body = about();
        if (best != null) body.put("bestBaseline", best);
        List<String> lines = new ArrayList<>();
        ArrayNode policies = body.putArray("policies");
        for (SimResult r : results) {
            PolicyMetrics m = r.metrics();
            ObjectNode f = policies.addObject().put("policy", r.policy()).put("engine", "simulator").put("utilization", Math.min(1, m.utilization()))
                    .put("jobsCompleted", m.jobsCompleted()).put("jobsArrived", m.jobsArrived()).put("preemptions", m.preemptions())
                    .put("waitP50Seconds", m.waitSeconds().p50()).put("waitP95Seconds", m.waitSeconds().p95())
                    .put("rtSloAttainment", m.rtSloAttainment()).put("priorityWeightedOutput", m.priorityWeightedOutput());
            if (m.fairShare() != null) f.put("worstTeamOwedDelivered", Math.min(1, m.fairShare().worstTeam()));
            lines.add(line(r.policy(), m));
        }
        cp.put("/api/v1/comparisons/" + NAME, body, admin);
        return lines;
    }

    /** A policy's figures in the terminal; the p95 wait in minutes or hours, as the planner words a wait (34684 s is 9.6 h). */
    static String line(String policy, PolicyMetrics m) {
        return String.format("horizon demo:   %-8s utilization %.2f, %d of %d jobs done, wait p95 %s, output %.1f%s", policy, m.utilization(), m.jobsCompleted(),
                m.jobsArrived(), Ranking.minutes(Math.round(m.waitSeconds().p95())), m.priorityWeightedOutput(), worstServed(m.fairShare()));
    }

    /**
     * The team its budget served least, as the web view's comparison shows it: output alone would hide that a policy
     * blind to budgets buys its output with one team's owed GPU-hours (docs/bench.md, issue 34's demo-day).
     */
    static String worstServed(PolicyMetrics.FairShare fairShare) {
        Map.Entry<String, Double> worst = fairShare == null ? null : fairShare.worstServed();
        if (worst == null) return "";
        return String.format(", worst-served team %s got %.2f of its owed GPU-hours", worst.getKey(), Math.min(1, worst.getValue()));
    }

    /** What the comparison is about: the day in words, the command, the window. */
    private ObjectNode about() {
        ObjectNode body = ControlPlane.object().put("scenario", "the demo's day (" + day.submissions().size() + " jobs from " + day.source() + ")")
                .put("command", "./horizon demo (seed " + day.scenario().description().get("seed") + ", engine simulator)");
        body.putObject("window").put("from", ControlPlane.iso(from)).put("to", ControlPlane.iso(to));
        return body;
    }

    /** The policies in the order they are run, for the user. */
    static String policies() {
        return String.join(", ", POLICIES);
    }
}
