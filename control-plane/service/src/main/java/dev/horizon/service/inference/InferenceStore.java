package dev.horizon.service.inference;

import com.fasterxml.jackson.core.type.TypeReference;
import dev.horizon.allocator.model.InferenceService;
import dev.horizon.forecast.DemandForecaster;
import dev.horizon.service.clock.ServiceClock;
import dev.horizon.service.plans.PlannerSettings;
import dev.horizon.service.store.Db;
import dev.horizon.service.store.StoredJson;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.List;
import java.util.Optional;

/**
 * Inference services and their observed demand. Forecasters are rebuilt from the stored steps on every read
 * rather than cached, so a restart (or a second reader) forecasts exactly as before with nothing to warm up.
 */
@ApplicationScoped
public class InferenceStore {
    /** Four weeks: the forecaster looks back a week, and a week before that once it has two (the same weekday). */
    public static final int HISTORY_DAYS = 28;
    private static final TypeReference<List<String>> STRINGS = new TypeReference<>() {
    };

    @Inject
    ServiceClock clock;
    @Inject
    Db db;
    @Inject
    PlannerSettings settings;

    /**
     * A service as stored: heldGpus is what its agents last reported serving; heldOn the uuids of the GPUs they reported
     * serving on (empty when they report only a count); servedBy the nodes whose agents may report its demand.
     */
    public record Row(InferenceService service, int heldGpus, List<String> heldOn, List<String> servedBy) {
    }

    /** What the stored steps say: how many, the last one, the highest one and the forecaster fed with them. */
    public record Demand(int observedSteps, Double last, double peak, DemandForecaster forecaster) {
    }

    public List<Row> all() {
        return db.query("SELECT name, team, weight_per_gpu_hour, swap_cap_gpus, held_gpus, held_gpu_uuids, served_by FROM inference_services ORDER BY name",
                ps -> { }, rs -> new Row(new InferenceService(rs.getString(1), rs.getString(2), rs.getDouble(3), rs.getInt(4)), rs.getInt(5),
                        StoredJson.read(rs.getString(6), STRINGS), rs.getString(7) == null ? List.of() : StoredJson.read(rs.getString(7), STRINGS)));
    }

    public Optional<Row> find(String name) {
        return all().stream().filter(r -> r.service().name().equals(name)).findFirst();
    }

    /** A service no node's agent serves: only admins (a replay, the soak) report its demand. */
    public void insert(InferenceService s) {
        insert(s, List.of());
    }

    public void insert(InferenceService s, List<String> servedBy) {
        db.update("INSERT INTO inference_services (name, team, weight_per_gpu_hour, swap_cap_gpus, held_gpus, created_at, served_by)"
                + " VALUES (?, ?, ?, ?, 0, ?, ?)", ps -> {
                    ps.setString(1, s.name());
                    ps.setString(2, s.team());
                    ps.setDouble(3, s.weightPerGpuHour());
                    ps.setInt(4, s.swapCapGpus());
                    ps.setLong(5, clock.millis());
                    ps.setString(6, StoredJson.write(servedBy));
                });
    }

    public void delete(String name) {
        db.inTransaction(c -> {
            Db.update(c, "DELETE FROM inference_demand WHERE service = ?", ps -> ps.setString(1, name));
            return Db.update(c, "DELETE FROM inference_services WHERE name = ?", ps -> ps.setString(1, name));
        });
    }

    /** The GPUs the service's replicas hold now, by uuid; its held count follows. */
    public void setHeld(String name, List<String> gpuUuids) {
        db.update("UPDATE inference_services SET held_gpus = ?, held_gpu_uuids = ? WHERE name = ?", ps -> {
            ps.setInt(1, gpuUuids.size());
            ps.setString(2, StoredJson.write(gpuUuids));
            ps.setString(3, name);
        });
    }

    /** Appends the steps after the last stored one, and the held GPUs when reported, in one transaction. */
    public void report(String name, List<Double> gpus, Integer heldGpus) {
        long now = clock.millis();
        db.inTransaction(c -> {
            int next = Db.query(c, "SELECT COALESCE(MAX(step), -1) FROM inference_demand WHERE service = ?", ps -> ps.setString(1, name),
                    rs -> rs.getInt(1)).get(0) + 1;
            for (int i = 0; i < gpus.size(); i++) {
                int step = next + i;
                double g = gpus.get(i);
                Db.update(c, "INSERT INTO inference_demand (service, step, gpus, reported_at) VALUES (?, ?, ?, ?)", ps -> {
                    ps.setString(1, name);
                    ps.setInt(2, step);
                    ps.setDouble(3, g);
                    ps.setLong(4, now);
                });
            }
            if (heldGpus != null) {
                // a count without GPUs: which GPUs serve is no longer known
                Db.update(c, "UPDATE inference_services SET held_gpus = ?, held_gpu_uuids = '[]' WHERE name = ?", ps -> {
                    ps.setInt(1, heldGpus);
                    ps.setString(2, name);
                });
            }
            return null;
        });
    }

    /** The stored steps the forecaster looks back over (the last four weeks), oldest first. */
    public double[] observedSteps(String name) {
        return recentSteps(name).stream().mapToDouble(Double::doubleValue).toArray();
    }

    private List<Double> recentSteps(String name) {
        int stepsPerDay = stepsPerDay();
        return db.query("SELECT gpus FROM (SELECT step, gpus FROM inference_demand WHERE service = ? ORDER BY step DESC LIMIT ?) recent"
                + " ORDER BY step", ps -> {
                    ps.setString(1, name);
                    ps.setInt(2, HISTORY_DAYS * stepsPerDay);
                }, rs -> rs.getDouble(1));
    }

    /** The last steps observed, oldest first, and when the newest was reported (epoch ms; null before any). */
    public record Recent(List<Double> gpus, Long lastReportedAt) {
    }

    public Recent recent(String name, int steps) {
        record Step(double gpus, long reportedAt) {
        }
        List<Step> newestFirst = db.query("SELECT gpus, reported_at FROM inference_demand WHERE service = ? ORDER BY step DESC LIMIT ?", ps -> {
            ps.setString(1, name);
            ps.setInt(2, steps);
        }, rs -> new Step(rs.getDouble(1), rs.getLong(2)));
        List<Double> gpus = new java.util.ArrayList<>();
        for (int i = newestFirst.size() - 1; i >= 0; i--) gpus.add(newestFirst.get(i).gpus());
        return new Recent(gpus, newestFirst.isEmpty() ? null : newestFirst.get(0).reportedAt());
    }

    public Demand demand(String name) {
        List<Double> steps = recentSteps(name);
        DemandForecaster forecaster = new DemandForecaster(stepsPerDay(), 7);
        steps.forEach(forecaster::observe);
        int observed = db.query("SELECT COUNT(*) FROM inference_demand WHERE service = ?", ps -> ps.setString(1, name), rs -> rs.getInt(1)).get(0);
        return new Demand(observed, steps.isEmpty() ? null : steps.get(steps.size() - 1), forecaster.peak(), forecaster);
    }

    /** Demand is reported per planner step (15 minutes by default), so a day has this many. */
    public int stepsPerDay() {
        return (int) Math.max(1, 86_400 / settings.stepSeconds());
    }
}
