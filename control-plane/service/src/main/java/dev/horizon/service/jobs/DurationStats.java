package dev.horizon.service.jobs;

import dev.horizon.api.JobClass;
import dev.horizon.forecast.DurationEstimator;
import dev.horizon.forecast.RecentRuns;
import dev.horizon.service.store.Db;
import io.quarkus.runtime.StartupEvent;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jboss.logging.Logger;

/**
 * The duration estimator's windows ({@link RecentRuns}) kept in the store, one row per (team, class) and one per class
 * across teams: a successful run is folded in by the transaction that finishes it, and a plan reads the rows instead of
 * the finished jobs. A store that has finished jobs but no rows (one written before this table existed) is rebuilt
 * from its jobs on start.
 */
@ApplicationScoped
public class DurationStats {
    private static final Logger LOG = Logger.getLogger(DurationStats.class);
    /** The team of a class's window across teams; no team can be named so. */
    static final String ANY_TEAM = "*";
    private static final String RUN_SECONDS = "done_gpu_seconds / gpus";

    @Inject
    Db db;

    void rebuildOnStart(@Observes @Priority(5) StartupEvent event) {
        db.inTransactionRetrying(c -> {
            boolean empty = Db.query(c, "SELECT COUNT(*) FROM duration_stats", ps -> { }, rs -> rs.getLong(1)).get(0) == 0;
            if (empty) rebuild(c);
            return null;
        });
    }

    /**
     * Folds the job's run into its windows when it succeeded; call it in the transaction that finished it. A run lasts what
     * its kept work took at its full width (done GPU-seconds over its GPUs), however often it was preempted or narrowed.
     */
    void observeFinished(Connection c, String jobId, long now) throws SQLException {
        List<Object[]> run = Db.query(c, "SELECT team, job_class, " + RUN_SECONDS + " FROM jobs WHERE id = ? AND state = 'SUCCEEDED' AND gpus > 0",
                ps -> ps.setString(1, jobId), rs -> new Object[] {rs.getString(1), rs.getString(2), rs.getLong(3)});
        if (run.isEmpty()) return;
        long seconds = Math.max(1, (Long) run.get(0)[2]);
        // always the team's row before the class's, so two finishing transactions lock in the same order
        fold(c, (String) run.get(0)[0], (String) run.get(0)[1], seconds, now);
        fold(c, ANY_TEAM, (String) run.get(0)[1], seconds, now);
    }

    /** An estimator holding every stored window. */
    public DurationEstimator estimator() {
        DurationEstimator estimator = new DurationEstimator();
        db.query("SELECT team, job_class, recent FROM duration_stats", ps -> { }, rs -> {
            String team = rs.getString(1);
            estimator.restore(ANY_TEAM.equals(team) ? null : team, JobClass.valueOf(rs.getString(2)), parse(rs.getString(3)));
            return null;
        });
        return estimator;
    }

    private static void fold(Connection c, String team, String jobClass, long seconds, long now) throws SQLException {
        List<RecentRuns> stored = Db.query(c, "SELECT recent FROM duration_stats WHERE team = ? AND job_class = ? FOR UPDATE", ps -> {
            ps.setString(1, team);
            ps.setString(2, jobClass);
        }, rs -> parse(rs.getString(1)));
        RecentRuns runs = stored.isEmpty() ? new RecentRuns() : stored.get(0);
        runs.observe(seconds);
        // a first run of a key inserts; two replicas inserting the same key at once conflict, and the loser's
        // transaction is retried whole by Db.inTransactionRetrying, finding the row then
        String sql = stored.isEmpty() ? "INSERT INTO duration_stats (recent, updated_at, runs, team, job_class) VALUES (?, ?, 1, ?, ?)"
                : "UPDATE duration_stats SET recent = ?, updated_at = ?, runs = runs + 1 WHERE team = ? AND job_class = ?";
        Db.update(c, sql, ps -> {
            ps.setString(1, format(runs));
            ps.setLong(2, now);
            ps.setString(3, team);
            ps.setString(4, jobClass);
        });
    }

    private static void rebuild(Connection c) throws SQLException {
        Map<List<String>, RecentRuns> windows = new HashMap<>();
        Map<List<String>, Long> counts = new HashMap<>();
        Db.query(c, "SELECT team, job_class, " + RUN_SECONDS + " FROM jobs WHERE state = 'SUCCEEDED' AND gpus > 0 ORDER BY ended_at, id",
                ps -> ps.setFetchSize(1000), rs -> {
                    long seconds = Math.max(1, rs.getLong(3));
                    for (String team : new String[] {rs.getString(1), ANY_TEAM}) {
                        List<String> key = List.of(team, rs.getString(2));
                        windows.computeIfAbsent(key, k -> new RecentRuns()).observe(seconds);
                        counts.merge(key, 1L, Long::sum);
                    }
                    return null;
                });
        long now = System.currentTimeMillis() / 1000;
        for (Map.Entry<List<String>, RecentRuns> w : windows.entrySet()) {
            Db.update(c, "INSERT INTO duration_stats (team, job_class, runs, recent, updated_at) VALUES (?, ?, ?, ?, ?)", ps -> {
                ps.setString(1, w.getKey().get(0));
                ps.setString(2, w.getKey().get(1));
                ps.setLong(3, counts.get(w.getKey()));
                ps.setString(4, format(w.getValue()));
                ps.setLong(5, now);
            });
        }
        if (!windows.isEmpty()) LOG.infof("duration statistics rebuilt from the stored jobs: %d windows", windows.size());
    }

    static RecentRuns parse(String recent) {
        List<Long> values = new ArrayList<>();
        if (!recent.isEmpty()) Arrays.stream(recent.split(",")).forEach(v -> values.add(Long.parseLong(v)));
        return RecentRuns.of(values);
    }

    static String format(RecentRuns runs) {
        StringBuilder out = new StringBuilder();
        for (long v : runs.values()) out.append(out.isEmpty() ? "" : ",").append(v);
        return out.toString();
    }
}
