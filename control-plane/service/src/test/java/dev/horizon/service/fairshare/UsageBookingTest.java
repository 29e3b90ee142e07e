package dev.horizon.service.fairshare;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.horizon.fairshare.BudgetTree;
import dev.horizon.fairshare.FairShareLedger;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class UsageBookingTest {
    private static final long HOUR = 3600;

    @Test
    void segmentsAreBookedHourByHourIncludingOnesThatEndedInTheStretch() {
        // a: 8 GPUs from 0:30 to 1:15; b: 2 GPUs from 1:00, still running; booked over [0:00, 2:00)
        List<UsageBooking.Held> held = List.of(new UsageBooking.Held("a", 8, HOUR / 2, HOUR + HOUR / 4), new UsageBooking.Held("b", 2, HOUR, null));
        Map<String, double[]> byHour = byTeamHour(UsageBooking.book(0, 2 * HOUR, held, Map.of("a", 4.0)));
        assertEquals(8 * HOUR / 2.0, byHour.get("a/0")[0], 1e-9);
        assertEquals(8 * HOUR / 4.0, byHour.get("a/1")[0], 1e-9);
        assertEquals(2.0 * HOUR, byHour.get("b/1")[0], 1e-9);
        assertFalse(byHour.containsKey("b/0"), "b held nothing before it started");
        assertEquals(4.0 * HOUR, byHour.get("a/0")[1], 1e-9, "owed is what was owed since the last plan, for the whole stretch");
        assertEquals(4.0 * HOUR, byHour.get("a/1")[1], 1e-9);
    }

    @Test
    void theWindowReadsAsTheSimulatorsLedgerReadsItself() {
        // the same history booked by the simulator's ledger and by the service's plans (one plan every 40 minutes)
        BudgetTree tree = new BudgetTree(List.of(new BudgetTree.Budget("x", null, 0.5), new BudgetTree.Budget("y", null, 0.5)));
        FairShareLedger ledger = new FairShareLedger(tree, FairShareWindow.WINDOW_SECONDS);
        Map<String, UsageStore.Totals> stored = new HashMap<>();
        Map<String, Double> owedBefore = Map.of();
        List<UsageBooking.Held> held = List.of(new UsageBooking.Held("x", 6, 0, 9 * 86_400L), new UsageBooking.Held("y", 2, 86_400, null));
        long end = 9 * 86_400L;
        for (long t = 0; t <= end; t += 2400) {
            Map<String, Double> running = new HashMap<>();
            for (UsageBooking.Held h : held) if (h.start() <= t && (h.end() == null || t < h.end())) running.merge(h.team(), h.gpus(), Double::sum);
            Map<String, Double> asked = Map.of("x", 8.0, "y", 8.0);
            ledger.advance(t, running, asked, 8);
            for (UsageBooking.Hourly h : UsageBooking.book(Math.max(0, t - 2400), t, held, owedBefore)) {
                stored.merge(h.team() + "/" + h.hour(), new UsageStore.Totals(h.used(), h.owed()), (a, b) -> a.plus(b.used(), b.owed()));
            }
            owedBefore = ledger.owedNow();
        }
        long now = (end / 2400) * 2400;
        Map<String, UsageStore.Totals> window = new HashMap<>();
        stored.forEach((key, v) -> {
            String[] parts = key.split("/");
            long hour = Long.parseLong(parts[1]);
            if (hour >= FairShareWindow.fromHour(now) && hour <= FairShareWindow.toHour(now)) {
                window.merge(parts[0], v, (a, b) -> a.plus(b.used(), b.owed()));
            }
        });
        Map<String, Double> ratios = FairShareWindow.ratios(tree.teams(), window);
        ledger.ratios().forEach((team, r) -> assertEquals(r, ratios.get(team), 1e-9, team));
        assertEquals(1.5, ratios.get("x"), 1e-9, "x held 6 of the 4 GPUs it was owed");
    }

    private static Map<String, double[]> byTeamHour(List<UsageBooking.Hourly> rows) {
        Map<String, double[]> out = new HashMap<>();
        rows.forEach(h -> out.put(h.team() + "/" + h.hour(), new double[] {h.used(), h.owed()}));
        return out;
    }
}
