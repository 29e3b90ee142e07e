package dev.horizon.agent;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/** Files the agent keeps in horizon.agent.state-dir, written whole or not at all so a crash never leaves half a file. */
final class StateFiles {
    private StateFiles() {
    }

    static void writeAtomically(Path path, String text, String setting) {
        Path file = path.toAbsolutePath();
        try {
            Files.createDirectories(file.getParent());
            Path tmp = Files.createTempFile(file.getParent(), file.getFileName().toString(), ".tmp");
            Files.writeString(tmp, text);
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new CommandFailure("cannot write " + file + ": " + e + "; set " + setting + " to a writable path");
        }
    }
}
