package dev.horizon.api.cli;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/** Runs a command-line entry point in the test's JVM and keeps what it printed; shared by the adapters' tests. */
public final class CommandRunner {
    /** An entry point that prints to the streams it is given and returns its exit code. */
    @FunctionalInterface
    public interface Command {
        int run(String[] args, PrintStream out, PrintStream err);
    }

    public record Result(int exit, String out, String err) {
    }

    private CommandRunner() {
    }

    public static Result run(Command command, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit = command.run(args, new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Result(exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    /** Writes {@code text} to {@code dir/name}, the file a test then hands to a command, and returns its path. */
    public static Path write(Path dir, String name, String text) {
        try {
            return Files.writeString(dir.resolve(name), text);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
