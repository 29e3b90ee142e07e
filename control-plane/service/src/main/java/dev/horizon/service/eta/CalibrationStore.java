package dev.horizon.service.eta;

import dev.horizon.allocator.eta.Calibrator;
import dev.horizon.service.store.Db;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.List;
import java.util.Optional;

/** The start-time bands' calibration as last saved: one row per quantile level, replaced whole on each save. */
@ApplicationScoped
public class CalibrationStore {
    @Inject
    Db db;

    /** A saved calibration: what was learnt, which control plane saved it (an id of its process) and at what plan time. */
    public record Saved(Calibrator.Learnt learnt, String writer, long savedAt) {
    }

    private record Level(int index, double logFactor, int outcomes, String writer, long savedAt) {
    }

    public void save(Calibrator.Learnt learnt, String writer, long savedAt) {
        db.inTransactionRetrying(c -> {
            Db.update(c, "DELETE FROM eta_calibration", ps -> { });
            for (int i = 0; i < learnt.logFactors().length; i++) {
                int level = i;
                Db.update(c, "INSERT INTO eta_calibration (level_index, log_factor, outcomes, writer, saved_at) VALUES (?, ?, ?, ?, ?)", ps -> {
                    ps.setInt(1, level);
                    ps.setDouble(2, learnt.logFactors()[level]);
                    ps.setInt(3, learnt.outcomes()[level]);
                    ps.setString(4, writer);
                    ps.setLong(5, savedAt);
                });
            }
            return null;
        });
    }

    /** The calibration last saved; empty when none was, or when what is stored is not one row per level of this version. */
    public Optional<Saved> load() {
        List<Level> rows = db.query("SELECT level_index, log_factor, outcomes, writer, saved_at FROM eta_calibration ORDER BY level_index", ps -> { },
                rs -> new Level(rs.getInt(1), rs.getDouble(2), rs.getInt(3), rs.getString(4), rs.getLong(5)));
        int levels = Calibrator.LEVELS.length;
        if (rows.size() != levels) return Optional.empty();
        double[] logFactors = new double[levels];
        int[] outcomes = new int[levels];
        for (int i = 0; i < levels; i++) {
            if (rows.get(i).index() != i) return Optional.empty();
            logFactors[i] = rows.get(i).logFactor();
            outcomes[i] = rows.get(i).outcomes();
        }
        return Optional.of(new Saved(new Calibrator.Learnt(logFactors, outcomes), rows.get(0).writer(), rows.get(0).savedAt()));
    }
}
