package dev.horizon.service.fairshare;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Owed GPU-hours delivered per team over the last 7 days: GPU-hours held over GPU-hours owed by fair share, capped at 1,
 * read from the hourly aggregates the plans book (one grouped query, however many jobs ran), so a restart loses nothing.
 * A team owed nothing in the window has no value.
 */
@Singleton
public class OwedDelivered {
    @Inject
    MeterRegistry registry;
    @Inject
    UsageStore usage;

    private volatile Map<String, Double> delivered = Map.of();
    private final Map<String, Gauge> gauges = new HashMap<>();

    public Optional<Double> of(String team) {
        return Optional.ofNullable(delivered.get(team));
    }

    /** After a plan: re-reads the window ending at now; teams: every team, so each has its gauge. */
    public void refresh(long now, Collection<String> teams) {
        delivered = FairShareWindow.delivered(usage.totals(FairShareWindow.fromHour(now), FairShareWindow.toHour(now)));
        // a gauge per team, reading the latest map; a team owed nothing in the window reads NaN (no value) rather than a stale one
        synchronized (gauges) {
            for (String team : teams) {
                gauges.computeIfAbsent(team, name -> Gauge.builder("horizon_owed_gpu_hours_delivered", this, o -> o.delivered.getOrDefault(name, Double.NaN))
                        .tag("team", name).description("GPU-hours run over GPU-hours owed by fair share, last 7 days, capped at 1").register(registry));
            }
        }
    }
}
