package dev.horizon.service.jobs;

import dev.horizon.api.Contract;
import dev.horizon.api.GpuShape;
import dev.horizon.api.JobClass;
import dev.horizon.api.JobJson;
import dev.horizon.api.JobSpec;
import dev.horizon.forecast.DurationEstimator;
import dev.horizon.service.store.Db;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;

@ApplicationScoped
public class JobStore {
    static final String COLUMNS = "id, name, team, job_class, priority, gpus, min_gpus, spec, state, submitted_at, started_at, ended_at,"
            + " placement, fill, rule, reason, queue_rank, planned_start, preemptions, last_preemption, leader_epoch, done_gpu_seconds";
    /** What a row is read with: the inserted columns, what plans measure afterwards and who holds it. */
    static final String READ = COLUMNS + ", peak_gpu_memory_mib, held_by, held_at";

    @Inject
    Db db;
    @Inject
    DurationStats durations;

    /**
     * What a plan writes to one job whose planning fields changed. A start opens its run segments; taking a running job
     * off its GPUs (endReason: preempted, node lost) closes them and counts a preemption.
     */
    public record PlanWrite(JobRow before, JobState state, String placement, boolean fill, Long startedAt, String rule, String reason,
                            Integer rank, Long plannedStart, String lastPreemption, long doneGpuSeconds, String endReason,
                            List<RunSegments.Opening> openings) {
        boolean takesOff() {
            return before.state() == JobState.RUNNING && state == JobState.PENDING;
        }

        boolean starts() {
            return before.state() == JobState.PENDING && state == JobState.RUNNING;
        }

        /** Whether it differs from the row as stored: a plan with nothing new for a job writes nothing for it. */
        public boolean changes() {
            JobRow r = before;
            return r.state() != state || !Objects.equals(r.placement(), placement) || r.fill() != fill || !Objects.equals(r.startedAt(), startedAt)
                    || !Objects.equals(r.rule(), rule) || !Objects.equals(r.reason(), reason) || !Objects.equals(r.queueRank(), rank)
                    || !Objects.equals(r.plannedStart(), plannedStart) || r.doneGpuSeconds() != doneGpuSeconds;
        }
    }

    /** Filters of the list endpoint; null means any. after: list only jobs after this one in submission order (a page's last). */
    public record Filter(JobState state, String team, JobClass jobClass, String name, int limit, Position after) {
    }

    /** Where a job sits in the list's order: submitted_at (ms), then id. */
    public record Position(long submittedAt, String id) {
    }

    /** Committed before it returns: the API answers 201 only for a job the store already holds. */
    public void insert(JobRow j) {
        db.inTransaction(c -> insert(c, j));
    }

    /**
     * Inserts the job and the idempotency key that names it in one transaction: when another request inserted the same
     * caller's key first, neither is written and this throws a StoreException whose duplicateKey() is true.
     */
    public void insertKeyed(JobRow j, IdempotencyKeys.Key key, long now) {
        db.inTransaction(c -> {
            insert(c, j);
            return Db.update(c, "INSERT INTO idempotency_keys (caller, idem_key, body_sha256, job_id, created_at) VALUES (?, ?, ?, ?, ?)", ps -> {
                ps.setString(1, key.caller());
                ps.setString(2, key.key());
                ps.setString(3, key.bodySha256());
                ps.setString(4, j.id());
                ps.setLong(5, now);
            });
        });
    }

    private static int insert(Connection c, JobRow j) throws SQLException {
        return Db.update(c, "INSERT INTO jobs (" + COLUMNS + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                ps -> bindInsert(ps, j));
    }

    /** Every column as the row holds it (a new submission's planning fields are empty; an imported job's are its own). */
    private static void bindInsert(PreparedStatement ps, JobRow j) throws SQLException {
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
        Db.setLong(ps, 11, j.startedAt());
        Db.setLong(ps, 12, j.endedAt());
        ps.setString(13, j.placement());
        ps.setBoolean(14, j.fill());
        ps.setString(15, j.rule());
        ps.setString(16, j.reason());
        if (j.queueRank() == null) ps.setNull(17, Types.INTEGER);
        else ps.setInt(17, j.queueRank());
        Db.setLong(ps, 18, j.plannedStart());
        ps.setInt(19, j.preemptions());
        ps.setString(20, j.lastPreemption());
        ps.setLong(21, j.leaderEpoch());
        ps.setLong(22, j.doneGpuSeconds());
    }

