package dev.horizon.service;

import static dev.horizon.service.Api.ADMIN;
import static dev.horizon.service.Api.as;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.hamcrest.Matchers.containsString;

import dev.horizon.service.clock.ServiceClock;
import dev.horizon.allocator.eta.Calibrator;
import dev.horizon.service.eta.BandStore;
import dev.horizon.service.eta.CalibrationStore;
import dev.horizon.service.eta.StartTimes;
import dev.horizon.service.jobs.JobStore;
import dev.horizon.service.planning.Planner;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.path.json.JsonPath;
import jakarta.inject.Inject;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 19 through the service's plans: start-time bands around a running job's estimated end, an alternative on the
 * idle GPU model, and who is ahead as another team sees it. Each test starts a virtual day after the last, so the
 * expected arrivals (the last day's submissions) are its own jobs only.
 */
@QuarkusTest
@TestProfile(VirtualClockProfile.class)
class StartTimesLiveTest {
    private static final long ESTIMATE = 3600;

    @Inject
    Planner planner;
    @Inject
    ServiceClock clock;
    @Inject
    StartTimes bands;
    @Inject
    CalibrationStore calibrations;
    @Inject
    JobStore jobStore;
    @Inject
    BandStore bandStore;

    @BeforeEach
    void aDayLaterWithAnEmptyQueue() {
        PlannerTest.cancelEverything();
        Api.noBudgets();
        Api.budget("eta", 0);
        Api.budget("eta-other", 0);
        clock.advanceTo(clock.millis() + 86_400_000 + 60_000);
    }

    /** 8 whole GPUs of one model for about an hour (QUANTIZATION: no other test's runs teach the estimator its spread). */
    private static String eightOf(String team, String model) {
        return "{\"name\":\"secret-" + team + "\",\"team\":\"" + team + "\",\"class\":\"QUANTIZATION\",\"perReplica\":{\"gpus\":8,\"gpuTypes\":[\"" + model
                + "\"]},\"durationEstimateSeconds\":" + ESTIMATE + "}";
    }

    /** Submits a job the plan starts at once on the model's node, and moves the clock ten minutes into its run; returns its start. */
    private long runningTenMinutes(String team, String model) {
        String running = Api.submit(ADMIN, eightOf(team, model));
        planner.planNow();
        assertEquals("RUNNING", as(ADMIN).get("/api/v1/jobs/" + running).then().extract().path("state"));
        long startedAt = clock.seconds();
        clock.advanceTo(clock.millis() + 600_000);
        return startedAt;
    }

    /** A time field of an answer (ISO-8601 on the wire) in epoch seconds, null when absent or null. */
    private static Long seconds(JsonPath answer, String field) {
        return Api.seconds(answer.get(field));
    }

    private static JsonPath explanation(String token, String id, String query) {
        return as(token).get("/api/v1/jobs/" + id + "/explanation" + query).then().statusCode(200).extract().jsonPath();
    }

    @Test
    void aJobQueuedBehindARunningJobGetsABandAroundItsEstimatedEnd() {
        long end = runningTenMinutes("eta", "H100-80GB") + ESTIMATE;
        String waiting = Api.submit(ADMIN, eightOf("eta", "H100-80GB"));
        planner.planNow();
        bands.awaitLatest();
        long now = clock.seconds();
        JsonPath e = explanation(ADMIN, waiting, "?alternatives=false");
        Long p50 = Api.seconds(e.get("startP50At")), p90 = Api.seconds(e.get("startP90At"));
        assertNotNull(p50, "a band once the plan's bands are computed: " + e.prettify());
        assertEquals(now, Api.seconds(e.get("bandsAt")));
        assertTrue(now <= p50 && p50 <= p90, "now " + now + " <= P50 " + p50 + " <= P90 " + p90);
        // the user's estimate is the median of the running job's drawn durations, lognormal with a spread of 0.25: the
        // median of 12 draws is within 25% of the estimate (2.8 standard errors), the 90th percentile within the estimate again.
        // The running job ends about 50 min out, past the futures' first two steps, where they ask the policy at step
        // boundaries only (Projection.FINE_STEPS): a start there reads up to one step after the end that frees the node.
        long step = as(ADMIN).get("/api/v1/plan").then().statusCode(200).extract().<Integer>path("stepSeconds");
        assertTrue(p50 >= end - ESTIMATE / 4 && p50 <= end + ESTIMATE / 4 + step,
                "P50 " + (p50 - now) + " s from now; the running job ends in about " + (end - now) + " s");
        assertTrue(p90 <= end + ESTIMATE + step, "P90 " + (p90 - now) + " s from now");
        JsonPath view = as(ADMIN).get("/api/v1/jobs/" + waiting).then().statusCode(200).extract().jsonPath();
        assertEquals(p50, Api.seconds(view.get("startP50At")), "the job view shows the same band");
        assertEquals(p90, Api.seconds(view.get("startP90At")));
        JsonPath plan = as(ADMIN).get("/api/v1/plan").then().statusCode(200).extract().jsonPath();
        assertEquals(p50, Api.seconds(plan.get("pending.find { it.jobId == '" + waiting + "' }.startP50At")), "the plan's waiting entry carries it too");
        assertEquals(p90, Api.seconds(plan.get("pending.find { it.jobId == '" + waiting + "' }.startP90At")));
        StartTimes.Shown saved = bandStore.load().byJob().get(waiting);
        assertEquals(new StartTimes.Shown(p50, p90, null), saved, "saved for the replicas that follow");
        assertNull(e.get("alternatives"), "not asked for");
    }

    /** A whole H100 node for about four hours. */
    private static String fourHoursOnTheH100s(int i) {
        return "{\"name\":\"queued-" + i + "\",\"team\":\"eta\",\"class\":\"QUANTIZATION\",\"perReplica\":{\"gpus\":8,\"gpuTypes\":[\"H100-80GB\"]},"
                + "\"durationEstimateSeconds\":" + 4 * ESTIMATE + "}";
    }

    /**
     * Issue 35: twelve jobs of four hours each queued on the 8 H100s. The plan's 24 h horizon places the first six; the
     * futures play on past it for the rest, so after the next plan every waiting job has a planned start or a band, the
     * same in every view; once the clock passes a band without a start, the next read shows one read again from now.
     */
    @Test
    void everyJobOfAQueueTwoDaysLongHasAnAnswerAndABandWhoseTimePassedIsReadAgain() {
        List<String> ids = new java.util.ArrayList<>();
        for (int i = 0; i < 12; i++) ids.add(Api.submit(ADMIN, fourHoursOnTheH100s(i)));
        planner.planNow();
        bands.awaitLatest();
        long now = clock.seconds();
        int beyond = 0;
        String second = null;
        JsonPath plan = as(ADMIN).get("/api/v1/plan").then().statusCode(200).extract().jsonPath();
        for (String id : ids) {
            JsonPath e = explanation(ADMIN, id, "?alternatives=false");
            if ("PENDING".equals(e.getString("state"))) {
                assertEquals(e.getString("startBandNote"), plan.getString("pending.find { it.jobId == '" + id + "' }.startBandNote"),
                        "the plan's waiting entry, which the web view lists, carries the explanation's note: " + e.prettify());
            }
            assertEquals(now, seconds(e, "readAt"), "the explanation says which clock it was read at: " + e.prettify());
            if ("RUNNING".equals(e.getString("state"))) continue;
            Long planned = seconds(e, "plannedStartAt"), p50 = seconds(e, "startP50At"), p90 = seconds(e, "startP90At");
            assertTrue(planned != null || p50 != null && p90 != null, "a planned start or a band for " + id + ": " + e.prettify());
            if (p50 != null) {
                assertTrue(now <= p50 && p50 <= p90, "now " + now + " <= P50 " + p50 + " <= P90 " + p90 + ": " + e.prettify());
                JsonPath view = as(ADMIN).get("/api/v1/jobs/" + id).then().statusCode(200).extract().jsonPath();
                assertEquals(p50, seconds(view, "startP50At"), "the job view shows the explanation's band");
                assertEquals(p90, seconds(view, "startP90At"));
                assertEquals(e.getString("startBandNote"), view.getString("startBandNote"));
            }
            if (p90 != null && p90 > now + 86_400) {
                beyond++;
                assertTrue(e.getString("startBandNote").contains("past the plan's horizon"), "a band past the 24 h horizon says so: " + e.prettify());
            }
            if (second == null) second = id;
        }
        assertTrue(beyond >= 4, beyond + " of the 11 waiting jobs have a band reaching past the horizon");
        JsonPath before = explanation(ADMIN, second, "?alternatives=false");
        long passed = seconds(before, "startP50At") + 120; // past the minute's grace a read gives a band
        clock.advanceTo(passed * 1000);
        JsonPath again = explanation(ADMIN, second, "?alternatives=false");
        assertEquals(passed, seconds(again, "readAt"), "a client says when from the clock the band was read at: " + again.prettify());
        String note = again.getString("startBandNote");
        assertTrue(note != null && note.contains("passed without a start"), "the read says the band passed: " + again.prettify());
        Long p50 = seconds(again, "startP50At"), p90 = seconds(again, "startP90At");
        if (p50 != null) {
            assertTrue(passed <= p50 && p50 <= p90, "read again from now " + passed + ": P50 " + p50 + ", P90 " + p90);
            assertTrue(note.contains("read again at"), note);
        }
        planner.planNow();
        bands.awaitLatest();
        JsonPath fresh = explanation(ADMIN, second, "?alternatives=false");
        assertEquals(passed, seconds(fresh, "bandsAt"), "the next plan's bands replace it");
        // a fresh answer: a band from now on, or (the futures drawn from this moment did not start it in most of them;
        // seen once in CI) the reason none can be given, never the passed band again
        Long freshP50 = seconds(fresh, "startP50At");
        String freshNote = fresh.getString("startBandNote");
        assertTrue(freshP50 != null ? freshP50 >= passed : freshNote != null && freshNote.contains("sampled futures"), fresh.prettify());
        assertTrue(freshNote == null || !freshNote.contains("passed without a start"), "the fresh band is not the passed one read again: " + fresh.prettify());
    }

    @Test
    void aJobAskingForABusyModelIsOfferedTheIdleModelThatStartsItSooner() {
        runningTenMinutes("eta", "A100-80GB");
        String waiting = Api.submit(ADMIN, eightOf("eta", "A100-80GB"));
        planner.planNow();
        JsonPath e = explanation(ADMIN, waiting, "");
        Long planned = Api.seconds(e.get("plannedStartAt"));
        List<Map<String, Object>> alternatives = e.getList("alternatives");
        assertTrue(planned == null || planned > clock.seconds(), "it waits for the A100s: " + e.prettify());
        Map<String, Object> onH100 = alternatives.stream().filter(a -> "perReplica.gpuTypes".equals(a.get("field"))).findFirst().orElse(null);
        assertNotNull(onH100, "the idle H100 node is offered: " + alternatives);
        assertTrue(String.valueOf(onH100.get("change")).contains("[H100-80GB]"), String.valueOf(onH100.get("change")));
        long sooner = Api.seconds(onH100.get("plannedStartAt"));
        assertTrue(planned == null || sooner < planned, "starts at " + sooner + ", planned " + planned);
        assertEquals(clock.seconds(), sooner, "the H100s are idle now");
    }

    /** One job of the team on the H100s, whole GPUs or a slice, at a priority inside the team (its value order). */
    private static String onH100(String name, String perReplica, int priority) {
        return Api.submit(ADMIN, "{\"name\":\"" + name + "\",\"team\":\"eta\",\"class\":\"QUANTIZATION\",\"priority\":" + priority
                + ",\"perReplica\":{" + perReplica + ",\"gpuTypes\":[\"H100-80GB\"]},\"durationEstimateSeconds\":" + ESTIMATE + "}");
    }

    @Test
    void aWholeGpuJobMeasuredWhileItRanIsOfferedAShareBesideAnotherWhenItWaitsAgain() {
        runningTenMinutes("eta", "A100-80GB");
        String measured = onH100("measured", "\"gpus\":1", 1);
        planner.planNow();
        String placement = as(ADMIN).get("/api/v1/jobs/" + measured).then().extract().path("placement");
        int gpu = Integer.parseInt(placement.replaceAll(".*\\[(\\d+)-.*", "$1"));
        String uuid = as(ADMIN).get("/api/v1/nodes/node-0").then().extract().path("gpus[" + gpu + "].uuid");
        jobStore.measured("node-0", Map.of(uuid, 9_000L));
        as(ADMIN).body("{\"state\":\"EVICTED\"}").post("/api/v1/jobs/" + measured + "/outcome").then().statusCode(200);
        // seven whole H100s and half of the eighth go to work ranked above it: it waits, with no whole GPU free for an hour
        onH100("whole", "\"gpus\":7", 9);
        onH100("share", "\"gpuMilli\":500,\"memoryMiB\":40000", 9);
        planner.planNow();
        JsonPath e = explanation(ADMIN, measured, "");
        Long planned = Api.seconds(e.get("plannedStartAt"));
        assertTrue(planned == null || planned > clock.seconds(), "it waits for a whole GPU: " + e.prettify());
        List<Map<String, Object>> alternatives = e.getList("alternatives");
        Map<String, Object> share = alternatives.stream().filter(a -> "perReplica.gpuMilli".equals(a.get("field"))).findFirst().orElse(null);
        assertNotNull(share, "a share of the half-used H100 holds its 9,000 MiB: " + alternatives);
        assertEquals(clock.seconds(), Api.seconds(share.get("plannedStartAt")), "it starts now beside the other share");
        assertTrue(String.valueOf(share.get("change")).contains("memoryMiB 9900"), String.valueOf(share.get("change")));
    }

    @Test
    void anotherTeamsJobAheadShowsItsIdAndTeamNeverItsName() {
        runningTenMinutes("eta-other", "H100-80GB");
        String mine = Api.token("submitter", "eta");
        String waiting = Api.submit(mine, eightOf("eta", "H100-80GB"));
        planner.planNow();
        JsonPath e = explanation(mine, waiting, "?alternatives=false");
        List<Map<String, Object>> ahead = e.getList("ahead");
        Map<String, Object> other = ahead.stream().filter(a -> "eta-other".equals(a.get("team"))).findFirst().orElse(null);
        assertNotNull(other, "the running job of team eta-other is ahead: " + ahead);
        assertEquals(new TreeSet<>(List.of("team", "job", "service", "gpus", "reason", "untilAt")), new TreeSet<>(other.keySet()), "no name: " + other);
        assertNotNull(other.get("job"));
        assertEquals("running until its estimated end", other.get("reason"));
        assertTrue(Api.seconds(other.get("untilAt")) > clock.seconds(), "it ends after now: " + other);
        assertTrue(!e.prettify().contains("secret-eta-other"), "the other team's job name appears nowhere: " + e.prettify());
    }

    @Test
    void aCalibrationAnotherControlPlaneSavedIsResumed() {
        // the leader before this one had learnt that waits run e (2.7) times what the raw bands say
        CalibrationStore.Saved before = calibrations.load().orElse(null);
        double[] later = new double[Calibrator.LEVELS.length];
        Arrays.fill(later, 1.0);
        int[] outcomes = new int[Calibrator.LEVELS.length];
        Arrays.fill(outcomes, 500);
        calibrations.save(new Calibrator.Learnt(later, outcomes), "the-leader-before", clock.seconds());
        try {
            long end = runningTenMinutes("eta", "H100-80GB") + ESTIMATE;
            String waiting = Api.submit(ADMIN, eightOf("eta", "H100-80GB"));
            planner.planNow();
            bands.awaitLatest();
            long now = clock.seconds();
            long p50 = Api.seconds(explanation(ADMIN, waiting, "?alternatives=false").get("startP50At"));
            assertTrue(p50 - now > 2 * (end - now), "P50 " + (p50 - now) + " s from now, about e times the raw band's ~" + (end - now) + " s");
            CalibrationStore.Saved saved = calibrations.load().orElseThrow();
            assertNotEquals("the-leader-before", saved.writer(), "this control plane saved what it went on learning");
            assertEquals(now, saved.savedAt());
            assertTrue(saved.learnt().outcomes()[Calibrator.P50] >= 500, "the outcomes learnt before are kept: " + saved);
            assertEquals(1.0, saved.learnt().logFactors()[Calibrator.P50], 0.2, "resumed from the saved factor");
        } finally {
            // the next tests' bands go on from what this control plane had learnt, as before this one
            if (before != null) calibrations.save(before.learnt(), "restored-by-the-test", clock.seconds());
            else calibrations.save(new Calibrator().learnt(), "restored-by-the-test", clock.seconds());
        }
    }

    @Test
    void alternativesTakesOnlyTrueOrFalse() {
        String waiting = Api.submit(ADMIN, eightOf("eta", "H100-80GB"));
        as(ADMIN).get("/api/v1/jobs/" + waiting + "/explanation?alternatives=soon").then().statusCode(400)
                .body(containsString("alternatives must be true or false"));
        as(ADMIN).get("/api/v1/jobs/unknown-job/explanation?alternatives=true").then().statusCode(404);
    }
}
