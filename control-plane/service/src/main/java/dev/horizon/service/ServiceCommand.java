package dev.horizon.service;

import java.io.PrintStream;
import java.util.List;

/**
 * A command the control plane runs in-process instead of serving ({@link HorizonMain}): a bean of the application, so
 * an application built on the service (the lab's, with {@code bench} and {@code soak}) adds its own by being a bean.
 */
public interface ServiceCommand {
    /** The first argument that selects this command. */
    String name();

    /** Runs with the arguments after the name; the exit status. */
    int run(List<String> args, PrintStream out, PrintStream err);
}
