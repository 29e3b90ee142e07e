package dev.horizon.demo;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.horizon.bench.BenchPolicies;
import dev.horizon.simulation.PolicyMetrics;
import dev.horizon.simulation.SimResult;
import dev.horizon.simulation.Simulator;
import dev.horizon.trace.DemoDayScenario;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * What the same day gives in the simulator under FIFO, the baselines (KAI, Kueue, Slurm) and Horizon's own policy, stored
 * in the control plane (PUT /api/v1/comparisons/demo-day) for the web view to show beside the live figures. The best
 * baseline is the one with the highest priority-weighted output, as ./horizon bench picks it.
 */
final class Comparison {
    static final String NAME = "demo-day";
    private static final List<String> POLICIES = List.of("fifo", "kai", "kueue", "slurm", "horizon");

    private final DemoDayScenario.Day day;

    Comparison(DemoDayScenario.Day day) {
        this.day = day;
    }

    void store(ControlPlane cp, String admin, PrintStream out) {
        out.println("horizon demo: the same day in the simulator under " + String.join(", ", POLICIES) + " ...");
        List<SimResult> results = new ArrayList<>();
        for (String p : POLICIES) results.add(new Simulator(day.scenario(), BenchPolicies.create(p)).run(x -> { }));
        String best = results.stream().filter(r -> !r.policy().startsWith("horizon") && !r.policy().equals("fifo"))
                .max(Comparator.comparingDouble(r -> r.metrics().priorityWeightedOutput())).map(SimResult::policy).orElse(null);
        ObjectNode body = ControlPlane.object().put("scenario", "the demo's day (" + day.submissions().size() + " jobs from " + day.source() + ")")
                .put("command", "./horizon demo (seed " + day.scenario().description().get("seed") + ", engine simulator)");
        if (best != null) body.put("bestBaseline", best);
        ArrayNode policies = body.putArray("policies");
        for (SimResult r : results) {
            PolicyMetrics m = r.metrics();
            ObjectNode f = policies.addObject().put("policy", r.policy()).put("engine", "simulator").put("utilization", Math.min(1, m.utilization()))
                    .put("jobsCompleted", m.jobsCompleted()).put("jobsArrived", m.jobsArrived()).put("preemptions", m.preemptions())
                    .put("waitP50Seconds", m.waitSeconds().p50()).put("waitP95Seconds", m.waitSeconds().p95())
                    .put("rtSloAttainment", m.rtSloAttainment()).put("priorityWeightedOutput", m.priorityWeightedOutput());
            if (m.fairShare() != null) f.put("worstTeamOwedDelivered", Math.min(1, m.fairShare().worstTeam()));
            out.printf("horizon demo:   %-8s utilization %.2f, %d of %d jobs done, wait p95 %.0f s, output %.1f%n", r.policy(), m.utilization(),
                    m.jobsCompleted(), m.jobsArrived(), m.waitSeconds().p95(), m.priorityWeightedOutput());
        }
        cp.put("/api/v1/comparisons/" + NAME, body, admin);
    }
}
