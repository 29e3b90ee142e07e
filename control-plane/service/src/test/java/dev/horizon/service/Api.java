package dev.horizon.service;

import static io.restassured.RestAssured.given;

import io.restassured.http.ContentType;
import io.restassured.specification.RequestSpecification;

/** Requests as the test tokens make them; the admin token is the bootstrap token the test profile sets. */
public final class Api {
    public static final String ADMIN = "test-admin-token";

    private Api() {
    }

    public static RequestSpecification as(String token) {
        return given().contentType(ContentType.JSON).header("Authorization", "Bearer " + token);
    }

    /** Creates the team if it is not there yet (tests share one store per profile). */
    public static void team(String name, double share) {
        as(ADMIN).body("{\"name\":\"" + name + "\",\"share\":" + share + "}").post("/api/v1/teams");
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

    public static String submit(String token, String body) {
        return as(token).body(body).post("/api/v1/jobs").then().statusCode(201).extract().path("id");
    }
}
