package dev.horizon.service.security;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Per source: free failures, then delayed answers (a few at once), then every check refused until the minute passes. */
class FailedTokensTest {
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
        assertEquals(FailedTokens.Verdict.CHECK, f.failed("10.0.0.1"));
        assertEquals(FailedTokens.Verdict.CHECK, f.failed("10.0.0.1"));
        assertEquals(FailedTokens.Verdict.DELAY, f.failed("10.0.0.1"));
        assertFalse(f.refused("10.0.0.1"));
        f.failed("10.0.0.1");
        f.failed("10.0.0.1");
        assertTrue(f.refused("10.0.0.1"), "five failures in a minute: refused without a look at the token");
        assertTrue(f.retryAfterSeconds("10.0.0.1") >= 59, "until the first of them is a minute old");
        assertFalse(f.refused("10.0.0.2"), "another source is not touched");
        assertEquals(FailedTokens.Verdict.CHECK, f.failed("10.0.0.2"));
    }
}
