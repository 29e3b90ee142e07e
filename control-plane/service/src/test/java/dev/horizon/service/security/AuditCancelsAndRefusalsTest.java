package dev.horizon.service.security;

import static dev.horizon.service.Api.ADMIN;
import static dev.horizon.service.Api.as;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.horizon.service.Api;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The audit log keeps every cancel, whoever made it, and every change refused to a known token, beside admins' changes. */
@QuarkusTest
class AuditCancelsAndRefusalsTest {
    @Inject
    Tokens tokens;

    @Test
    void aSubmittersCancelAndItsRefusedChangeAreAudited() {
        Api.team("audited", 0.1);
        String submitter = Api.token("submitter", "audited");
        String submitterId = tokens.bySecret(submitter).orElseThrow().id();
        String job = Api.submit(submitter, Api.job("to-cancel", "audited", "DEBUG", 1));
        as(submitter).delete("/api/v1/jobs/" + job).then().statusCode(200);
        as(submitter).body("{\"name\":\"not-mine\",\"share\":0.1}").post("/api/v1/teams").then().statusCode(403);

        List<Map<String, Object>> entries = as(ADMIN).get("/api/v1/audit?limit=50").then().statusCode(200).extract().jsonPath().getList("");
        assertTrue(entries.stream().anyMatch(e -> submitterId.equals(e.get("actor")) && ("cancelled job " + job).equals(e.get("detail"))
                && "DELETE".equals(e.get("action"))), "the cancel, by the submitter: " + entries);
        assertTrue(entries.stream().anyMatch(e -> submitterId.equals(e.get("actor")) && Integer.valueOf(403).equals(e.get("status"))
                && String.valueOf(e.get("detail")).startsWith("refused: ") && "/api/v1/teams".equals(e.get("target"))),
                "the refused change, with why: " + entries);
    }
}
