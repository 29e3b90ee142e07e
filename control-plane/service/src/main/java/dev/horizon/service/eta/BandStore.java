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

    private record Row(String jobId, Long p50At, Long p90At, String note, long bandsAt) {
    }

    public void save(StartTimes.Snapshot bands) {
        db.inTransactionRetrying(c -> {
            Db.update(c, "DELETE FROM start_bands", ps -> { });
            if (bands.bandsAt() == null || bands.byJob().isEmpty()) return null;
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO start_bands (job_id, p50_at, p90_at, note, bands_at) VALUES (?, ?, ?, ?, ?)")) {
                for (Map.Entry<String, StartTimes.Shown> e : bands.byJob().entrySet()) {
                    ps.setString(1, e.getKey());
                    Db.setLong(ps, 2, e.getValue().p50At());
                    Db.setLong(ps, 3, e.getValue().p90At());
                    ps.setString(4, e.getValue().note());
                    ps.setLong(5, bands.bandsAt());
                    ps.addBatch();
                }
                ps.executeBatch();
            }
            return null;
        });
    }

    /** The bands last saved (bandsAt null: none saved, or none of the last plan's waiting jobs had one). */
    public StartTimes.Snapshot load() {
        List<Row> rows = db.query("SELECT job_id, p50_at, p90_at, note, bands_at FROM start_bands", ps -> { },
                rs -> new Row(rs.getString(1), Db.nullableLong(rs, 2), Db.nullableLong(rs, 3), rs.getString(4), rs.getLong(5)));
        if (rows.isEmpty()) return StartTimes.Snapshot.NONE;
        Map<String, StartTimes.Shown> byJob = new HashMap<>();
        rows.forEach(r -> byJob.put(r.jobId(), new StartTimes.Shown(r.p50At(), r.p90At(), r.note())));
        return StartTimes.Snapshot.stored(rows.get(0).bandsAt(), Map.copyOf(byJob));
    }
}
