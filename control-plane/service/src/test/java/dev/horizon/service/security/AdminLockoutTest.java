package dev.horizon.service.security;

import static dev.horizon.service.Api.ADMIN;
import static dev.horizon.service.Api.as;
import static org.hamcrest.Matchers.containsString;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.horizon.service.store.Db;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Nobody can lock the admins out, and an operator who is locked out anyway (a store from before these rules, admin tokens
 * that all expired) gets back in: the bootstrap value applies whenever no admin token is live, and the offline command
 * makes a token straight in the store.
 */
@QuarkusTest
class AdminLockoutTest {
    @Inject
    Tokens tokens;
    @Inject
    TokenCommand command;
    @Inject
    Db db;

    @Test
    void anExpiringAdminCannotRevokeTheLastAdminThatNeverExpires() {
        String bootstrapId = tokens.bySecret(ADMIN).orElseThrow().id();
        String shortLived = as(ADMIN).body("{\"role\":\"admin\",\"label\":\"five seconds\",\"expiresInSeconds\":5}").post("/api/v1/tokens").then()
                .statusCode(201).extract().path("token");
        // every other non-expiring admin other tests made goes first; the bootstrap admin is then the last that never expires
        for (Tokens.TokenInfo t : tokens.liveAdmins()) {
            if (t.expiresAt() == null && !t.id().equals(bootstrapId)) as(ADMIN).delete("/api/v1/tokens/" + t.id()).then().statusCode(200);
        }
        as(shortLived).delete("/api/v1/tokens/" + bootstrapId).then().statusCode(409)
                .body("error", containsString("last live admin token, or the last that never expires"));
        as(ADMIN).get("/api/v1/tokens/" + bootstrapId).then().statusCode(200).body("$", org.hamcrest.Matchers.not(org.hamcrest.Matchers.hasKey("revokedAt")));
        as(ADMIN).delete("/api/v1/tokens/" + tokens.bySecret(shortLived).orElseThrow().id()).then().statusCode(200);
    }

    @Test
    void withNoLiveAdminTheBootstrapValueLetsTheOperatorInAndSaysWhenItIsIgnored() {
        Tokens.BootstrapOutcome ignored = tokens.bootstrapAdmin(Optional.of("break-glass-while-admins-live"));
        assertTrue(ignored.leftOut() && ignored.message().contains("is ignored: the store holds"), ignored.message());
        as("break-glass-while-admins-live").get("/api/v1/tokens").then().statusCode(401);

        expireEveryAdmin();
        try {
            as(ADMIN).get("/api/v1/tokens").then().statusCode(401).body("error", containsString("expired at"));
            Tokens.BootstrapOutcome reused = tokens.bootstrapAdmin(Optional.of(ADMIN));
            assertTrue(reused.message().contains("ignored although no admin token is live") && reused.message().contains("expired at"),
                    "an expired value never comes back: " + reused.message());
            Tokens.BootstrapOutcome none = tokens.bootstrapAdmin(Optional.empty());
            assertTrue(none.leftOut() && none.message().contains("./horizon token create --store"), none.message());

            Tokens.BootstrapOutcome glass = tokens.bootstrapAdmin(Optional.of("break-glass-value"));
            assertTrue(glass.leftOut() && glass.message().startsWith("break-glass: no admin token was live"), glass.message());
            as("break-glass-value").get("/api/v1/tokens").then().statusCode(200);
        } finally {
            restoreTestAdmin();
        }
        as("break-glass-value").get("/api/v1/tokens").then().statusCode(200);
    }

    @Test
    void theOfflineCommandMakesAWorkingTokenWithNoAdminTokenAndAuditsIt() {
        expireEveryAdmin();
        ByteArrayOutputStream out = new ByteArrayOutputStream(), err = new ByteArrayOutputStream();
        String token;
        try {
            int rc = command.run(List.of("--role", "admin", "--label", "locked out"), new PrintStream(out, true, StandardCharsets.UTF_8),
                    new PrintStream(err, true, StandardCharsets.UTF_8));
            assertEquals(0, rc, err.toString(StandardCharsets.UTF_8));
            token = out.toString(StandardCharsets.UTF_8).trim();
            assertFalse(token.contains("\n"), "the token alone on stdout: " + token);
            as(token).get("/api/v1/tokens").then().statusCode(200);
        } finally {
            restoreTestAdmin();
        }
        String id = tokens.bySecret(token).orElseThrow().id();
        as(ADMIN).get("/api/v1/audit?limit=50").then().statusCode(200)
                .body("find { it.target == '/api/v1/tokens/" + id + "' }.actor", org.hamcrest.Matchers.equalTo("offline"));

        ByteArrayOutputStream bad = new ByteArrayOutputStream();
        assertEquals(2, command.run(List.of("--role", "submitter", "--team", "no-such-team"), new PrintStream(new ByteArrayOutputStream()),
                new PrintStream(bad, true, StandardCharsets.UTF_8)));
        assertTrue(bad.toString(StandardCharsets.UTF_8).contains("team: a submitter token needs an existing team"), bad.toString());
    }

    /** What a locked-out store looks like: every admin token ran out (the rules keep the API from getting there). */
    private void expireEveryAdmin() {
        db.update("UPDATE tokens SET expires_at = 1 WHERE role = 'ADMIN' AND revoked_at IS NULL AND expires_at IS NULL", ps -> { });
    }

    /** The other tests share this store and its test admin token. */
    private void restoreTestAdmin() {
        String id = tokens.bySecret(ADMIN).orElseThrow().id();
        db.update("UPDATE tokens SET expires_at = NULL WHERE id = ?", ps -> ps.setString(1, id));
    }
}
