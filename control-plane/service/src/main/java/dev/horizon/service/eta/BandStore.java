package dev.horizon.service.eta;

import dev.horizon.service.store.Db;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.sql.PreparedStatement;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The leader's latest start-time bands as stored for every replica: one row per waiting job, replaced whole on each save.
 * Only what is shown is stored (the sampled starts stay in the leader's memory), so a follower shows a band whose time
 * has passed as none until the next save.
 */
@ApplicationScoped
public class BandStore {
    @Inject
    Db db;

    private record Row(String jobId, StartTimes.Shown shown, long bandsAt) {
    }

    public void save(StartTimes.Snapshot bands) {
        db.inTransactionRetrying(c -> {
            Db.update(c, "DELETE FROM start_bands", ps -> { });
            if (bands.bandsAt() == null || bands.byJob().isEmpty()) return null;
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO start_bands (job_id, p50_at, p90_at, note, queue_alone_p50_at, queue_alone_p90_at,"
                    + " queue_alone_said, bands_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)")) {
                for (Map.Entry<String, StartTimes.Shown> e : bands.byJob().entrySet()) {
                    StartTimes.Shown shown = e.getValue();
                    StartTimes.QueueAlone alone = shown.queueAlone();
                    ps.setString(1, e.getKey());
                    Db.setLong(ps, 2, shown.p50At());
                    Db.setLong(ps, 3, shown.p90At());
                    ps.setString(4, shown.note());
                    Db.setLong(ps, 5, alone == null ? null : alone.p50At());
                    Db.setLong(ps, 6, alone == null ? null : alone.p90At());
                    ps.setString(7, alone == null ? null : alone.said());
                    ps.setLong(8, bands.bandsAt());
                    ps.addBatch();
                }
                ps.executeBatch();
            }
            return null;
        });
    }

    /** The bands last saved (bandsAt null: none saved, or none of the last plan's waiting jobs had one). */
    public StartTimes.Snapshot load() {
        List<Row> rows = db.query("SELECT job_id, p50_at, p90_at, note, queue_alone_p50_at, queue_alone_p90_at, queue_alone_said, bands_at FROM start_bands",
                ps -> { }, rs -> new Row(rs.getString(1), new StartTimes.Shown(Db.nullableLong(rs, 2), Db.nullableLong(rs, 3), rs.getString(4),
                        queueAlone(Db.nullableLong(rs, 5), Db.nullableLong(rs, 6), rs.getString(7))), rs.getLong(8)));
        if (rows.isEmpty()) return StartTimes.Snapshot.NONE;
        Map<String, StartTimes.Shown> byJob = new HashMap<>();
        rows.forEach(r -> byJob.put(r.jobId(), r.shown()));
        return StartTimes.Snapshot.stored(rows.get(0).bandsAt(), Map.copyOf(byJob));
    }

    /** A queue-alone start as stored: told where its sentence is (its times may be null: not within the futures played). */
    private static StartTimes.QueueAlone queueAlone(Long p50At, Long p90At, String said) {
        return said == null ? null : new StartTimes.QueueAlone(p50At, p90At, said);
    }
}
