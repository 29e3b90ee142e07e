package dev.horizon.demo;

import java.io.PrintStream;

/**
 * The replay's status line. On a terminal it is rewritten in place each simulated minute; anywhere else (a file, a
 * pipe, the launcher's log) a carriage return would fold the whole day into one line, so it is written as a line of its
 * own once per simulated hour and at the day's last minute.
 */
record Progress(PrintStream out, boolean tty) {
    private static final long HOUR = 3600;

    /** The status at t seconds into the day; last: the day's last minute. */
    void show(long t, boolean last, String status) {
        if (tty) {
            // the spaces clear what a longer line before it left on the terminal
            out.print("\r" + status + "   ");
            out.flush();
        } else if (t % HOUR == 0 || last) {
            out.println(status);
        }
    }

    /** Ends the day's status: a terminal's line is still open. */
    void end() {
        if (tty) out.println();
    }
}
