package dev.horizon.service.leadership;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class LeaseTimesTest {
    @Test
    void aLeaseOfTwoRenewIntervalsIsRefusedWithTheFieldsToChange() {
        // at twice the interval a leader stops acting at every renewal, for as long as the renewal takes
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Leadership.checkTimes(2, 1));
        assertTrue(e.getMessage().contains("horizon.leader.lease-seconds (2) must be at least three times horizon.leader.renew-seconds (1)"),
                e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Leadership.checkTimes(10, 0), "a renew interval under 1 s");
    }

    @Test
    void theDefaultsAndTheTestProfilesTimesAreAccepted() {
        assertDoesNotThrow(() -> Leadership.checkTimes(10, 2));
        assertDoesNotThrow(() -> Leadership.checkTimes(4, 1));
        assertDoesNotThrow(() -> Leadership.checkTimes(3, 1));
    }
}
