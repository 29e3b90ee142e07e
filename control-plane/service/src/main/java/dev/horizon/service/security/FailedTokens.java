package dev.horizon.service.security;

import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Slows token guessing per source address, for REST and the agents' gRPC alike: a source's failed token checks in the
 * last minute beyond free-per-minute are each answered after delay, at most delayed-at-once of them waiting at a time
 * (more are refused at once); a source past refuse-per-minute failures has every token check refused (429,
 * RESOURCE_EXHAUSTED on gRPC) without looking at the token until its minute has passed, so a right guess among them
 * proves nothing. The delay holds no thread: {@link #failed} completes when the answer may go.
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

    /**
     * After a failed check from source: counts it and completes with what to answer, the refusal as it is (CHECK) or a
     * 429 (REFUSE), at once, or (DELAY, the refusal as it is) once the delay has passed. REST's worker thread waits for
     * it; gRPC closes the call when it completes, leaving the event loop that accepted the call free.
     */
    public CompletionStage<Verdict> failed(String source) {
        long now = System.currentTimeMillis();
        if (failures.size() >= MAX_SOURCES) failures.keySet().removeIf(s -> recent(s, now) == 0);
        Deque<Long> times = failures.computeIfAbsent(source, s -> new ArrayDeque<>());
        synchronized (times) {
            times.addLast(now);
        }
        if (recent(source, now) <= freePerMinute) return CompletableFuture.completedFuture(Verdict.CHECK);
        AtomicInteger delayed = waiting.computeIfAbsent(source, s -> new AtomicInteger());
        if (delayed.incrementAndGet() > delayedAtOnce) {
            delayed.decrementAndGet();
            return CompletableFuture.completedFuture(Verdict.REFUSE);
        }
        return CompletableFuture.supplyAsync(() -> {
            delayed.decrementAndGet();
            return Verdict.DELAY;
        }, CompletableFuture.delayedExecutor(delay.toMillis(), TimeUnit.MILLISECONDS));
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
