package dev.horizon.agent;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EpochFenceTest {
    @TempDir
    Path state;

    @Test
    void aRestartedAgentStillRefusesTheDeposedLeader() {
        new EpochFence(state).admit("from-new-leader", 7);

        EpochFence afterRestart = new EpochFence(state);
        CommandFailure refused = assertThrows(CommandFailure.class, () -> afterRestart.admit("from-old-leader", 6));
        assertTrue(refused.getMessage().contains("epoch 6") && refused.getMessage().contains("epoch 7"), refused.getMessage());
        assertDoesNotThrow(() -> afterRestart.admit("again-from-new-leader", 7));
    }

    @Test
    void aFreshAgentTakesAnyEpochAndAnUnreadableFileSaysWhatToDo() throws Exception {
        assertDoesNotThrow(() -> new EpochFence(state).admit("first", 1));
        Files.writeString(state.resolve(EpochFence.FILE), "not a number");
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> new EpochFence(state));
        assertTrue(e.getMessage().contains(EpochFence.FILE) && e.getMessage().contains("delete the file"), e.getMessage());
    }
}
