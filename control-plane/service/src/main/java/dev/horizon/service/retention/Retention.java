package dev.horizon.service.retention;

import dev.horizon.service.clock.ServiceClock;
import dev.horizon.service.fairshare.UsageStore;
import dev.horizon.service.inference.InferenceStore;
import dev.horizon.service.leadership.Leadership;
import dev.horizon.service.leadership.WhileLeading;
import dev.horizon.service.store.Db;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.StartupEvent;
import io.quarkus.scheduler.Scheduled;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

/**
 * Keeps the store the size of its retention window: finished jobs (with their run segments), answered agent commands,
 * memory violations and inference demand older than horizon.retention.days are folded into hourly aggregates and
 * deleted, a chunk per fenced transaction, so a fold and its deletes land together or not at all; the aggregates
 * themselves go after horizon.retention.aggregate-days. Fair share, owed-delivered and the duration estimator read
 * running aggregates of their own, so none of them changes when the rows behind them go. The leader runs it every
 * horizon.retention.every (an hour), a replay when it advances its clock.
 */
@Singleton
public class Retention {
    private static final Logger LOG = Logger.getLogger(Retention.class);
    public static final long DAY = 86_400;
    private static final int FAIR_SHARE_WINDOW_DAYS = 7;

    @Inject
    Db db;
    @Inject
    Leadership leadership;
    @Inject
    ServiceClock clock;
    @Inject
    UsageStore usage;
    @Inject
    InferenceStore inference;
    @Inject
    MeterRegistry registry;
    @ConfigProperty(name = "horizon.retention.days")
    int days;
    @ConfigProperty(name = "horizon.retention.aggregate-days")
    int aggregateDays;

    /**
     * What one pass removed. cutoff: rows that ended (or were observed) before it went; aggregateRows: aggregate rows older
     * than horizon.retention.aggregate-days.
     */
    public record Report(long cutoff, int jobs, int commands, int violations, int demandSteps, int aggregateRows) {
        int total() {
            return jobs + commands + violations + demandSteps + aggregateRows;
        }
    }

    void check(@Observes StartupEvent event) {
        if (days < 1) throw new IllegalArgumentException("horizon.retention.days must be at least 1 (got " + days + ")");
        if (aggregateDays < Math.max(days, FAIR_SHARE_WINDOW_DAYS + 1)) {
            throw new IllegalArgumentException("horizon.retention.aggregate-days (" + aggregateDays + ") must be at least horizon.retention.days ("
                    + days + ") and more than the fair-share window of " + FAIR_SHARE_WINDOW_DAYS + " days, which reads the hourly aggregates");
        }
    }

    @Scheduled(every = "${horizon.retention.every}", delayed = "1m", concurrentExecution = Scheduled.ConcurrentExecution.SKIP,
            skipExecutionIf = WhileLeading.class)
    void scheduled() {
        if (clock.virtual()) return;
        Report r = run(clock.seconds());
        if (r.total() > 0) {
            LOG.infof("retention (%d days): folded into hourly aggregates and deleted %d finished jobs, %d agent commands, %d memory violations,"
                    + " %d inference demand steps; %d aggregate rows older than %d days", days, r.jobs(), r.commands(), r.violations(),
                    r.demandSteps(), r.aggregateRows(), aggregateDays);
        }
    }

    /** One pass as of now, on the leader (a follower removes nothing). */
    public Report run(long now) {
        long epoch = leadership.epoch();
        if (epoch == 0) return new Report(0, 0, 0, 0, 0, 0);
        long cutoff = now - days * DAY;
        // a job's usage is in the aggregates once the plans booked up to its end; one they have not booked yet stays
        long jobsBefore = Math.min(cutoff, usage.ledger().bookedUntil() + 1);
        Report r = new Report(cutoff, chunks("finished jobs", c -> Folds.jobs(c, jobsBefore)), chunks("agent commands", c -> Folds.commands(c, cutoff * 1000)),
                chunks("memory violations", c -> Folds.violations(c, cutoff * 1000)), demand(), pruneAggregates(now));
        count("jobs", r.jobs());
        count("commands", r.commands());
        count("memory-violations", r.violations());
        count("inference-demand", r.demandSteps());
        return r;
    }

    /** Inference demand beyond what the forecaster reads and beyond the retention, per service. */
    private int demand() {
        int keepSteps = Math.max(days, InferenceStore.HISTORY_DAYS) * inference.stepsPerDay();
        int stepsPerHour = Math.max(1, inference.stepsPerDay() / 24);
        int removed = 0;
        for (InferenceStore.Row row : inference.all()) {
            String service = row.service().name();
            removed += chunks("demand of " + service, c -> Folds.demand(c, service, keepSteps, stepsPerHour));
        }
        return removed;
    }

    private int pruneAggregates(long now) {
        long beforeHour = (now - aggregateDays * DAY) / 3600;
        return db.inTransaction(c -> {
            leadership.fence(c, leadership.epoch());
            int n = 0;
            for (String table : List.of("team_usage_hourly", "job_history_hourly", "node_events_hourly")) {
                n += Db.update(c, "DELETE FROM " + table + " WHERE hour_index < ?", ps -> ps.setLong(1, beforeHour));
            }
            // demand hours count from the service's first step, not the wall clock: keep the newest aggregate-days of them
            n += Db.update(c, "DELETE FROM inference_demand_hourly WHERE step_hour < (SELECT MAX(step_hour) FROM inference_demand_hourly newest"
                    + " WHERE newest.service = inference_demand_hourly.service) - ?", ps -> ps.setLong(1, aggregateDays * 24L));
            return n;
        });
    }

    /** One fold step: folds and deletes at most a chunk of rows inside the caller's fenced transaction; returns how many. */
    interface Chunk {
        int fold(Connection c) throws SQLException;
    }

    /** Runs a fold a chunk per transaction until a chunk comes back short, fenced by this leader's epoch; logs progress. */
    private int chunks(String what, Chunk chunk) {
        long epoch = leadership.epoch();
        int total = 0;
        for (int n = Folds.CHUNK; n == Folds.CHUNK; total += n) {
            n = db.inTransaction(c -> {
                leadership.fence(c, epoch);
                return chunk.fold(c);
            });
            if (n == Folds.CHUNK && (total + n) % (50 * Folds.CHUNK) == 0) LOG.infof("retention: %d %s folded and deleted so far", total + n, what);
        }
        return total;
    }

    private void count(String kind, int n) {
        if (n > 0) Counter.builder("horizon_retention_deleted").tag("kind", kind).description("rows retention folded into hourly aggregates and deleted")
                .register(registry).increment(n);
    }
}
