package dev.horizon.service.store;

import java.sql.SQLException;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import org.jboss.logging.Logger;

/**
 * Store work run again when the database gave up on it for contention alone: H2's lock timeout (many writers on one
 * embedded file, the planner's fenced commit holding the lease row) or a deadlock or serialization failure it broke. The
 * database rolled the whole transaction back, so running it again is safe, and the request succeeds instead of answering
 * 503 while the store is up.
 */
public final class LockRetry {
    private static final Logger LOG = Logger.getLogger(LockRetry.class);
    /** H2's lock timeout (HYT00), serialization failure and deadlock (40001, 40P01), PostgreSQL's NOWAIT lock (55P03). */
    private static final Set<String> CONTENTION = Set.of("HYT00", "40001", "40P01", "55P03");
    /** Attempts in all; the waits between them grow from 25 ms to 400 ms, with jitter so racing writers spread out. */
    static final int ATTEMPTS = 5;
    private static final long FIRST_WAIT_MILLIS = 25;

    /** One try of the work: it opens its own connection and transaction, so a retry starts clean. */
    public interface Attempt<T> {
        T run() throws SQLException;
    }

    private LockRetry() {
    }

    /** Runs the attempt, again up to ATTEMPTS in all while it fails for contention; any other failure at once. */
    public static <T> T run(Attempt<T> attempt) throws SQLException {
        for (int n = 1; ; n++) {
            try {
                return attempt.run();
            } catch (SQLException e) {
                if (!contention(e) || n == ATTEMPTS) throw e;
                LOG.debugf("store contention (%s, SQL state %s), attempt %d of %d: running the transaction again", e.getMessage(), e.getSQLState(), n,
                        ATTEMPTS);
                pause(n);
            }
        }
    }

    /** True when the database gave up on the transaction for contention alone. */
    public static boolean contention(SQLException e) {
        for (SQLException s = e; s != null; s = s.getNextException()) {
            if (s.getSQLState() != null && CONTENTION.contains(s.getSQLState())) return true;
        }
        return false;
    }

    private static void pause(int attempt) {
        long wait = FIRST_WAIT_MILLIS << (attempt - 1);
        try {
            Thread.sleep(wait + ThreadLocalRandom.current().nextLong(wait));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
