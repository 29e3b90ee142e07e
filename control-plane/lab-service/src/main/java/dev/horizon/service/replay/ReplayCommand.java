package dev.horizon.service.replay;

import dev.horizon.allocator.SchedulingPolicy;
import dev.horizon.bench.Engine;
import dev.horizon.bench.HorizonCli;
import dev.horizon.service.ServiceCommand;
import dev.horizon.simulation.Scenario;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.io.PrintStream;
import java.util.List;

/**
 * {@code ./horizon bench ... --engine service}: the bench, with Horizon's decisions made by this control plane, which
 * the launcher started on a virtual clock and an empty store (H2 in a temp dir, or the PostgreSQL of --db-url). Writes
 * the simulator's results.json, schedule.csv, rt.csv and report.html, with "engine":"service" under scenario.
 */
@ApplicationScoped
public class ReplayCommand implements ServiceCommand {
    @Inject
    ServiceEngine engine;

    @Override
    public String name() {
        return "bench";
    }

    @Override
    public int run(List<String> args, PrintStream out, PrintStream err) {
        return HorizonCli.bench(args, out, err, new Engine() {
            @Override
            public String name() {
                return "service";
            }

            @Override
            public SchedulingPolicy horizon(Scenario scenario) {
                return engine.replaying(scenario);
            }
        });
    }
}
