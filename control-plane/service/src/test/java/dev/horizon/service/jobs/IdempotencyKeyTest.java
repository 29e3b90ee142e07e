package dev.horizon.service.jobs;

import static dev.horizon.service.Api.ADMIN;
import static dev.horizon.service.Api.as;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import dev.horizon.service.Api;
import dev.horizon.service.store.Db;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;
import jakarta.inject.Inject;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/** A client that lost the reply to a submission retries it with the same Idempotency-Key and gets the first job, never a second. */
@QuarkusTest
class IdempotencyKeyTest {
    @Inject
    Db db;

    @Test
    void theSameKeyAnswersTheFirstJobAndAnotherJobUnderItIsRefused() {
        Api.team("idem", 0.1);
        String submitter = Api.token("submitter", "idem");
        String job = Api.job("retried", "idem", "BATCH_INFERENCE", 1);
        Response first = as(submitter).header("Idempotency-Key", "k-1").body(job).post("/api/v1/jobs");
        first.then().statusCode(201);
        String id = first.path("id");
        as(submitter).header("Idempotency-Key", "k-1").body(job.replace(",", " ,")).post("/api/v1/jobs").then().statusCode(201)
                .header("Idempotent-Replayed", "true").header("Location", containsString(id)).body("id", equalTo(id));

        as(submitter).header("Idempotency-Key", "k-1").body(Api.job("other", "idem", "BATCH_INFERENCE", 1)).post("/api/v1/jobs").then()
                .statusCode(422).body("error", containsString("was used for another job (" + id + ")"));
        // keys are per caller: another token's k-1 is its own
        String otherId = as(ADMIN).header("Idempotency-Key", "k-1").body(job).post("/api/v1/jobs").then().statusCode(201).extract().path("id");
        assertNotEquals(id, otherId);
        as(submitter).header("Idempotency-Key", "two words").body(job).post("/api/v1/jobs").then().statusCode(400)
                .body("problems[0]", containsString("Idempotency-Key must be 1 to 255 printable ASCII"));
        // kept in the store, so a restart or another replica answers the same
        assertEquals(List.of(id), db.query("SELECT job_id FROM idempotency_keys WHERE idem_key = 'k-1' AND job_id = ?", ps -> ps.setString(1, id),
                rs -> rs.getString(1)));
    }

    @Test
    void racingRetriesWithOneKeyMakeOneJob() throws Exception {
        Api.team("idem", 0.1);
        String submitter = Api.token("submitter", "idem");
        String job = Api.job("raced", "idem", "BATCH_INFERENCE", 1);
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<Response>> answers = new ArrayList<>();
            for (int i = 0; i < 8; i++) answers.add(pool.submit(() -> as(submitter).header("Idempotency-Key", "race").body(job).post("/api/v1/jobs")));
            Set<String> ids = new HashSet<>();
            for (Future<Response> a : answers) {
                assertEquals(201, a.get().statusCode(), a.get().asString());
                ids.add(a.get().path("id"));
            }
            assertEquals(1, ids.size(), "one job for eight racing requests: " + ids);
        } finally {
            pool.shutdownNow();
        }
    }
}
