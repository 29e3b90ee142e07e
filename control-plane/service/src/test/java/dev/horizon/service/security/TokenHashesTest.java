package dev.horizon.service.security;

import static dev.horizon.service.Api.as;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.horizon.service.Api;
import dev.horizon.service.store.Db;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Tokens are stored under the store's key, never as a plain SHA-256, and a store from before keyed hashes keeps working. */
@QuarkusTest
class TokenHashesTest {
    @Inject
    Tokens tokens;
    @Inject
    TokenHashes hashes;
    @Inject
    Db db;

    @Test
    void aNewTokenIsStoredAsAKeyedHashAndItsIdIsNoPartOfItsSha256() {
        Api.team("hashed", 0.1);
        String token = Api.token("submitter", "hashed");
        String id = tokens.bySecret(token).orElseThrow().id();
        String plain = Tokens.sha256(token);

        assertEquals(List.of(TokenHashes.KEYED), column("hashed_with", id));
        String stored = column("hash", id).get(0);
        assertNotEquals(plain, stored, "the stored value is not the token's SHA-256");
        assertFalse(plain.startsWith(id), "the public id is not a prefix of the token's SHA-256");
        assertTrue(db.query("SELECT id FROM tokens WHERE hash = ? OR id = ?", ps -> {
            ps.setString(1, plain);
            ps.setString(2, plain.substring(0, 16));
        }, rs -> rs.getString(1)).isEmpty(), "nothing in the store is the token's SHA-256");
        as(token).get("/api/v1/jobs").then().statusCode(200);
    }

    @Test
    void aTokenStoredAsPlainSha256BeforeTheUpgradeStillAuthenticatesAfterIt() {
        Api.team("upgraded", 0.1);
        String old = "hz_a-token-from-a-store-before-keyed-hashes-" + System.nanoTime();
        String plain = Tokens.sha256(old);
        // the row as V27 and earlier wrote it: hash and id from the plain SHA-256; hashed_with takes V28's default
        db.update("INSERT INTO tokens (hash, id, role, team, label, created_at) VALUES (?, ?, 'SUBMITTER', 'upgraded', 'from before', 1)", ps -> {
            ps.setString(1, plain);
            ps.setString(2, plain.substring(0, 16));
        });
        assertEquals(List.of(TokenHashes.PLAIN), column("hashed_with", plain.substring(0, 16)));

        assertTrue(hashes.upgrade() >= 1, "the plain row is rewrapped");
        assertEquals(0, hashes.upgrade(), "a second start finds nothing left to upgrade");

        as(old).get("/api/v1/jobs").then().statusCode(200);
        assertEquals(List.of(TokenHashes.KEYED), column("hashed_with", plain.substring(0, 16)), "the token keeps its id");
        assertNotEquals(plain, column("hash", plain.substring(0, 16)).get(0));
    }

    private List<String> column(String name, String id) {
        return db.query("SELECT " + name + " FROM tokens WHERE id = ?", ps -> ps.setString(1, id), rs -> rs.getString(1).trim());
    }
}
