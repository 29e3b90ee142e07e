package dev.horizon.kit.manifest;

import java.io.PrintStream;

/**
 * One adapter's {@code translate} command, found by {@link TranslateAny} through {@link java.util.ServiceLoader}
 * (META-INF/services), so {@code ./horizon translate FILE} reads the kind from the file and hands it to the adapter that
 * reads it, without the API module knowing the adapters.
 */
public interface TranslateSource {
    /** The source's name on the command line ({@code translate kubeflow FILE}). */
    String name();

    /** The kinds it reads. */
    KindsRead reads();

    /** Runs {@code translate NAME FILE OPTIONS...}; returns the exit code. */
    int run(String[] args, PrintStream out, PrintStream err);
}
