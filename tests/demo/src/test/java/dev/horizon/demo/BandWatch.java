package dev.horizon.demo;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Issue 35's live check, read as the web view and {@code ./horizon why} read it: while the demo's day runs, from its busy
 * hour on, every {@link #EVERY_MILLIS} of wall time, every waiting job in the job list (one call; each band as it is shown
 * when read) is looked at: banded when it has a planned start or a band (startP50At and startP90At), answered when it is
 * banded or its startBandNote says why not (or, with a P50 alone, that its P90 lies past where the futures end), and
 * stale when its band lies before the control plane's clock read just before the list, or its P90 before its P50. It
 * runs on a thread of its own beside the day, so it costs the test no time of its own.
 */
final class BandWatch implements AutoCloseable {
    /** Every 10 s of wall time: at the demo's default speed (288x) about every 48 simulated minutes. */
    static final long EVERY_MILLIS = 10_000;

    /**
     * One look: when (the control plane's clock), how many jobs waited, were banded and answered, how many of those without
     * a full band were told when the queue alone would start them (no more work arriving), which bands were stale.
     */
    record Look(long at, int waiting, int banded, int answered, int queueAlone, List<String> stale, List<String> unbanded, Map<String, Integer> why) {
        boolean passes() {
            return answered == waiting && stale.isEmpty();
        }

        double bandedShare() {
            return waiting == 0 ? 1 : (double) banded / waiting;
        }

        @Override
        public String toString() {
            return ControlPlane.iso(at) + ": " + waiting + " waiting, " + banded + " with a planned start or a band, " + answered + " answered, "
                    + stale.size() + " stale, " + queueAlone + " told when the queue alone would start them" + (stale.isEmpty() ? "" : " " + stale.subList(0, Math.min(3, stale.size())))
                    + (why.isEmpty() ? "" : "; without a band, by what their note says: " + why) + (unbanded.isEmpty() ? "" : "; e.g. " + unbanded);
        }
    }

    private final ControlPlane cp;
    private final String admin;
    private final long from, until;
    private final List<Look> looks = new ArrayList<>();
    private final List<String> errors = new ArrayList<>();
    private final Thread thread;
    private volatile boolean stopped;

    /** Looks from the control plane's clock reading from (epoch seconds) until it reads until, or until closed. */
    BandWatch(ControlPlane cp, String admin, long from, long until) {
        this.cp = cp;
        this.admin = admin;
        this.from = from;
        this.until = until;
        this.thread = new Thread(this::run, "demo-it-band-watch");
        thread.setDaemon(true);
        thread.start();
    }

    private void run() {
        while (!stopped) {
            try {
                look();
                Thread.sleep(EVERY_MILLIS);
            } catch (InterruptedException e) {
                return;
            } catch (RuntimeException e) {
                synchronized (this) {
                    errors.add(e.getMessage());
                }
            }
        }
    }

    private void look() {
        long now = cp.now(admin);
        if (now < from) return;
        if (now >= until) {
            stopped = true;
            return;
        }
        int waiting = 0, banded = 0, answered = 0, queueAlone = 0;
        List<String> stale = new ArrayList<>(), unbanded = new ArrayList<>();
        Map<String, Integer> why = new TreeMap<>();
        for (JsonNode j : cp.jobs("PENDING", admin)) {
            waiting++;
            boolean band = j.hasNonNull("startP50At") && j.hasNonNull("startP90At");
            boolean said = !j.path("startBandNote").asText("").isBlank();
            if (j.hasNonNull("plannedStart") || band) banded++;
            else {
                why.merge(said ? kind(j.get("startBandNote").asText()) : "no note", 1, Integer::sum);
                if (j.hasNonNull("queueAloneP50At")) queueAlone++;
                if (unbanded.size() < 3) unbanded.add(j.get("id").asText() + ": " + (said ? j.get("startBandNote").asText() : "no note"));
            }
            if (j.hasNonNull("plannedStart") || band || said) answered++;
            if (j.hasNonNull("startP50At") && ControlPlane.seconds(j, "startP50At") < now
                    || band && (ControlPlane.seconds(j, "startP90At") < now || ControlPlane.seconds(j, "startP90At") < ControlPlane.seconds(j, "startP50At"))) {
                stale.add(j.get("id").asText() + " " + j.get("startP50At").asText() + " - " + j.path("startP90At").asText());
            }
            if (j.hasNonNull("queueAloneP50At") && ControlPlane.seconds(j, "queueAloneP50At") < now) {
                stale.add(j.get("id").asText() + " were no more work to arrive: " + j.get("queueAloneP50At").asText());
            }
        }
        Look l = new Look(now, waiting, banded, answered, queueAlone, stale, unbanded, why);
        System.out.println("DemoIT: bands at " + l);
        synchronized (this) {
            looks.add(l);
        }
    }

    /** What a note without a band says, in a few words: which of BandNotes' and BandReading's cases it is. */
    private static String kind(String note) {
        if (note.startsWith("no band yet")) return "came after the latest bands";
        if (note.startsWith("it came after the plan of")) return "came after the latest bands, P50 only from work like it";
        if (note.contains("passed without a start")) return "its band passed, too few futures left";
        if (note.startsWith("with odds 9 in 10 it starts later than")) return "P50 only, P90 past the futures' end";
        if (note.startsWith("a first band")) return "P50 only, from the first futures of a computation";
        if (note.contains("sampled futures it had not started by")) return "not started in most futures";
        if (note.startsWith("no node")) return "no node can hold it";
        if (note.startsWith("held since")) return "held";
        return "other";
    }

    /** The looks taken so far, and the calls that failed. */
    synchronized List<Look> looks() {
        return List.copyOf(looks);
    }

    synchronized List<String> errors() {
        return List.copyOf(errors);
    }

    @Override
    public void close() throws InterruptedException {
        stopped = true;
        thread.interrupt();
        thread.join(5_000);
    }
}
