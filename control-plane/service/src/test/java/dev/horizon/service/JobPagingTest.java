package dev.horizon.service;

import static dev.horizon.service.Api.ADMIN;
import static dev.horizon.service.Api.as;
import static org.hamcrest.Matchers.containsString;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

@QuarkusTest
class JobPagingTest {
    @Test
    void pagesFollowTheCursorAndNeitherRepeatNorSkipAJobSubmittedMeanwhile() {
        Api.team("paged", 0.1);
        Api.team("other-paged", 0.1);
        List<String> submitted = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            submitted.add(Api.submit(ADMIN, Api.job("p" + i, "paged", "DEBUG", 1)));
            Api.submit(ADMIN, Api.job("o" + i, "other-paged", "DEBUG", 1));
        }
        Response first = as(ADMIN).queryParam("team", "paged").queryParam("limit", 2).get("/api/v1/jobs");
        first.then().statusCode(200);
        List<String> seen = new ArrayList<>(first.jsonPath().getList("id"));
        String cursor = first.header("Horizon-Next-Cursor");
        assertTrue(first.header("Link").contains("rel=\"next\"") && first.header("Link").contains("cursor=" + cursor), first.header("Link"));
        // a job submitted while a client pages is on a later page, never instead of one already listed
        submitted.add(Api.submit(ADMIN, Api.job("p5", "paged", "DEBUG", 1)));
        while (cursor != null) {
            Response page = as(ADMIN).queryParam("team", "paged").queryParam("limit", 2).queryParam("cursor", cursor).get("/api/v1/jobs");
            page.then().statusCode(200);
            List<String> ids = page.jsonPath().getList("id");
            assertTrue(ids.size() <= 2, "a page holds at most limit jobs: " + ids);
            seen.addAll(ids);
            cursor = page.header("Horizon-Next-Cursor");
        }
        assertEquals(submitted, seen, "every job of the team once, in submission order");

        Response last = as(ADMIN).queryParam("team", "paged").queryParam("limit", 6).get("/api/v1/jobs");
        assertEquals(6, last.jsonPath().getList("id").size());
        assertNull(last.header("Horizon-Next-Cursor"), "no next page when this one holds the last job");
    }

    @Test
    void aCursorThisApiDidNotGiveAndOffsetAreRefusedNamingTheField() {
        as(ADMIN).queryParam("cursor", "not-a-cursor").get("/api/v1/jobs").then().statusCode(400)
                .body("problems[0]", containsString("cursor 'not-a-cursor' is not one this API gave out"));
        as(ADMIN).queryParam("offset", 10).get("/api/v1/jobs").then().statusCode(400).body("problems[0]", containsString("page with cursor"));
        as(ADMIN).queryParam("limit", 0).get("/api/v1/jobs").then().statusCode(400).body("problems[0]", containsString("limit must be"));
    }
}
