package dev.horizon.service.jobs;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Collection;
import java.util.List;

/**
 * The run_segments table: what each job held, per node and run. Opened by the plan that starts a job and closed by
 * whatever ends the run (the plan, for a preemption or a lost node; {@link JobStore#finish}, for an outcome or a
 * cancel), always inside the transaction that writes the job's row, so the two never disagree.
 */
public final class RunSegments {
    /** Why a run ended, as end_reason stores it. */
    public static final String PREEMPTED = "PREEMPTED";
    public static final String NODE_LOST = "NODE_LOST";
    /** Its GPUs were taken back by something other than the plan (an inference service growing onto them, as agents report). */
    public static final String EVICTED = "EVICTED";

    /**
     * One job's GPUs on one node from startedAt on; gpus counts a MIG instance or share by its fraction. placement: the
     * job's whole placement as stored ("node-1[0-3]"); fill: it started on lent GPUs.
     */
    public record Opening(String jobId, String team, String node, double gpus, long startedAt, String placement, boolean fill) {
    }

    private RunSegments() {
    }

    static void open(Connection c, Collection<Opening> openings, long epoch) throws SQLException {
        if (openings.isEmpty()) return;
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO run_segments (job_id, team, node, gpus, started_at, leader_epoch,"
                + " placement, fill) VALUES (?, ?, ?, ?, ?, ?, ?, ?)")) {
            for (Opening o : openings) {
                ps.setString(1, o.jobId());
                ps.setString(2, o.team());
                ps.setString(3, o.node());
                ps.setDouble(4, o.gpus());
                ps.setLong(5, o.startedAt());
                ps.setLong(6, epoch);
                ps.setString(7, o.placement());
                ps.setBoolean(8, o.fill());
                ps.addBatch();
            }
            ps.executeBatch();
        }
    }

    /** A run that began and ended before the store saw it. */
    public record Closed(Opening run, long endedAt, String reason) {
    }

    /** Inside the caller's transaction, in one batch: runs that began and ended before the store saw them (an import, the soak's history). */
    public static void importClosed(Connection c, List<Closed> runs, long epoch) throws SQLException {
        if (runs.isEmpty()) return;
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO run_segments (job_id, team, node, gpus, started_at, ended_at, end_reason, leader_epoch)"
                + " VALUES (?, ?, ?, ?, ?, ?, ?, ?)")) {
            for (Closed r : runs) {
                ps.setString(1, r.run().jobId());
                ps.setString(2, r.run().team());
                ps.setString(3, r.run().node());
                ps.setDouble(4, r.run().gpus());
                ps.setLong(5, r.run().startedAt());
                ps.setLong(6, r.endedAt());
                ps.setString(7, r.reason());
                ps.setLong(8, epoch);
                ps.addBatch();
            }
            ps.executeBatch();
        }
    }

    /** Ends the open segments of these jobs at {@code at}. */
    static void close(Connection c, List<String> jobIds, long at, String reason) throws SQLException {
        if (jobIds.isEmpty()) return;
        try (PreparedStatement ps = c.prepareStatement("UPDATE run_segments SET ended_at = ?, end_reason = ? WHERE job_id = ? AND ended_at IS NULL")) {
            for (String id : jobIds) {
                ps.setLong(1, at);
                ps.setString(2, reason);
                ps.setString(3, id);
                ps.addBatch();
            }
            ps.executeBatch();
        }
    }
}
