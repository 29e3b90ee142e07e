package dev.horizon.service.planning;

import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import dev.horizon.allocator.PlanningContext;
import dev.horizon.allocator.cpsat.CpSatPlanner;
import dev.horizon.allocator.plan.Plan;
import dev.horizon.allocator.plan.PlanProblem;
import dev.horizon.allocator.pool.PooledPlanner;
import dev.horizon.service.clock.ServiceClock;
import dev.horizon.service.leadership.Leadership;
import dev.horizon.service.web.ApiTime;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

/**
 * CP-SAT's full mode: on the leader, every {@code horizon.planner.full-mode-seconds}, in the background, the same policy
 * plans the moment with CP-SAT (OR-Tools) in place of the heuristic, warm-started from the heuristic's plan of that
 * moment and within {@code full-mode-time-limit-seconds}. Its decision is adopted only if its plan scores strictly higher
 * than the heuristic's and the moment is unchanged when the loop commits it; otherwise the heuristic plan stands.
 */
@Singleton
public class FullMode {
    private static final Logger LOG = Logger.getLogger(FullMode.class);

    /**
     * One full-mode run: when, what became of it (adopted, kept-heuristic, changed, follower), the heuristic's and CP-SAT's
     * plan objectives on the moment, the gain (CP-SAT over heuristic, 0.02 = 2% higher), how long it took and CP-SAT's status.
     */
    public record Run(@JsonSerialize(using = ApiTime.Seconds.class) long at, String outcome, double heuristicObjective, double cpSatObjective, double gain, double seconds, String status) {
    }

    @Inject
    ServiceClock clock;
    @Inject
    Leadership leadership;
    @Inject
    Planner planner;
    @ConfigProperty(name = "horizon.planner.full-mode-seconds")
    long everySeconds;
    @ConfigProperty(name = "horizon.planner.full-mode-time-limit-seconds")
    double timeLimitSeconds;
    @ConfigProperty(name = "horizon.planner.full-mode-max-jobs")
    int maxJobs;

    private final ScheduledExecutorService worker = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "horizon-full-mode");
        t.setDaemon(true);
        return t;
    });
    private volatile Run last;

    void start(@Observes StartupEvent event) {
        // a replay on a virtual clock runs it when it chooses; wall time never does
        if (!clock.virtual() && everySeconds > 0) worker.scheduleWithFixedDelay(this::runLogged, everySeconds, everySeconds, TimeUnit.SECONDS);
    }

    void stop(@Observes ShutdownEvent event) {
        worker.shutdownNow();
    }

    /** The latest run, null before the first. */
    public Run last() {
        return last;
    }

    private void runLogged() {
        try {
            Run r = runOnce();
            LOG.infof("full mode (CP-SAT): %s, objective %.1f vs heuristic %.1f in %.1f s (%s)", r.outcome(), r.cpSatObjective(),
                    r.heuristicObjective(), r.seconds(), r.status());
        } catch (RuntimeException e) {
            LOG.error("full mode (CP-SAT) failed; the heuristic plan stands and the next run retries", e);
        }
    }

    /** One run now, on the calling thread (the plans go on meanwhile); adopts its decision when it is strictly better and still holds. */
    public Run runOnce() {
        long started = System.nanoTime();
        long at = clock.seconds();
        if (!leadership.leading()) return record(new Run(at, "follower", 0, 0, 0, 0, "only the leader plans"));
        Planner.Moment moment = planner.moment();
        if (moment.input() == null) return record(new Run(at, "kept-heuristic", 0, 0, 0, 0, "no nodes to plan on"));
        PlanningContext ctx = moment.input().context();
        List<CpSatPlanner.Stats> stats = Collections.synchronizedList(new ArrayList<>());
        Map<String, Integer> steps = new ConcurrentHashMap<>();
        PooledPlanner.Result result;
        try (PooledPlanner pooled = new PooledPlanner(() -> PlanningPolicy.capturing(solver(stats), steps), 1)) {
            result = pooled.decide(ctx, PlanningPolicy.constraints(ctx));
        }
        double hint = stats.stream().mapToDouble(CpSatPlanner.Stats::hintObjective).sum();
        double objective = stats.stream().mapToDouble(CpSatPlanner.Stats::objective).sum();
        double seconds = (System.nanoTime() - started) / 1e9;
        String status = String.join(",", stats.stream().map(CpSatPlanner.Stats::status).distinct().toList());
        double gain = hint > 0 ? objective / hint - 1 : 0;
        if (!(objective > hint + 1e-9)) return record(new Run(at, "kept-heuristic", hint, objective, gain, seconds, status));
        List<String> groups = result.groups().size() < 2 ? List.of() : result.groups().stream().map(g -> String.join("+", g.models())).toList();
        PlanningPolicy.Outcome outcome = new PlanningPolicy.Outcome(result.decision(), Map.copyOf(steps), "cpsat", groups);
        boolean adopted = planner.adopt(moment, outcome, gain);
        return record(new Run(at, adopted ? "adopted" : "changed", hint, objective, gain, seconds, status));
    }

    /** A CP-SAT planner per group (each keeps its own statistics), reporting them into stats. */
    private Function<PlanProblem, Plan> solver(List<CpSatPlanner.Stats> stats) {
        CpSatPlanner cpsat = new CpSatPlanner(timeLimitSeconds, maxJobs);
        return problem -> {
            Plan p = cpsat.apply(problem);
            stats.add(cpsat.lastStats());
            return p;
        };
    }

    private Run record(Run r) {
        last = r;
        return r;
    }
}
