package dev.horizon.service.security;

import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Slows token guessing per source address: a source's failed token checks in the last minute beyond free-per-minute
 * are each answered after delay, at most delayed-at-once of them waiting at a time; a source past refuse-per-minute
 * failures has every token check refused (429, RESOURCE_EXHAUSTED on gRPC) without looking at the token until its
 * minute has passed, so a right guess among them proves nothing.
 */
@ApplicationScoped
public class FailedTokens {
    private static final long WINDOW_MILLIS = 60_000;
    /** Sources remembered at once; past it, sources with no failure inside the window are forgotten first. */
    private static final int MAX_SOURCES = 10_000;

    /** What to do with a source's next token check. */
    public enum Verdict { CHECK, DELAY, REFUSE }

    @ConfigProperty(name = "horizon.auth.free-failures-per-minute", defaultValue = "30")
    int freePerMinute;
    @ConfigProperty(name = "horizon.auth.refuse-after-failures-per-minute", defaultValue = "300")
    int refusePerMinute;
    @ConfigProperty(name = "horizon.auth.failure-delay", defaultValue = "1s")
    Duration delay;
    @ConfigProperty(name = "horizon.auth.delayed-at-once", defaultValue = "4")
    int delayedAtOnce;

    private final Map<String, Deque<Long>> failures = new ConcurrentHashMap<>();
    private final Map<String, AtomicInteger> waiting = new ConcurrentHashMap<>();

    /** Before checking a token from source: refuse outright while it is past the refusal limit. */
    public boolean refused(String source) {
        return recent(source, System.currentTimeMillis()) >= refusePerMinute;
    }

    /** After a failed check from source: counts it and says whether its answer waits (DELAY) or is refused at once (REFUSE). */
    public Verdict failed(String source) {
        long now = System.currentTimeMillis();
        if (failures.size() >= MAX_SOURCES) failures.keySet().removeIf(s -> recent(s, now) == 0);
        Deque<Long> times = failures.computeIfAbsent(source, s -> new ArrayDeque<>());
        synchronized (times) {
            times.addLast(now);
        }
        int recent = recent(source, now);
        if (recent <= freePerMinute) return Verdict.CHECK;
        return waiting.computeIfAbsent(source, s -> new AtomicInteger()).get() < delayedAtOnce ? Verdict.DELAY : Verdict.REFUSE;
    }

    /** Holds the calling (worker) thread for the delay; at most delayed-at-once threads per source wait at a time. */
    public void pause(String source) {
        AtomicInteger now = waiting.computeIfAbsent(source, s -> new AtomicInteger());
        now.incrementAndGet();
        try {
            Thread.sleep(delay.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            now.decrementAndGet();
        }
    }

    /** Seconds until the source's oldest failure in the window leaves it: when a refused source may try again. */
    public long retryAfterSeconds(String source) {
        Deque<Long> times = failures.get(source);
        if (times == null) return 1;
        synchronized (times) {
            Long oldest = times.peekFirst();
            return oldest == null ? 1 : Math.max(1, (oldest + WINDOW_MILLIS - System.currentTimeMillis() + 999) / 1000);
        }
    }

    private int recent(String source, long now) {
        Deque<Long> times = failures.get(source);
        if (times == null) return 0;
        synchronized (times) {
            while (!times.isEmpty() && times.peekFirst() <= now - WINDOW_MILLIS) times.removeFirst();
            return times.size();
        }
    }
}
