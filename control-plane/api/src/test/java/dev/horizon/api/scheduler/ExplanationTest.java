package dev.horizon.api.scheduler;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The one line the adapters write into a waiting workload's condition and events. */
class ExplanationTest {
    private static final Clock NOON_UTC = Clock.fixed(Instant.parse("2026-11-30T12:00:00Z"), ZoneOffset.UTC);

    private static long at(String instant) {
        return Instant.parse(instant).getEpochSecond();
    }

    private static Explanation banded(Long planned, Long p50, Long p90, boolean beyondHorizon) {
        return new Explanation("blocked", planned, Map.of("nlp", 3L), p50, p90, at("2026-11-30T11:59:00Z"), beyondHorizon, List.of(), List.of());
    }

    @Test
    void saysThePlannedStartAndItsBand() {
        assertEquals("pending: team nlp ranks ahead; planned start 14:30 (P50 14:40, P90 15:20)",
                banded(at("2026-11-30T14:30:00Z"), at("2026-11-30T14:40:00Z"), at("2026-11-30T15:20:00Z"), false).sentence(NOON_UTC));
    }

    @Test
    void aTimeOnAnotherDayCarriesTheDay() {
        assertEquals("pending: team nlp ranks ahead; planned start 23:30 (P50 Tue 1 Dec 00:10, P90 Tue 1 Dec 03:00)",
                banded(at("2026-11-30T23:30:00Z"), at("2026-12-01T00:10:00Z"), at("2026-12-01T03:00:00Z"), false).sentence(NOON_UTC));
    }

    @Test
    void timesAreInTheClocksZoneAndTodayIsItsToday() {
        Clock tokyo = NOON_UTC.withZone(ZoneId.of("Asia/Tokyo"));
        assertEquals("pending: team nlp ranks ahead; planned start 23:30 (P50 Tue 1 Dec 00:10, P90 Tue 1 Dec 01:00)",
                banded(at("2026-11-30T14:30:00Z"), at("2026-11-30T15:10:00Z"), at("2026-11-30T16:00:00Z"), false).sentence(tokyo));
    }

    @Test
    void withoutABandItSaysThePlannedStartAlone() {
        assertEquals("pending: team nlp ranks ahead; planned start 14:30",
                banded(at("2026-11-30T14:30:00Z"), null, null, false).sentence(NOON_UTC), "no band yet: the first step after arrival");
        assertEquals("pending: planned start 14:30", new Explanation("blocked", at("2026-11-30T14:30:00Z"), Map.of()).sentence(NOON_UTC),
                "an older control plane's explanation");
    }

    @Test
    void withoutBandLeavesWhatOnlyAMovedPlanChanges() {
        String sentence = banded(at("2026-11-30T23:30:00Z"), at("2026-12-01T00:10:00Z"), at("2026-12-01T03:00:00Z"), false).sentence(NOON_UTC);
        assertEquals("pending: team nlp ranks ahead; planned start 23:30", Explanation.withoutBand(sentence));
        assertEquals("pending: waiting for the next plan", Explanation.withoutBand("pending: waiting for the next plan"));
    }

    @Test
    void beyondTheHorizonItSaysSoInWords() {
        assertEquals("pending: team nlp ranks ahead; not planned to start within the plan's horizon", banded(null, null, null, true).sentence(NOON_UTC));
        assertEquals("pending: no room for 8 GPUs within the 24 h horizon; not planned to start within the plan's horizon",
                new Explanation("no room for 8 GPUs within the 24 h horizon", null, Map.of(), null, null, null, true, List.of(), List.of())
                        .sentence(NOON_UTC), "with no one ranked ahead, the planner's own reason comes first");
        assertEquals("pending: waiting for the next plan", new Explanation("waiting for the next plan", null, Map.of()).sentence(NOON_UTC));
    }

    @Test
    void beyondTheHorizonTheBandPlayedOnPastItIsShownAllTheSame() {
        String sentence = banded(null, at("2026-12-01T18:00:00Z"), at("2026-12-02T06:00:00Z"), true).sentence(NOON_UTC);
        assertEquals("pending: team nlp ranks ahead; not planned to start within the plan's horizon (P50 Tue 1 Dec 18:00, P90 Wed 2 Dec 06:00)", sentence);
        assertEquals("pending: team nlp ranks ahead; not planned to start within the plan's horizon", Explanation.withoutBand(sentence));
    }

    @Test
    void withoutABandItSaysWhyThereIsNone() {
        Explanation none = new Explanation("blocked", null, Map.of("nlp", 3L), null, null, at("2026-11-30T11:59:00Z"), true, List.of(), List.of(),
                "no node that takes work now can hold it while node-3 is drained");
        String sentence = none.sentence(NOON_UTC);
        assertEquals("pending: team nlp ranks ahead; not planned to start within the plan's horizon; no start band: no node that takes work now can hold it"
                + " while node-3 is drained", sentence);
        assertEquals("pending: team nlp ranks ahead; not planned to start within the plan's horizon", Explanation.withoutBand(sentence),
                "the reason moves with the samples: an event is raised only when the rest changes");
        Explanation banded = new Explanation("blocked", null, Map.of(), at("2026-11-30T14:40:00Z"), at("2026-11-30T15:20:00Z"), null, false, List.of(),
                List.of(), "read again after its time passed");
        assertEquals("pending: blocked; likely start (P50 14:40, P90 15:20)", banded.sentence(NOON_UTC), "a band's note stays out of the line");
    }

    @Test
    void aP50WhoseP90LiesPastTheFuturesIsShownOpenAtItsEnd() {
        Explanation open = new Explanation("its team already runs all it is owed now", null, Map.of(), at("2026-11-30T14:40:00Z"), null,
                at("2026-11-30T11:59:00Z"), false, List.of(), List.of(), "with odds 9 in 10 it starts later than where the futures end");
        String sentence = open.sentence(NOON_UTC);
        assertEquals("pending: its team already runs all it is owed now; likely start (P50 14:40, P90 later)", sentence,
                "the P50 is shown, never 'no start band'");
        assertEquals("pending: its team already runs all it is owed now; likely start", Explanation.withoutBand(sentence));
    }

    @Test
    void aBandOpenAtItsEndSaysWhenTheQueueAloneWouldStartIt() {
        Explanation open = new Explanation("its team already runs all it is owed now", null, Map.of(), at("2026-11-30T14:40:00Z"), null,
                at("2026-11-30T11:59:00Z"), false, List.of(), List.of(), "with odds 9 in 10 it starts later than where the futures end",
                at("2026-11-30T13:10:00Z"), at("2026-12-01T01:30:00Z"));
        String sentence = open.sentence(NOON_UTC);
        assertEquals("pending: its team already runs all it is owed now; likely start (P50 14:40, P90 later; if no more work arrives P50 13:10,"
                + " P90 Tue 1 Dec 01:30)", sentence);
        assertEquals("pending: its team already runs all it is owed now; likely start", Explanation.withoutBand(sentence),
                "it moves with the samples as the band does: no event for it alone");
    }
}
