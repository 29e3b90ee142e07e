package dev.horizon.service.jobs;

import dev.horizon.api.JobClass;
import dev.horizon.forecast.DurationEstimator;
import dev.horizon.service.store.Db;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

@ApplicationScoped
public class JobStore {
    static final String COLUMNS = "id, name, team, job_class, priority, gpus, min_gpus, spec, state, submitted_at, started_at, ended_at,"
            + " placement, fill, rule, reason, queue_rank, planned_start, preemptions, last_preemption, leader_epoch";

    @Inject
    Db db;
    @Inject
    DurationStats durations;

    /** Filters of the list endpoint; null means any. after: list only jobs after this one in submission order (a page's last). */
    public record Filter(JobState state, String team, JobClass jobClass, int limit, Position after) {
    }

    /** Where a job sits in the list's order: submitted_at (ms), then id. */
    public record Position(long submittedAt, String id) {
    }

    /** Committed before it returns: the API answers 201 only for a job the store already holds. */
    public void insert(JobRow j) {
        db.update("INSERT INTO jobs (" + COLUMNS + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", ps -> {
            ps.setString(1, j.id());
            ps.setString(2, j.name());
            ps.setString(3, j.team());
            ps.setString(4, j.jobClass().name());
            ps.setInt(5, j.priority());
            ps.setInt(6, j.gpus());
            ps.setInt(7, j.minGpus());
            ps.setString(8, j.spec());
            ps.setString(9, j.state().name());
            ps.setLong(10, j.submittedAt());
            ps.setNull(11, Types.BIGINT);
            ps.setNull(12, Types.BIGINT);
            ps.setNull(13, Types.VARCHAR);
            ps.setBoolean(14, false);
            ps.setString(15, j.rule());
            ps.setString(16, j.reason());
            ps.setNull(17, Types.INTEGER);
            ps.setNull(18, Types.BIGINT);
            ps.setInt(19, 0);
            ps.setNull(20, Types.VARCHAR);
            ps.setLong(21, j.leaderEpoch());
        });
    }

    public Optional<JobRow> find(String id) {
        return db.query("SELECT " + COLUMNS + " FROM jobs WHERE id = ?", ps -> ps.setString(1, id), JobStore::row).stream().findFirst();
    }

    public List<JobRow> list(Filter f) {
        StringBuilder sql = new StringBuilder("SELECT " + COLUMNS + " FROM jobs WHERE 1 = 1");
        List<String> args = new ArrayList<>();
        if (f.state() != null) {
            sql.append(" AND state = ?");
            args.add(f.state().name());
        }
        if (f.team() != null) {
            sql.append(" AND team = ?");
            args.add(f.team());
        }
        if (f.jobClass() != null) {
            sql.append(" AND job_class = ?");
            args.add(f.jobClass().name());
        }
        // keyset paging: the next page starts after the last row of this one, found through the (…, submitted_at, id) indexes
        if (f.after() != null) sql.append(" AND (submitted_at, id) > (?, ?)");
        sql.append(" ORDER BY submitted_at, id LIMIT ?");
        return db.query(sql.toString(), ps -> {
            int i = 1;
            for (String a : args) ps.setString(i++, a);
            if (f.after() != null) {
                ps.setLong(i++, f.after().submittedAt());
                ps.setString(i++, f.after().id());
            }
            ps.setInt(i, f.limit());
        }, JobStore::row);
    }

    /** Per team, how many pending jobs the last plan ranked before the given queue rank. */
    public Map<String, Long> pendingAheadByTeam(int queueRank) {
        Map<String, Long> ahead = new LinkedHashMap<>();
        db.query("SELECT team, COUNT(*) FROM jobs WHERE state = 'PENDING' AND queue_rank < ? GROUP BY team ORDER BY team",
                ps -> ps.setInt(1, queueRank), rs -> ahead.put(rs.getString(1), rs.getLong(2)));
        return ahead;
    }

    public List<JobRow> active() {
        return db.query("SELECT " + COLUMNS + " FROM jobs WHERE state IN ('PENDING', 'RUNNING') ORDER BY submitted_at, id", ps -> { },
                JobStore::row);
    }

    /** Jobs that held GPUs at some point since {@code fromSeconds}: running ones and those that finished after it. */
    public List<JobRow> ranSince(long fromSeconds) {
        return db.query("SELECT " + COLUMNS + " FROM jobs WHERE started_at IS NOT NULL AND (state = 'RUNNING' OR ended_at >= ?)",
                ps -> ps.setLong(1, fromSeconds), JobStore::row);
    }

    /** Jobs that asked for or held GPUs at some point since {@code fromSeconds}: every active job and those that finished after it. */
    public List<JobRow> ranOrAskedSince(long fromSeconds) {
        return db.query("SELECT " + COLUMNS + " FROM jobs WHERE state IN ('PENDING', 'RUNNING') OR ended_at >= ?",
                ps -> ps.setLong(1, fromSeconds), JobStore::row);
    }

    /** An estimator that learned from the most recent successful runs, per (team, class), as the store keeps them. */
    public DurationEstimator durationEstimator() {
        return durations.estimator();
    }

    /**
     * Moves a job to a finished state if it is still pending or running; false when it had already finished. A success
     * goes into the duration statistics in the same transaction.
     */
    public boolean finish(String id, JobState state, long now) {
        return db.inTransactionRetrying(c -> {
            boolean finished = Db.update(c, "UPDATE jobs SET state = ?, ended_at = ?, rule = NULL, reason = NULL, queue_rank = NULL,"
                    + " planned_start = NULL WHERE id = ? AND state IN ('PENDING', 'RUNNING')", ps -> {
                        ps.setString(1, state.name());
                        ps.setLong(2, now);
                        ps.setString(3, id);
                    }) == 1;
            if (finished && state == JobState.SUCCEEDED) durations.observeFinished(c, id, now);
            return finished;
        });
    }

    static JobRow row(ResultSet rs) throws SQLException {
        return new JobRow(rs.getString(1), rs.getString(2), rs.getString(3), JobClass.valueOf(rs.getString(4)), rs.getInt(5), rs.getInt(6),
                rs.getInt(7), rs.getString(8), JobState.valueOf(rs.getString(9)), rs.getLong(10), nullableLong(rs, 11),
                nullableLong(rs, 12), rs.getString(13), rs.getBoolean(14), rs.getString(15), rs.getString(16), nullableInt(rs, 17),
                nullableLong(rs, 18), rs.getInt(19), rs.getString(20), rs.getLong(21));
    }

    private static Long nullableLong(ResultSet rs, int column) throws SQLException {
        long v = rs.getLong(column);
        return rs.wasNull() ? null : v;
    }

    private static Integer nullableInt(ResultSet rs, int column) throws SQLException {
        int v = rs.getInt(column);
        return rs.wasNull() ? null : v;
    }
}
