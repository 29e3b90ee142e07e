package dev.horizon.service.fairshare;

import com.fasterxml.jackson.core.type.TypeReference;
import dev.horizon.service.store.Db;
import dev.horizon.service.store.StoredJson;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The fair-share aggregates: per team and hour the GPU-seconds held and owed ({@code team_usage_hourly}), and how far
 * they are booked ({@code fair_share_ledger}). A plan reads the ledger and the run segments since it, and books the
 * stretch in its own commit, so what is booked is exactly what was planned; a plan that fails to commit books nothing.
 */
@ApplicationScoped
public class UsageStore {
    private static final TypeReference<Map<String, Double>> OWED = new TypeReference<>() {
    };
    private static final String LEDGER = "teams";

    @Inject
    Db db;

    /** Booked up to bookedUntil (-1: never); owedNow is what each team is owed from then on. */
    public record Ledger(long bookedUntil, Map<String, Double> owedNow) {
    }

    /** GPU-seconds held and owed by one team over some hours. */
    public record Totals(double used, double owed) {
        Totals plus(double u, double o) {
            return new Totals(used + u, owed + o);
        }
    }

    public Ledger ledger() {
        return db.query("SELECT booked_until, owed_now FROM fair_share_ledger WHERE name = ?", ps -> ps.setString(1, LEDGER),
                rs -> new Ledger(rs.getLong(1), StoredJson.read(rs.getString(2), OWED))).get(0);
    }

    /** Run segments that held GPUs at some point at or after fromSeconds: those still open and those that ended after it. */
    public List<UsageBooking.Held> heldSince(long fromSeconds) {
        return db.query("SELECT team, gpus, started_at, ended_at FROM run_segments WHERE ended_at IS NULL OR ended_at > ?",
                ps -> ps.setLong(1, fromSeconds), rs -> new UsageBooking.Held(rs.getString(1), rs.getDouble(2), rs.getLong(3),
                        rs.getObject(4) == null ? null : rs.getLong(4)));
    }

    /** Per team, the GPU-seconds held and owed in hours fromHour..toHour (both included). */
    public Map<String, Totals> totals(long fromHour, long toHour) {
        Map<String, Totals> out = new HashMap<>();
        db.query("SELECT team, SUM(used_gpu_seconds), SUM(owed_gpu_seconds) FROM team_usage_hourly WHERE hour_index BETWEEN ? AND ? GROUP BY team",
                ps -> {
                    ps.setLong(1, fromHour);
                    ps.setLong(2, toHour);
                }, rs -> Map.entry(rs.getString(1), new Totals(rs.getDouble(2), rs.getDouble(3)))).forEach(e -> out.put(e.getKey(), e.getValue()));
        return out;
    }

    /** Adds a booking to totals already read, as if it were stored: what a plan sees of the stretch it is about to book. */
    public static Map<String, Totals> withBooking(Map<String, Totals> totals, List<UsageBooking.Hourly> booking, long fromHour, long toHour) {
        Map<String, Totals> out = new HashMap<>(totals);
        for (UsageBooking.Hourly h : booking) {
            if (h.hour() >= fromHour && h.hour() <= toHour) out.merge(h.team(), new Totals(h.used(), h.owed()), (a, b) -> a.plus(b.used(), b.owed()));
        }
        return out;
    }

    /**
     * Inside the plan's transaction: adds the booking to the hourly rows and moves the ledger to bookedUntil with what
     * each team is owed from then on (bookedUntil below 0: the ledger stays where it is). Only the leader books, under the
     * lease the transaction holds, so an UPDATE that finds no row can INSERT it without a race.
     */
    public static void book(Connection c, List<UsageBooking.Hourly> booking, long bookedUntil, Map<String, Double> owedNext) throws SQLException {
        if (!booking.isEmpty()) {
            int[] updated;
            try (PreparedStatement ps = c.prepareStatement("UPDATE team_usage_hourly SET used_gpu_seconds = used_gpu_seconds + ?,"
                    + " owed_gpu_seconds = owed_gpu_seconds + ? WHERE team = ? AND hour_index = ?")) {
                for (UsageBooking.Hourly h : booking) {
                    ps.setDouble(1, h.used());
                    ps.setDouble(2, h.owed());
                    ps.setString(3, h.team());
                    ps.setLong(4, h.hour());
                    ps.addBatch();
                }
                updated = ps.executeBatch();
            }
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO team_usage_hourly (team, hour_index, used_gpu_seconds, owed_gpu_seconds)"
                    + " VALUES (?, ?, ?, ?)")) {
                boolean any = false;
                for (int i = 0; i < booking.size(); i++) {
                    if (updated[i] != 0) continue;
                    UsageBooking.Hourly h = booking.get(i);
                    ps.setString(1, h.team());
                    ps.setLong(2, h.hour());
                    ps.setDouble(3, h.used());
                    ps.setDouble(4, h.owed());
                    ps.addBatch();
                    any = true;
                }
                if (any) ps.executeBatch();
            }
        }
        if (bookedUntil < 0) return;
        Db.update(c, "UPDATE fair_share_ledger SET booked_until = ?, owed_now = ? WHERE name = ?", ps -> {
            ps.setLong(1, bookedUntil);
            ps.setString(2, StoredJson.write(owedNext));
            ps.setString(3, LEDGER);
        });
    }
}
