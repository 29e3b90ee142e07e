package dev.horizon.service.security;

import dev.horizon.service.store.Db;
import dev.horizon.service.store.StoreException;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * How a token is kept in the store: HMAC-SHA256, under a random key of the store's own, over the token's SHA-256. One
 * key per store, not a salt per row, because a request's token must be found by one indexed lookup; every replica on
 * the store and the offline {@code ./horizon token create --store} read the same key. Wrapping the SHA-256 (rather than
 * keying the token itself) lets a store from before keyed hashes be upgraded in place: its rows hold the SHA-256, and
 * {@link #upgrade} rewraps them, so their tokens keep working and no plain SHA-256 of a token stays in the store.
 */
@ApplicationScoped
public class TokenHashes {
    /** tokens.hashed_with of a row hashed this way; rows from before say {@value #PLAIN}. */
    static final String KEYED = "hmac-sha256";
    static final String PLAIN = "sha256";
    private static final int KEY_ROW = 1;

    @Inject
    Db db;

    private volatile byte[] key;

    /** The hex HMAC-SHA256 of the token's SHA-256 under this store's key: what tokens.hash holds. */
    public String of(String token) {
        return wrap(sha256(token.getBytes(StandardCharsets.UTF_8)));
    }

    /**
     * Rewraps every row still holding a plain SHA-256; returns how many. Each row is rewritten only while it still says
     * {@value #PLAIN}, so replicas starting together upgrade each row once.
     */
    public int upgrade() {
        List<String> plain = db.query("SELECT hash FROM tokens WHERE hashed_with = ?", ps -> ps.setString(1, PLAIN), rs -> rs.getString(1).trim());
        if (plain.isEmpty()) return 0;
        // wrapped before the transaction: the first wrap may have to make the key, which is its own write
        Map<String, String> wrapped = new LinkedHashMap<>();
        for (String old : plain) wrapped.put(old, wrap(HexFormat.of().parseHex(old)));
        return db.inTransaction(c -> {
            int upgraded = 0;
            for (Map.Entry<String, String> row : wrapped.entrySet()) {
                upgraded += Db.update(c, "UPDATE tokens SET hash = ?, hashed_with = ? WHERE hash = ? AND hashed_with = ?", ps -> {
                    ps.setString(1, row.getValue());
                    ps.setString(2, KEYED);
                    ps.setString(3, row.getKey());
                    ps.setString(4, PLAIN);
                });
            }
            return upgraded;
        });
    }

    private String wrap(byte[] sha256) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key(), "HmacSHA256"));
            return HexFormat.of().formatHex(mac.doFinal(sha256));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("every Java runtime has HmacSHA256", e);
        }
    }

    /** The store's key, made by whichever process needs it first (another replica may win the insert; then its key is read). */
    private byte[] key() {
        byte[] k = key;
        if (k != null) return k;
        List<String> stored = storedKey();
        if (stored.isEmpty()) {
            byte[] fresh = new byte[32];
            new SecureRandom().nextBytes(fresh);
            try {
                db.update("INSERT INTO token_hash_key (id, hmac_key, created_at) VALUES (?, ?, ?)", ps -> {
                    ps.setInt(1, KEY_ROW);
                    ps.setString(2, Base64.getEncoder().encodeToString(fresh));
                    ps.setLong(3, System.currentTimeMillis());
                });
            } catch (StoreException e) {
                if (!e.duplicateKey()) throw e;
            }
            stored = storedKey();
        }
        key = k = Base64.getDecoder().decode(stored.get(0));
        return k;
    }

    private List<String> storedKey() {
        return db.query("SELECT hmac_key FROM token_hash_key WHERE id = ?", ps -> ps.setInt(1, KEY_ROW), rs -> rs.getString(1));
    }

    /** The SHA-256 of some bytes. */
    static byte[] sha256(byte[] bytes) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(bytes);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime has SHA-256", e);
        }
    }
}
