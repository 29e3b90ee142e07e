package dev.horizon.bench;

import java.io.PrintStream;

/** A one-line progress bar on stderr, redrawn in place on a terminal and printed every 25% otherwise. */
public final class Progress {
    private final PrintStream out;
    private final boolean terminal = System.console() != null;
    private int lastQuarter = -1;

    public Progress(PrintStream out) {
        this.out = out;
    }

    public void show(String label, double fraction) {
        int pct = (int) Math.round(100 * fraction);
        if (terminal) {
            int filled = pct / 4;
            out.print("\r" + String.format("%-10s [%s%s] %3d%%", label, "#".repeat(filled), " ".repeat(25 - filled), pct));
            if (pct >= 100) out.println();
        } else if (pct / 25 != lastQuarter) {
            lastQuarter = pct / 25;
            out.println(String.format("%-10s %3d%%", label, pct));
        }
        out.flush();
    }

    public void reset() {
        lastQuarter = -1;
    }
}
