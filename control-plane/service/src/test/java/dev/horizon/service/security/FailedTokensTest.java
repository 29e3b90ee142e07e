package dev.horizon.service.security;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** Per source: free failures, then delayed answers (a few at once), then every check refused until the minute passes. */
class FailedTokensTest {
    private static FailedTokens.Verdict verdict(FailedTokens f, String source) {
        return f.failed(source).toCompletableFuture().join();
    }

    private static FailedTokens limits(int free, int refuse, int atOnce) {
        FailedTokens f = new FailedTokens();
        f.freePerMinute = free;
        f.refusePerMinute = refuse;
        f.delayedAtOnce = atOnce;
        f.delay = Duration.ofMillis(1);
        return f;
    }

    @Test
    void aSourceIsSlowedThenRefusedAndOthersAreNot() {
        FailedTokens f = limits(2, 5, 1);
        assertEquals(FailedTokens.Verdict.CHECK, verdict(f, "10.0.0.1"));
        assertEquals(FailedTokens.Verdict.CHECK, verdict(f, "10.0.0.1"));
        assertEquals(FailedTokens.Verdict.DELAY, verdict(f, "10.0.0.1"));
        assertFalse(f.refused("10.0.0.1"));
        verdict(f, "10.0.0.1");
        verdict(f, "10.0.0.1");
        assertTrue(f.refused("10.0.0.1"), "five failures in a minute: refused without a look at the token");
        assertTrue(f.retryAfterSeconds("10.0.0.1") >= 59, "until the first of them is a minute old");
        assertFalse(f.refused("10.0.0.2"), "another source is not touched");
        assertEquals(FailedTokens.Verdict.CHECK, verdict(f, "10.0.0.2"));
    }

    @Test
    void aDelayedAnswerHoldsNoThreadAndOnlyAFewWaitAtOnce() {
        FailedTokens f = limits(0, 100, 1);
        f.delay = Duration.ofMillis(300);
        long started = System.nanoTime();
        CompletableFuture<FailedTokens.Verdict> first = f.failed("10.0.0.3").toCompletableFuture();
        assertFalse(first.isDone(), "the caller is handed back at once; the answer waits");
        assertEquals(FailedTokens.Verdict.REFUSE, verdict(f, "10.0.0.3"), "one waits at a time: the next is refused at once");
        assertEquals(FailedTokens.Verdict.DELAY, first.join());
        assertTrue((System.nanoTime() - started) / 1_000_000 >= 300, "the delayed answer came after the delay");
        assertEquals(FailedTokens.Verdict.DELAY, verdict(f, "10.0.0.3"), "once it was answered, the next waits again");
    }
}
