package dev.horizon.service.clock;

import jakarta.inject.Singleton;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * The one clock every part of the service reads scheduling time from (submissions, starts, ends, plans, commands,
 * heartbeats). {@code horizon.clock=system} (the default) is wall time; {@code horizon.clock=virtual} is time that only
 * a replay moves ({@link #advanceTo}), never wall time, so a scenario replayed through the service sees the moments the
 * simulator sees. A virtual clock starts at {@code horizon.clock.start} (ISO-8601 UTC; {@code ./horizon demo} sets the
 * demo day's date so what it stamps reads as a date of this year), by default at the epoch, where replayed scenarios
 * count their seconds from. The leader lease and tokens are not
 * scheduling time: the lease keeps the database's clock and tokens the wall clock in both modes.
 */
@Singleton
public class ServiceClock {
    private final boolean virtual;
    private final AtomicLong virtualMillis = new AtomicLong();

    public ServiceClock(@ConfigProperty(name = "horizon.clock", defaultValue = "system") String mode,
                        @ConfigProperty(name = "horizon.clock.start") Optional<String> start) {
        if (!"system".equals(mode) && !"virtual".equals(mode)) {
            throw new IllegalArgumentException("horizon.clock must be system or virtual (got '" + mode + "')");
        }
        this.virtual = "virtual".equals(mode);
        if (virtual) virtualMillis.set(startMillis(start));
    }

    private static long startMillis(Optional<String> start) {
        if (start.isEmpty() || start.get().isBlank()) return 0;
        try {
            return Instant.parse(start.get().strip()).toEpochMilli();
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException("horizon.clock.start must be an ISO-8601 UTC time such as 2026-10-09T00:00:00Z (got '" + start.get() + "')");
        }
    }

    public boolean virtual() {
        return virtual;
    }

    public long millis() {
        return virtual ? virtualMillis.get() : System.currentTimeMillis();
    }

    /** Epoch seconds, the allocator's unit. */
    public long seconds() {
        return millis() / 1000;
    }

    /** Moves virtual time forward to epochMillis; time never goes back, and a system clock cannot be moved. */
    public void advanceTo(long epochMillis) {
        if (!virtual) throw new IllegalStateException("the clock follows wall time; start the service with horizon.clock=virtual to replay");
        long before = virtualMillis.getAndAccumulate(epochMillis, Math::max);
        if (epochMillis < before) throw new IllegalArgumentException("virtual time goes forward only: at " + before + " ms, asked for " + epochMillis);
    }
}
