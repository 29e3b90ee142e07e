package dev.horizon.service.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** A write that waits on a lock past H2's lock timeout runs again inside the store instead of failing its request. */
class LockRetryTest {
    /** An H2 of its own whose sessions give up on a lock after 100 ms, so a timeout comes fast. */
    private static final String URL = "jdbc:h2:mem:lock-retry;DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=100";

    @Test
    void aLockTimeoutIsRetriedUntilTheHolderCommits() throws Exception {
        try (Connection holder = DriverManager.getConnection(URL); Statement s = holder.createStatement()) {
            s.execute("CREATE TABLE IF NOT EXISTS lease (name VARCHAR(16) PRIMARY KEY, epoch BIGINT)");
            s.execute("MERGE INTO lease KEY (name) VALUES ('planner', 1)");
            holder.setAutoCommit(false);
            s.executeUpdate("UPDATE lease SET epoch = epoch + 1 WHERE name = 'planner'");
            // the holder keeps the row locked for 300 ms: three lock timeouts of the writer below
            Thread release = new Thread(() -> {
                try {
                    Thread.sleep(300);
                    holder.commit();
                } catch (InterruptedException | SQLException e) {
                    throw new IllegalStateException(e);
                }
            });
            release.start();
            AtomicInteger attempts = new AtomicInteger();
            AtomicInteger timeouts = new AtomicInteger();
            int updated = LockRetry.run(() -> {
                attempts.incrementAndGet();
                try (Connection c = DriverManager.getConnection(URL); Statement w = c.createStatement()) {
                    return w.executeUpdate("UPDATE lease SET epoch = epoch + 10 WHERE name = 'planner'");
                } catch (SQLException e) {
                    if (LockRetry.contention(e)) timeouts.incrementAndGet();
                    throw e;
                }
            });
            release.join();
            assertEquals(1, updated);
            assertTrue(timeouts.get() >= 1 && attempts.get() == timeouts.get() + 1, "timed out " + timeouts + " times, then succeeded: " + attempts);
            try (Connection c = DriverManager.getConnection(URL); Statement r = c.createStatement(); var rs = r.executeQuery("SELECT epoch FROM lease")) {
                rs.next();
                assertEquals(12, rs.getLong(1), "both writes landed, once each");
            }
        }
    }

    @Test
    void otherFailuresAndEndlessContentionAreNotHidden() {
        AtomicInteger attempts = new AtomicInteger();
        SQLException syntax = assertThrows(SQLException.class, () -> LockRetry.run(() -> {
            attempts.incrementAndGet();
            throw new SQLException("syntax", "42000");
        }));
        assertEquals("42000", syntax.getSQLState());
        assertEquals(1, attempts.get(), "a failure that is not contention is not retried");
        assertFalse(LockRetry.contention(syntax));

        attempts.set(0);
        assertThrows(SQLException.class, () -> LockRetry.run(() -> {
            attempts.incrementAndGet();
            throw new SQLException("Timeout trying to lock table", "HYT00");
        }));
        assertEquals(LockRetry.ATTEMPTS, attempts.get(), "contention is retried a bounded number of times");
    }
}
