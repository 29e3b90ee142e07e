package dev.horizon.service.fairshare;

import dev.horizon.service.clock.ServiceClock;
import dev.horizon.service.teams.Team;
import dev.horizon.service.teams.TeamStore;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.scheduler.Scheduled;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import java.util.HashMap;
import java.util.Map;

/**
 * Owed GPU-hours delivered per team over the last 7 days: GPU-hours held over GPU-hours owed by fair share, capped at 1,
 * read from the hourly aggregates the plans book (one grouped query, however many jobs ran), so a restart loses nothing
 * and every replica answers the same. A team owed nothing in the window has no value. Nothing of it runs on the planner's
 * thread: the API reads it when asked, and the gauges (delivered, and the owed and held GPU-hours behind it) are
 * refreshed on a schedule on every replica.
 */
@Singleton
public class OwedDelivered {
    private static final double SECONDS_PER_HOUR = 3600;

    @Inject
    MeterRegistry registry;
    @Inject
    UsageStore usage;
    @Inject
    TeamStore teams;
    @Inject
    ServiceClock clock;

    private volatile Map<String, UsageStore.Totals> window = Map.of();
    private final Map<String, Boolean> gauged = new HashMap<>();

    /** A team's GPU-hours owed and held over the window, and delivered (held over owed, capped at 1; null when owed nothing). */
    public record TeamHours(double owed, double held, Double delivered) {
        public static final TeamHours NONE = new TeamHours(0, 0, null);
    }

    /** Every team that ran or was owed anything over the window ending now, read in one query. */
    public Map<String, TeamHours> hoursByTeam() {
        Map<String, UsageStore.Totals> t = totals();
        Map<String, Double> delivered = FairShareWindow.delivered(t);
        Map<String, TeamHours> out = new HashMap<>();
        t.forEach((team, totals) -> out.put(team, new TeamHours(hours(totals, true), hours(totals, false), delivered.get(team))));
        return out;
    }

    @Scheduled(every = "15s", concurrentExecution = Scheduled.ConcurrentExecution.SKIP)
    void refresh() {
        window = totals();
        synchronized (gauged) {
            for (Team t : teams.all()) gauged.computeIfAbsent(t.name(), this::register);
        }
    }

    private Map<String, UsageStore.Totals> totals() {
        long now = clock.seconds();
        return usage.totals(FairShareWindow.fromHour(now), FairShareWindow.toHour(now));
    }

    /** A team's gauges, reading the latest window; owed nothing, it reads NaN (no value) rather than a stale one. */
    private boolean register(String team) {
        Gauge.builder("horizon_owed_gpu_hours_delivered", this, o -> FairShareWindow.delivered(o.window).getOrDefault(team, Double.NaN))
                .tag("team", team).description("GPU-hours run over GPU-hours owed by fair share, last 7 days, capped at 1").register(registry);
        Gauge.builder("horizon_owed_gpu_hours", this, o -> hours(o.window.get(team), true)).tag("team", team)
                .description("GPU-hours fair share owed the team over the last 7 days").register(registry);
        Gauge.builder("horizon_delivered_gpu_hours", this, o -> hours(o.window.get(team), false)).tag("team", team)
                .description("GPU-hours the team's work held over the last 7 days").register(registry);
        return true;
    }

    private static double hours(UsageStore.Totals t, boolean owed) {
        return t == null ? 0 : (owed ? t.owed() : t.used()) / SECONDS_PER_HOUR;
    }
}
