package dev.horizon.service;

import static dev.horizon.service.Api.ADMIN;
import static dev.horizon.service.Api.as;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.matchesPattern;
import static org.hamcrest.Matchers.nullValue;

import io.quarkus.test.junit.QuarkusTest;
import org.junit.jupiter.api.Test;

/**
 * Comparisons as ./horizon demo stores them: first "computing" with the day's window and no figures, then the figures;
 * both read back from the list the web view reads, their times in the API's one format.
 */
@QuarkusTest
class ComparisonApiTest {
    private static final String WINDOW = "\"window\":{\"from\":\"2026-09-24T00:00:00Z\",\"to\":\"2026-09-25T00:00:00Z\"}";

    @Test
    void aComparisonStoredWhileComputingIsReadBackThenItsFiguresReplaceIt() {
        as(ADMIN).body("{\"scenario\":\"the demo's day\"," + WINDOW + ",\"computing\":true}").put("/api/v1/comparisons/day-test")
                .then().statusCode(200).body("computing", equalTo(true));
        as(ADMIN).get("/api/v1/comparisons").then().statusCode(200)
                .body("find { it.name == 'day-test' }.window.from", equalTo("2026-09-24T00:00:00Z"))
                .body("find { it.name == 'day-test' }.window.to", equalTo("2026-09-25T00:00:00Z"))
                .body("find { it.name == 'day-test' }.computing", equalTo(true))
                .body("find { it.name == 'day-test' }.storedAt", matchesPattern("\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}Z"));
        as(ADMIN).body("{\"scenario\":\"the demo's day\"," + WINDOW + ",\"bestBaseline\":\"kai\",\"policies\":[{\"policy\":\"kai\",\"utilization\":0.5},"
                + "{\"policy\":\"horizon\",\"utilization\":0.7}]}").put("/api/v1/comparisons/day-test").then().statusCode(200);
        as(ADMIN).get("/api/v1/comparisons").then().statusCode(200)
                .body("find { it.name == 'day-test' }.computing", nullValue())
                .body("find { it.name == 'day-test' }.policies.policy", hasItem("horizon"));
    }

    @Test
    void aWindowOrAnEmptyComparisonThatMakesNoSenseIsRefusedNamingTheField() {
        as(ADMIN).body("{\"scenario\":\"s\",\"window\":{\"from\":\"2026-09-25T00:00:00Z\",\"to\":\"2026-09-24T00:00:00Z\"},\"computing\":true}")
                .put("/api/v1/comparisons/bad").then().statusCode(400).body("problems[0]", containsString("window.to must be after window.from"));
        as(ADMIN).body("{\"scenario\":\"s\",\"window\":{\"from\":1758672000,\"to\":\"2026-09-24T00:00:00Z\"},\"computing\":true}")
                .put("/api/v1/comparisons/bad").then().statusCode(400).body("problems[0]", containsString("window.from"));
        as(ADMIN).body("{\"scenario\":\"s\",\"window\":{\"from\":\"2026-09-24T00:00:00Z\"},\"computing\":true}")
                .put("/api/v1/comparisons/bad").then().statusCode(400).body("problems[0]", containsString("window: give both from and to"));
        as(ADMIN).body("{\"scenario\":\"s\",\"policies\":[]}").put("/api/v1/comparisons/bad").then().statusCode(400)
                .body("problems[0]", containsString("none only with \"computing\": true"));
    }
}
