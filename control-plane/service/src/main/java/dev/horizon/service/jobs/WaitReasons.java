package dev.horizon.service.jobs;

import java.time.Instant;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Why a job waits, stored without anything that changes by itself: a planned start is kept as its time
 * (planned_start), and the countdown to it is rendered when the reason is read. A stored reason that held "in about 40
 * min" would differ on every plan, and every pending row would be rewritten each time.
 */
public final class WaitReasons {
    private static final Pattern COUNTDOWN = Pattern.compile("^planned to start in about .+? when ");
    private static final String PLANNED = "planned to start when ";
    /** Why a job waits that no plan has looked at yet: just submitted, or just released from a hold. */
    public static final String NEXT_PLAN = "waiting for the next plan";

    private WaitReasons() {
    }

    /** The policy's sentence as stored: its countdown to the planned start taken out. */
    public static String stored(String reason) {
        if (reason == null) return null;
        Matcher m = COUNTDOWN.matcher(reason);
        return m.find() ? PLANNED + reason.substring(m.end()) : reason;
    }

    /** The sentence as shown at nowSeconds, with the countdown to plannedStart (epoch seconds) put back. */
    public static String shown(String stored, Long plannedStart, long nowSeconds) {
        if (stored == null || plannedStart == null || !stored.startsWith(PLANNED)) return stored;
        return "planned to start in about " + minutes(Math.max(0, plannedStart - nowSeconds)) + " (" + Instant.ofEpochSecond(plannedStart) + ") when "
                + stored.substring(PLANNED.length());
    }

    private static String minutes(long seconds) {
        return seconds >= 5400 ? String.format("%.1f h", seconds / 3600.0) : (seconds + 59) / 60 + " min";
    }
}
