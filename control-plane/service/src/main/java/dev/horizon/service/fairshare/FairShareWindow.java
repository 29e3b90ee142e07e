package dev.horizon.service.fairshare;

import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Ai2's sliding window over the hourly aggregates, read the way the simulator's ledger reads its own: the hours from
 * (now - 7 days) to now's hour, both included.
 */
public final class FairShareWindow {
    public static final long WINDOW_SECONDS = 7 * 86_400L;

    private FairShareWindow() {
    }

    public static long fromHour(long now) {
        return Math.max(0, (now - WINDOW_SECONDS) / UsageBooking.HOUR);
    }

    public static long toHour(long now) {
        return now / UsageBooking.HOUR;
    }

    /** Occupancy / owed over the window per team, 1 for a team owed nothing (the simulator's {@code FairShareLedger.ratios}). */
    public static Map<String, Double> ratios(Collection<String> teams, Map<String, UsageStore.Totals> totals) {
        Map<String, Double> out = new LinkedHashMap<>();
        for (String team : teams) {
            UsageStore.Totals t = totals.get(team);
            out.put(team, t == null || t.owed() < 1e-9 ? 1.0 : t.used() / t.owed());
        }
        return out;
    }

    /** GPU-hours held over GPU-hours owed, capped at 1, for the teams owed anything (as Ai2 reports it). */
    public static Map<String, Double> delivered(Map<String, UsageStore.Totals> totals) {
        Map<String, Double> out = new LinkedHashMap<>();
        totals.forEach((team, t) -> {
            if (t.owed() > 1e-9) out.put(team, Math.min(1, t.used() / t.owed()));
        });
        return out;
    }
}
