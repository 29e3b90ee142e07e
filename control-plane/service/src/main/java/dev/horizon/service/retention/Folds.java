package dev.horizon.service.retention;

import com.fasterxml.jackson.core.type.TypeReference;
import dev.horizon.service.store.Db;
import dev.horizon.service.store.StoredJson;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Retention's folds: each reads at most a chunk of old rows, adds them to their hourly aggregate and deletes them, inside
 * the caller's transaction, and returns how many it took (fewer than a chunk: nothing of that kind is left to fold). Only
 * the fenced leader runs them, so an aggregate row that an UPDATE does not find can be INSERTed without a race.
 */
final class Folds {
    /** Rows per transaction: big enough to be quick, small enough that no lock is held for long. */
    static final int CHUNK = 1000;
    private static final long HOUR = 3600;
    private static final TypeReference<Map<String, Object>> ACTION = new TypeReference<>() { };

    private Folds() {
    }

    /** Finished jobs that ended before beforeSeconds, into job_history_hourly by team and the hour they ended; their run segments go with them. */
    static int jobs(Connection c, long beforeSeconds) throws SQLException {
        record Old(String id, String team, String state, long submittedMillis, Long startedAt, long endedAt, long doneGpuSeconds) {
        }
        List<Old> old = Db.query(c, "SELECT id, team, state, submitted_at, started_at, ended_at, done_gpu_seconds FROM jobs"
                + " WHERE state IN ('SUCCEEDED', 'FAILED', 'CANCELLED') AND ended_at < ? ORDER BY ended_at LIMIT " + CHUNK,
                ps -> ps.setLong(1, beforeSeconds), rs -> new Old(rs.getString(1), rs.getString(2), rs.getString(3), rs.getLong(4),
                        rs.getObject(5) == null ? null : rs.getLong(5), rs.getLong(6), rs.getLong(7)));
        Map<List<Object>, long[]> hourly = new LinkedHashMap<>();
        for (Old j : old) {
            // succeeded, failed, cancelled, GPU-seconds, started, seconds waited before the start it ended from
            long[] a = hourly.computeIfAbsent(List.of(j.team(), j.endedAt() / HOUR), k -> new long[6]);
            a[switch (j.state()) {
                case "SUCCEEDED" -> 0;
                case "FAILED" -> 1;
                default -> 2;
            }]++;
            a[3] += j.doneGpuSeconds();
            if (j.startedAt() != null) {
                a[4]++;
                a[5] += Math.max(0, j.startedAt() - j.submittedMillis() / 1000);
            }
        }
        for (Map.Entry<List<Object>, long[]> h : hourly.entrySet()) {
            long[] a = h.getValue();
            Db.Binder bind = ps -> {
                for (int i = 0; i < a.length; i++) ps.setLong(i + 1, a[i]);
                ps.setString(7, (String) h.getKey().get(0));
                ps.setLong(8, (Long) h.getKey().get(1));
            };
            if (Db.update(c, "UPDATE job_history_hourly SET succeeded = succeeded + ?, failed = failed + ?, cancelled = cancelled + ?,"
                    + " gpu_seconds = gpu_seconds + ?, started = started + ?, wait_seconds = wait_seconds + ? WHERE team = ? AND hour_index = ?", bind) == 0) {
                Db.update(c, "INSERT INTO job_history_hourly (succeeded, failed, cancelled, gpu_seconds, started, wait_seconds, team, hour_index)"
                        + " VALUES (?, ?, ?, ?, ?, ?, ?, ?)", bind);
            }
        }
        List<String> ids = old.stream().map(Old::id).toList();
        deleteEach(c, "DELETE FROM run_segments WHERE job_id = ?", ids);
        deleteEach(c, "DELETE FROM jobs WHERE id = ?", ids);
        return old.size();
    }

    /** Answered agent commands that finished before beforeMillis, into node_events_hourly as 'command' by action and outcome. */
    static int commands(Connection c, long beforeMillis) throws SQLException {
        List<String[]> old = Db.query(c, "SELECT id, node, action, state, finished_at FROM node_commands WHERE state IN ('SUCCEEDED', 'FAILED')"
                + " AND finished_at < ? ORDER BY finished_at LIMIT " + CHUNK, ps -> ps.setLong(1, beforeMillis),
                rs -> new String[] {rs.getString(1), rs.getString(2), actionName(rs.getString(3)) + " " + rs.getString(4), String.valueOf(rs.getLong(5))});
        return nodeEvents(c, "command", old, "DELETE FROM node_commands WHERE id = ?");
    }

