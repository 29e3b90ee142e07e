package dev.horizon.service.leadership;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.horizon.service.store.Db;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

/**
 * On the embedded H2 file this process is the only one that can open the store, so a lease whose renewals came late (H2
 * lock timeouts under a burst of writes) is still its own: it keeps leading and its fenced writes still commit.
 */
@QuarkusTest
class SoleLeaseTest {
    @Inject
    Leadership leadership;
    @Inject
    Db db;

    @Test
    void aLoneH2ReplicaKeepsALeaseItsRenewalsLetLapse() {
        assertEquals("h2", db.kind());
        long epoch = leadership.epoch();
        assertTrue(epoch > 0, "the lone replica leads");
        // what renewals that timed out for longer than the lease leave behind: the row says the lease ran out
        db.update("UPDATE leader_lease SET expires_at = TIMESTAMP WITH TIME ZONE '1970-01-01 00:00:00+00' WHERE name = 'planner' AND holder = ?",
                ps -> ps.setString(1, leadership.id()));
        long fenced = db.inTransaction(c -> {
            leadership.fence(c, epoch);
            return epoch;
        });
        assertEquals(epoch, fenced, "the fence lets the lone leader's writes through");
        assertTrue(leadership.leading(), "it still leads");
        assertEquals(epoch, leadership.epoch(), "in the same epoch");
    }
}
