package dev.horizon.service.planning;

import com.fasterxml.jackson.core.type.TypeReference;
import dev.horizon.service.leadership.Leadership;
import dev.horizon.service.store.Db;
import dev.horizon.service.store.StoredJson;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.List;
import java.util.Optional;

/**
 * The leader's last plan and the history of what recent plans left, in the store, so that every replica reads the same
 * plan and a failover keeps the history. Only the leader writes, fenced by its epoch like the plan's commit. The history
 * keeps {@link #MAX_POINTS} points, one per minute of the clock (the minute's last plan), so neither a burst of
 * arrivals nor a planner that runs every few seconds pushes the day out.
 */
@ApplicationScoped
public class PlanStore {
    /** A day of one plan a minute. */
    static final int MAX_POINTS = 1440;
    private static final long MINUTE = 60;
    private static final TypeReference<Planner.PlanSnapshot> SNAPSHOT = new TypeReference<>() { };

    @Inject
    Db db;
    @Inject
    Leadership leadership;

    /** Stores the plan as the current one and its point in the history, if this replica still leads in epoch. */
    void record(Planner.PlanSnapshot plan, PlanHistory.Point point, long epoch) {
        db.inTransaction(c -> {
            leadership.fence(c, epoch);
            Db.update(c, "UPDATE plan_snapshot SET planned_at = ?, leader_epoch = ?, snapshot = ? WHERE name = 'current'", ps -> {
                ps.setLong(1, plan.now());
                ps.setLong(2, epoch);
                ps.setString(3, StoredJson.write(plan));
            });
            long minute = Math.floorDiv(point.at(), MINUTE) * MINUTE;
            int merged = Db.update(c, "DELETE FROM plan_history WHERE planned_at >= ?", ps -> ps.setLong(1, minute));
            Db.update(c, "INSERT INTO plan_history (planned_at, total_gpus, busy_gpus, pending_jobs, inference_demand_gpus, inference_served_gpus,"
                    + " inference_held_gpus, inference_reserved_gpus) VALUES (?, ?, ?, ?, ?, ?, ?, ?)", ps -> {
                        ps.setLong(1, point.at());
                        ps.setInt(2, point.totalGpus());
                        ps.setInt(3, point.busyGpus());
                        ps.setInt(4, point.pendingJobs());
                        ps.setInt(5, point.inferenceDemandGpus());
                        ps.setInt(6, point.inferenceServedGpus());
                        ps.setInt(7, point.inferenceHeldGpus());
                        ps.setInt(8, point.inferenceReservedGpus());
                    });
            // a new point (not one that replaced the last) may push the oldest out
            if (merged == 0) {
                Db.update(c, "DELETE FROM plan_history WHERE planned_at < (SELECT MIN(planned_at) FROM (SELECT planned_at FROM plan_history"
                        + " ORDER BY planned_at DESC LIMIT " + MAX_POINTS + ") newest)", ps -> { });
            }
            return null;
        });
    }

    /** The leader's last plan, empty before any replica planned. */
    public Optional<Planner.PlanSnapshot> current() {
        return db.query("SELECT snapshot FROM plan_snapshot WHERE name = 'current' AND snapshot IS NOT NULL", ps -> { },
                rs -> StoredJson.read(rs.getString(1), SNAPSHOT)).stream().findFirst();
    }

    /** The history, oldest first. */
    public List<PlanHistory.Point> history() {
        return db.query("SELECT planned_at, total_gpus, busy_gpus, pending_jobs, inference_demand_gpus, inference_served_gpus, inference_held_gpus,"
                + " inference_reserved_gpus FROM plan_history ORDER BY planned_at", ps -> { }, rs -> new PlanHistory.Point(rs.getLong(1), rs.getInt(2),
                        rs.getInt(3), rs.getInt(4), rs.getInt(5), rs.getInt(6), rs.getInt(7), rs.getInt(8)));
    }
}