    /** Memory violations observed before beforeMillis, into node_events_hourly as 'memory-violation' by what the agent did. */
    static int violations(Connection c, long beforeMillis) throws SQLException {
        List<String[]> old = Db.query(c, "SELECT id, node, action, observed_at FROM memory_violations WHERE observed_at < ? ORDER BY observed_at LIMIT "
                + CHUNK, ps -> ps.setLong(1, beforeMillis), rs -> new String[] {String.valueOf(rs.getLong(1)), rs.getString(2), rs.getString(3),
                        String.valueOf(rs.getLong(4))});
        int n = nodeEvents(c, "memory-violation", old, null);
        List<Long> ids = old.stream().map(o -> Long.parseLong(o[0])).toList();
        try (PreparedStatement ps = c.prepareStatement("DELETE FROM memory_violations WHERE id = ?")) {
            for (long id : ids) {
                ps.setLong(1, id);
                ps.addBatch();
            }
            if (!ids.isEmpty()) ps.executeBatch();
        }
        return n;
    }

    /**
     * A service's demand steps older than its newest keepSteps, into inference_demand_hourly by hour of steps (step /
     * stepsPerHour): the mean and peak GPUs, merged with what an earlier chunk folded of the same hour.
     */
    static int demand(Connection c, String service, int keepSteps, int stepsPerHour) throws SQLException {
        List<double[]> old = Db.query(c, "SELECT step, gpus FROM inference_demand WHERE service = ? AND step <= (SELECT MAX(step) FROM inference_demand"
                + " WHERE service = ?) - ? ORDER BY step LIMIT " + CHUNK, ps -> {
                    ps.setString(1, service);
                    ps.setString(2, service);
                    ps.setInt(3, keepSteps);
                }, rs -> new double[] {rs.getInt(1), rs.getDouble(2)});
        Map<Long, double[]> hourly = new LinkedHashMap<>();
        for (double[] s : old) {
            double[] h = hourly.computeIfAbsent((long) s[0] / stepsPerHour, k -> new double[3]);
            h[0]++;
            h[1] += s[1];
            h[2] = Math.max(h[2], s[1]);
        }
        for (Map.Entry<Long, double[]> h : hourly.entrySet()) {
            double[] a = h.getValue();
            int updated = Db.update(c, "UPDATE inference_demand_hourly SET mean_gpus = (mean_gpus * steps + ?) / (steps + ?), steps = steps + ?,"
                    + " peak_gpus = GREATEST(peak_gpus, ?) WHERE service = ? AND step_hour = ?", ps -> {
                        ps.setDouble(1, a[1]);
                        ps.setInt(2, (int) a[0]);
                        ps.setInt(3, (int) a[0]);
                        ps.setDouble(4, a[2]);
                        ps.setString(5, service);
                        ps.setLong(6, h.getKey());
                    });
            if (updated == 0) {
                Db.update(c, "INSERT INTO inference_demand_hourly (service, step_hour, steps, mean_gpus, peak_gpus) VALUES (?, ?, ?, ?, ?)", ps -> {
                    ps.setString(1, service);
                    ps.setLong(2, h.getKey());
                    ps.setInt(3, (int) a[0]);
                    ps.setDouble(4, a[1] / a[0]);
                    ps.setDouble(5, a[2]);
                });
            }
        }
        if (!old.isEmpty()) {
            Db.update(c, "DELETE FROM inference_demand WHERE service = ? AND step <= ?", ps -> {
                ps.setString(1, service);
                ps.setInt(2, (int) old.get(old.size() - 1)[0]);
            });
        }
        return old.size();
    }

    /** rows: id, node, detail, epoch millis; counted per (node, hour, detail) and, when delete is given, deleted by id. */
    private static int nodeEvents(Connection c, String kind, List<String[]> rows, String delete) throws SQLException {
        Map<List<Object>, Long> hourly = new LinkedHashMap<>();
        for (String[] r : rows) hourly.merge(List.of(r[1], Long.parseLong(r[3]) / 1000 / HOUR, r[2]), 1L, Long::sum);
        for (Map.Entry<List<Object>, Long> h : hourly.entrySet()) {
            Db.Binder bind = ps -> {
                ps.setLong(1, h.getValue());
                ps.setString(2, kind);
                ps.setString(3, (String) h.getKey().get(0));
                ps.setLong(4, (Long) h.getKey().get(1));
                ps.setString(5, (String) h.getKey().get(2));
            };
            if (Db.update(c, "UPDATE node_events_hourly SET events = events + ? WHERE kind = ? AND node = ? AND hour_index = ? AND detail = ?", bind) == 0) {
                Db.update(c, "INSERT INTO node_events_hourly (events, kind, node, hour_index, detail) VALUES (?, ?, ?, ?, ?)", bind);
            }
        }
        if (delete != null) {
            List<String> ids = new ArrayList<>();
            rows.forEach(r -> ids.add(r[0]));
            deleteEach(c, delete, ids);
        }
        return rows.size();
    }

    /** The command's action, the one key of its JSON ({"applyMigLayout": {...}} is applyMigLayout). */
    private static String actionName(String json) {
        Map<String, Object> action = StoredJson.read(json, ACTION);
        return action.isEmpty() ? "unknown" : action.keySet().iterator().next();
    }

    private static void deleteEach(Connection c, String sql, List<String> ids) throws SQLException {
        if (ids.isEmpty()) return;
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            for (String id : ids) {
                ps.setString(1, id);
                ps.addBatch();
            }
            ps.executeBatch();
        }
    }
}
