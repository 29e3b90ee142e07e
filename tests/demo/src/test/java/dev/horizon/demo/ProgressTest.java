package dev.horizon.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** ./horizon demo > file gave one line of the whole day: the status line was rewritten with \r where no terminal was. */
class ProgressTest {
    private static String day(boolean tty) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        Progress progress = new Progress(new PrintStream(bytes, true, StandardCharsets.UTF_8), tty);
        long duration = 2 * 3600 + 600;
        for (long t = 0; t <= duration; t += 60) progress.show(t, t + 60 > duration, "at " + t);
        progress.end();
        return bytes.toString(StandardCharsets.UTF_8);
    }

    @Test
    void withoutATerminalEachHourAndTheLastMinuteIsALineOfItsOwn() {
        assertEquals("at 0\nat 3600\nat 7200\nat 7800\n", day(false));
    }

    @Test
    void onATerminalTheLineIsRewrittenInPlaceAndEndedOnce() {
        String shown = day(true);
        assertEquals(131, shown.chars().filter(c -> c == '\r').count(), "one rewrite per simulated minute");
        assertEquals("\rat 7800   \n", shown.substring(shown.lastIndexOf('\r')));
    }
}
