package dev.horizon.agent;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The highest control-plane leader epoch this agent has taken a command from, kept in the state directory: a
 * restarted agent must still refuse a deposed leader, which may go on sending after a failover.
 */
final class EpochFence {
    static final String FILE = "leader-epoch";
    private final Path file;
    private long highest;

    EpochFence(Path stateDir) {
        this.file = stateDir.resolve(FILE);
        this.highest = read(file);
    }

    private static long read(Path file) {
        if (!Files.exists(file)) return 0;
        try {
            return Long.parseLong(Files.readString(file).trim());
        } catch (IOException | NumberFormatException e) {
            throw new IllegalStateException("cannot read the leader epoch from " + file.toAbsolutePath() + ": " + e
                    + "; delete the file only if every control-plane replica of an older epoch is gone");
        }
    }

    /** Takes a command of this epoch, or refuses it (CommandFailure) when a newer leader's command came before. */
    synchronized void admit(String commandId, long epoch) {
        if (epoch < highest) {
            throw new CommandFailure("command " + commandId + " refused: it comes from control-plane leader epoch " + epoch
                    + ", older than epoch " + highest + " this agent already follows; a deposed leader sent it");
        }
        if (epoch > highest) {
            StateFiles.writeAtomically(file, Long.toString(epoch), "horizon.agent.state-dir");
            highest = epoch;
        }
    }
}