    /**
     * A job that finished before this store saw it (an import, a replay's history): SUCCEEDED, having run runSeconds at its
     * full width, ending at endedAt; the duration estimator learns it in the same transaction, as from a job finished here.
     */
    public void recordFinished(String name, String team, JobClass jobClass, int gpus, long runSeconds, long endedAt) {
        String spec = JobJson.write(new JobSpec(name, team, jobClass, null, gpus, null, GpuShape.wholeGpus(1), null, null, null, null, null));
        JobRow row = JobRow.builder().id(UUID.randomUUID().toString()).name(name).team(team).jobClass(jobClass).gpus(gpus).minGpus(gpus).spec(spec)
                .state(JobState.SUCCEEDED).submittedAt((endedAt - runSeconds) * 1000).startedAt(endedAt - runSeconds).endedAt(endedAt)
                .doneGpuSeconds((long) gpus * runSeconds).build();
        db.inTransactionRetrying(c -> {
            importFinished(c, List.of(row), endedAt);
            return null;
        });
    }

    /**
     * Inside the caller's transaction: jobs that finished before this store saw them, as their rows say (an import, the
     * soak's history), in one batch; their successes go into the duration statistics in their order, as if they had
     * finished here.
     */
    public void importFinished(Connection c, List<JobRow> rows, long now) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO jobs (" + COLUMNS + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?,"
                + " ?, ?, ?, ?)")) {
            for (JobRow j : rows) {
                bindInsert(ps, j);
                ps.addBatch();
            }
            if (!rows.isEmpty()) ps.executeBatch();
        }
        durations.observeAll(c, rows.stream().filter(j -> j.state() == JobState.SUCCEEDED).toList(), now);
    }

    public Optional<JobRow> find(String id) {
        return db.query("SELECT " + READ + " FROM jobs WHERE id = ?", ps -> ps.setString(1, id), JobStore::row).stream().findFirst();
    }

    public List<JobRow> list(Filter f) {
        StringBuilder sql = new StringBuilder("SELECT " + READ + " FROM jobs WHERE 1 = 1");
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
        if (f.name() != null) {
            sql.append(" AND name = ?");
            args.add(f.name());
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

    /**
     * The latest jobs submitted at or after sinceMillis, in any state, newest first, at most limit of them: one query per
     * state, each read through the (state, submitted_at, id) index, so a store of months reads only the day asked for.
     */
    public List<JobRow> submittedSince(long sinceMillis, int limit) {
        List<JobRow> out = new ArrayList<>();
        for (JobState state : JobState.values()) {
            out.addAll(db.query("SELECT " + READ + " FROM jobs WHERE state = ? AND submitted_at >= ? ORDER BY submitted_at DESC, id DESC LIMIT ?", ps -> {
                ps.setString(1, state.name());
                ps.setLong(2, sinceMillis);
                ps.setInt(3, limit);
            }, JobStore::row));
        }
        out.sort(java.util.Comparator.comparingLong(JobRow::submittedAt).thenComparing(JobRow::id).reversed());
        return out.subList(0, Math.min(limit, out.size()));
    }

    /** Whether the team has a job waiting or running. */
    public boolean hasActive(String team) {
        return !db.query("SELECT 1 FROM jobs WHERE team = ? AND state IN ('PENDING', 'RUNNING') LIMIT 1", ps -> ps.setString(1, team), rs -> 1).isEmpty();
    }

    public List<JobRow> active() {
        return db.query("SELECT " + READ + " FROM jobs WHERE state IN ('PENDING', 'RUNNING') ORDER BY submitted_at, id", ps -> { },
                JobStore::row);
    }

    /** An estimator that learned from the most recent successful runs, per (team, class), as the store keeps them. */
    public DurationEstimator durationEstimator() {
        return durations.estimator();
    }

    /**
     * Moves a job to a finished state if it is still pending or running, closing its run and counting the work of it;
     * false when it had already finished. A success goes into the duration statistics in the same transaction. The row
     * is locked as it is read: a plan starting the job in between (PENDING to RUNNING) would otherwise make the
     * conditional update miss, and a cancel of a live job be answered "already finished (RUNNING)".
     */
    public boolean finish(String id, JobState state, long now) {
        return db.inTransactionRetrying(c -> {
            List<JobRow> found = Db.query(c, "SELECT " + READ + " FROM jobs WHERE id = ? AND state IN ('PENDING', 'RUNNING') FOR UPDATE",
                    ps -> ps.setString(1, id), JobStore::row);
            if (found.isEmpty()) return false;
            JobRow j = found.get(0);
            boolean ran = j.state() == JobState.RUNNING && j.startedAt() != null && j.placement() != null;
            long done = j.doneGpuSeconds() + (ran ? Math.max(0, now - j.startedAt()) * Placements.gpuCount(j.placement()) : 0);
            int n = Db.update(c, "UPDATE jobs SET state = ?, ended_at = ?, rule = NULL, reason = NULL, queue_rank = NULL, planned_start = NULL,"
                    + " held_by = NULL, held_at = NULL, done_gpu_seconds = ? WHERE id = ? AND state = ?", ps -> {
                        ps.setString(1, state.name());
                        ps.setLong(2, now);
                        ps.setLong(3, done);
                        ps.setString(4, id);
                        ps.setString(5, j.state().name());
                    });
            if (n == 1 && ran) RunSegments.close(c, List.of(id), now, state.name());
            if (n == 1 && state == JobState.SUCCEEDED) durations.observeFinished(c, id, now);
            return n == 1;
        });
    }

    /**
     * A running job was evicted from its GPUs by something other than the plan (its agent or adapter reports it: pods
     * evicted, GPUs taken back by an inference service): it goes back to pending, its run closed as preempted, keeping
     * the work its contract lets it keep. False when it was not running.
     */
    public boolean evict(String id, Contract contract, long now, String why) {
        return db.inTransaction(c -> {
            List<JobRow> found = Db.query(c, "SELECT " + READ + " FROM jobs WHERE id = ? AND state = 'RUNNING'", ps -> ps.setString(1, id), JobStore::row);
            if (found.isEmpty()) return false;
            JobRow j = found.get(0);
            PlanWrite w = new PlanWrite(j, JobState.PENDING, null, false, null, "preempted", why, null, null, why, j.doneIfTakenOff(contract, now),
                    RunSegments.EVICTED, List.of());
            return applyPlan(c, List.of(w), j.leaderEpoch(), now) == 1;
        });
    }

    /**
     * Holds a waiting job that is not held yet: it keeps its state, and its explanation says who holds it (the planner
     * leaves it out of its moments from now on). Returns the job as it was before, locked as it was read (a plan starting
     * it in between cannot slip past): held now only where that row was PENDING and not held; otherwise nothing changed.
     */
    public Optional<JobRow> hold(String id, Hold hold) {
        return db.inTransactionRetrying(c -> {
            Optional<JobRow> before = locked(c, id);
            if (before.isEmpty() || before.get().state() != JobState.PENDING || before.get().hold() != null) return before;
            Db.update(c, "UPDATE jobs SET held_by = ?, held_at = ?, rule = ?, reason = ?, queue_rank = NULL, planned_start = NULL WHERE id = ?", ps -> {
                ps.setString(1, hold.by());
                ps.setLong(2, hold.at());
                ps.setString(3, Hold.RULE);
                ps.setString(4, hold.reason(before.get().name()));
                ps.setString(5, id);
            });
            return before;
        });
    }

    /**
     * Lets a held job go: it waits for the next plan as a new arrival does. Returns the job as it was before (not held:
     * nothing changed).
     */
    public Optional<JobRow> release(String id) {
        return db.inTransactionRetrying(c -> {
            Optional<JobRow> before = locked(c, id);
            if (before.isEmpty() || before.get().hold() == null) return before;
            Db.update(c, "UPDATE jobs SET held_by = NULL, held_at = NULL, rule = 'released', reason = ? WHERE id = ?", ps -> {
                ps.setString(1, WaitReasons.NEXT_PLAN);
                ps.setString(2, id);
            });
            return before;
        });
    }

    /** The job, its row locked until the transaction ends. */
    private static Optional<JobRow> locked(Connection c, String id) throws SQLException {
        return Db.query(c, "SELECT " + READ + " FROM jobs WHERE id = ? FOR UPDATE", ps -> ps.setString(1, id), JobStore::row).stream().findFirst();
    }

    /**
     * Inside the plan's transaction: writes each job whose planning fields changed, in one batch, guarded by the state the
     * plan read and by no hold (a plan that raced a cancel, completion or hold loses that row instead of resurrecting the
     * job, or starting a held one), and opens or
     * closes the run segments of those written. Returns how many job rows it wrote.
     */
    public static int applyPlan(Connection c, List<PlanWrite> writes, long epoch, long now) throws SQLException {
        if (writes.isEmpty()) return 0;
        int[] counts;
        try (PreparedStatement ps = c.prepareStatement("UPDATE jobs SET state = ?, placement = ?, fill = ?, started_at = ?, rule = ?, reason = ?,"
                + " queue_rank = ?, planned_start = ?, preemptions = preemptions + ?, last_preemption = ?, leader_epoch = ?, done_gpu_seconds = ?"
                + " WHERE id = ? AND state = ? AND held_at IS NULL")) {
            for (PlanWrite w : writes) {
                bind(ps, w, epoch);
                ps.addBatch();
            }
            counts = ps.executeBatch();
        }
        List<RunSegments.Opening> openings = new ArrayList<>();
        Map<String, List<String>> closing = new HashMap<>();
        int written = 0;
        for (int i = 0; i < writes.size(); i++) {
            if (counts[i] != 1) continue;
            written++;
            PlanWrite w = writes.get(i);
            if (w.starts()) openings.addAll(w.openings());
            if (w.takesOff()) closing.computeIfAbsent(w.endReason(), k -> new ArrayList<>()).add(w.before().id());
        }
        for (Map.Entry<String, List<String>> e : closing.entrySet()) RunSegments.close(c, e.getValue(), now, e.getKey());
        RunSegments.open(c, openings, epoch);
        return written;
    }

    private static void bind(PreparedStatement ps, PlanWrite w, long epoch) throws SQLException {
        ps.setString(1, w.state().name());
        ps.setString(2, w.placement());
        ps.setBoolean(3, w.fill());
        Db.setLong(ps, 4, w.startedAt());
        ps.setString(5, w.rule());
        ps.setString(6, w.reason());
        if (w.rank() == null) ps.setNull(7, Types.INTEGER);
        else ps.setInt(7, w.rank());
        Db.setLong(ps, 8, w.plannedStart());
        ps.setInt(9, w.takesOff() ? 1 : 0);
        ps.setString(10, w.lastPreemption());
        ps.setLong(11, epoch);
        ps.setLong(12, w.doneGpuSeconds());
        ps.setString(13, w.before().id());
        ps.setString(14, w.before().state().name());
    }

    /**
     * What node's agent just measured, its GPUs' memory in use by UUID: each job running there on whole GPUs is measured
     * by the most one of its GPUs there holds, kept as its peak where that is more. A slice's GPU is shared, so slices are
     * never measured. A report carries no time of its own: one taken just before a job started on a GPU that another had
     * just left counts for the new job (a peak too high only hides a slice that would fit).
     */
    public void measured(String node, Map<String, Long> memoryByUuid) {
        if (memoryByUuid.isEmpty()) return;
        db.inTransaction(c -> {
            Map<Integer, Long> byIndex = new HashMap<>();
            Db.query(c, "SELECT idx, uuid FROM gpus WHERE node = ?", ps -> ps.setString(1, node), rs -> {
                Long used = memoryByUuid.get(rs.getString(2));
                if (used != null) byIndex.put(rs.getInt(1), used);
                return null;
            });
            Map<String, Long> peaks = new HashMap<>();
            String running = "SELECT id, placement, peak_gpu_memory_mib FROM jobs WHERE state = 'RUNNING' AND placement LIKE ?";
            Db.query(c, running, ps -> ps.setString(1, "%" + node + "[%"), rs -> {
                long held = wholeGpuMemory(rs.getString(2), node, byIndex);
                if (held > rs.getLong(3)) peaks.put(rs.getString(1), held);
                return null;
            });
            recordPeaks(c, peaks);
            return null;
        });
    }

    /** The most memory a placement's whole GPUs on node hold; 0 for a placement with a slice anywhere. */
    private static long wholeGpuMemory(String placement, String node, Map<Integer, Long> byIndex) {
        long most = 0;
        for (Placements.Part p : Placements.parts(placement)) {
            if (p.share() != null) return 0;
            if (!p.node().equals(node)) continue;
            for (int g = p.first(); g <= p.last(); g++) most = Math.max(most, byIndex.getOrDefault(g, 0L));
        }
        return most;
    }

    /**
     * The most GPU memory each running job was measured holding, kept where it is more than the stored peak (a peak only
     * ever rises; a job that ended meanwhile is not written).
     */
    private static void recordPeaks(Connection c, Map<String, Long> peaks) throws SQLException {
        if (peaks.isEmpty()) return;
        try (PreparedStatement ps = c.prepareStatement("UPDATE jobs SET peak_gpu_memory_mib = ? WHERE id = ? AND state = 'RUNNING' AND peak_gpu_memory_mib < ?")) {
            for (Map.Entry<String, Long> e : peaks.entrySet()) {
                ps.setLong(1, e.getValue());
                ps.setString(2, e.getKey());
                ps.setLong(3, e.getValue());
                ps.addBatch();
            }
            ps.executeBatch();
        }
    }

    /** Inside the plan's transaction: the placements this leader keeps running are its own from now on (adapters refuse older epochs). */
    public static void confirmRunning(Connection c, long epoch) throws SQLException {
        Db.update(c, "UPDATE jobs SET leader_epoch = ? WHERE state = 'RUNNING' AND leader_epoch < ?", ps -> {
            ps.setLong(1, epoch);
            ps.setLong(2, epoch);
        });
    }

    static JobRow row(ResultSet rs) throws SQLException {
        return JobRow.builder().id(rs.getString(1)).name(rs.getString(2)).team(rs.getString(3)).jobClass(JobClass.valueOf(rs.getString(4)))
                .priority(rs.getInt(5)).gpus(rs.getInt(6)).minGpus(rs.getInt(7)).spec(rs.getString(8)).state(JobState.valueOf(rs.getString(9)))
                .submittedAt(rs.getLong(10)).startedAt(Db.nullableLong(rs, 11)).endedAt(Db.nullableLong(rs, 12)).placement(rs.getString(13))
                .fill(rs.getBoolean(14)).rule(rs.getString(15)).reason(rs.getString(16)).queueRank(nullableInt(rs, 17))
                .plannedStart(Db.nullableLong(rs, 18)).preemptions(rs.getInt(19)).lastPreemption(rs.getString(20)).leaderEpoch(rs.getLong(21))
                .doneGpuSeconds(rs.getLong(22)).peakGpuMemoryMiB(rs.getLong(23)).hold(hold(rs)).build();
    }

    private static Hold hold(ResultSet rs) throws SQLException {
        Long at = Db.nullableLong(rs, 25);
        return at == null ? null : new Hold(rs.getString(24), at);
    }

    private static Integer nullableInt(ResultSet rs, int column) throws SQLException {
        int v = rs.getInt(column);
        return rs.wasNull() ? null : v;
    }
}
