package dev.horizon.service.planning;

import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import dev.horizon.allocator.cpsat.CpSatPlanner;
import dev.horizon.allocator.model.Decision;
import dev.horizon.allocator.policy.HorizonPolicy;
import dev.horizon.allocator.policy.PooledHorizonPolicy;
import dev.horizon.allocator.pool.PooledPlanner;
import dev.horizon.service.clock.ServiceClock;
import dev.horizon.service.leadership.Leadership;
import dev.horizon.service.plans.PlannerSettings;
import dev.horizon.service.web.ApiTime;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
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
    @Inject
    PlannerSettings settings;

    private final ScheduledExecutorService worker = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "horizon-full-mode");
        t.setDaemon(true);
        return t;
    });
    private volatile Run last;

    void start(@Observes StartupEvent event) {
        // a replay on a virtual clock runs it when it chooses; wall time never does
        long every = settings.fullModeSeconds();
        if (!clock.virtual() && every > 0) worker.scheduleWithFixedDelay(this::runLogged, every, every, TimeUnit.SECONDS);
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
        PooledPlanner.Result result;
        // each group gets its own CP-SAT planner, one group after another
        try (PooledHorizonPolicy cpsat = new PooledHorizonPolicy(this::cpSatPolicy, 1)) {
            result = cpsat.plan(moment.input().context());
        }
        List<Decision.SolverStats> stats = result.decision().solverStats();
        double hint = stats.stream().mapToDouble(Decision.SolverStats::hintObjective).sum();
        double objective = stats.stream().mapToDouble(Decision.SolverStats::objective).sum();
        double seconds = (System.nanoTime() - started) / 1e9;
        String status = String.join(",", stats.stream().map(Decision.SolverStats::status).distinct().toList());
        double gain = hint > 0 ? objective / hint - 1 : 0;
        if (!(objective > hint + 1e-9)) return record(new Run(at, "kept-heuristic", hint, objective, gain, seconds, status));
        boolean adopted = planner.adopt(moment, new PlanningPolicy.Outcome(result.decision(), "cpsat", result.groupNames()), gain);
        return record(new Run(at, adopted ? "adopted" : "changed", hint, objective, gain, seconds, status));
    }

    /** Horizon's policy with CP-SAT, warm-started from the heuristic, as its planner. */
    private HorizonPolicy cpSatPolicy() {
        return new HorizonPolicy("horizon-cpsat", new CpSatPlanner(settings.fullModeTimeLimitSeconds(), settings.fullModeMaxJobs()));
    }

    private Run record(Run r) {
        last = r;
        return r;
    }
}
