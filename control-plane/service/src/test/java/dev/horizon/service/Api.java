package dev.horizon.service;

import static io.restassured.RestAssured.given;

import io.restassured.http.ContentType;
import io.restassured.specification.RequestSpecification;

/** Requests as the test tokens make them; the admin token is the bootstrap token the test profile sets. */
public final class Api {
    public static final String ADMIN = "test-admin-token";
    /** The API's one time format as a regular expression: ISO-8601 UTC to the second. */
    public static final String ISO_SECOND = "\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}Z";

    private Api() {
    }

    public static RequestSpecification as(String token) {
        return given().contentType(ContentType.JSON).header("Authorization", "Bearer " + token);
    }

    /** Creates the team if it is not there yet (tests share one store per profile). */
    public static void team(String name, double share) {
        as(ADMIN).body("{\"name\":\"" + name + "\",\"share\":" + share + "}").post("/api/v1/teams");
    }

    /** Cancels every pending and running job: tests that share a store start from an empty queue. */
    public static void cancelEverything() {
        for (String state : java.util.List.of("PENDING", "RUNNING")) {
            java.util.List<String> ids = as(ADMIN).queryParam("state", state).queryParam("limit", 10000).get("/api/v1/jobs").then().extract().path("id");
            ids.forEach(id -> as(ADMIN).delete("/api/v1/jobs/" + id));
        }
    }

    /** Sets a team's share, creating the team if it is not there yet. */
    public static void budget(String name, double share) {
        team(name, share);
        as(ADMIN).body("{\"share\":" + share + "}").put("/api/v1/teams/" + name + "/budget").then().statusCode(200);
    }

    /** Takes every team's share away: no budgets, so jobs weigh their priority and the plan is the classic one. */
    public static void noBudgets() {
        java.util.List<String> names = as(ADMIN).get("/api/v1/teams").then().statusCode(200).extract().path("name");
        names.forEach(n -> budget(n, 0));
    }

    public static String token(String role, String team) {
        String teamField = team == null ? "" : ",\"team\":\"" + team + "\"";
        return as(ADMIN).body("{\"role\":\"" + role + "\"" + teamField + "}").post("/api/v1/tokens")
                .then().statusCode(201).extract().path("token");
    }

    public static String job(String name, String team, String jobClass, int gpus) {
        return "{\"name\":\"" + name + "\",\"team\":\"" + team + "\",\"class\":\"" + jobClass + "\",\"perReplica\":{\"gpus\":" + gpus
                + "},\"durationEstimateSeconds\":3600}";
    }

    /** A time as the API writes it, from epoch seconds. */
    public static String iso(long epochSeconds) {
        return java.time.Instant.ofEpochSecond(epochSeconds).toString();
    }

    /** A time the API wrote (ISO-8601 UTC), in epoch seconds; null stays null. */
    public static Long seconds(Object iso) {
        return iso == null ? null : java.time.Instant.parse((String) iso).getEpochSecond();
    }

    public static String submit(String token, String body) {
        return as(token).body(body).post("/api/v1/jobs").then().statusCode(201).extract().path("id");
    }
}
