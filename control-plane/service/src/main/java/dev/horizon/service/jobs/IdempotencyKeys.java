package dev.horizon.service.jobs;

import dev.horizon.api.Limits;
import dev.horizon.service.security.Tokens;
import dev.horizon.service.store.Db;
import dev.horizon.service.web.ApiException;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Idempotency-Key on job submission, as Stripe and the IETF draft (draft-ietf-httpapi-idempotency-key-header) have it: a
 * caller's key names the job its first request made, kept in the store (it survives restarts and holds across replicas)
 * until retention deletes the job. The same key with the same job answers that job again; with another job it is refused.
 */
@ApplicationScoped
public class IdempotencyKeys {
    public static final String HEADER = "Idempotency-Key";
    /** Printable ASCII, as the draft's examples and Stripe's keys (UUIDs, 255 characters at most). */
    private static final Pattern VALID = Pattern.compile("[\\x21-\\x7e]{1,255}");

    /** One caller's key (the caller is its token's id) and the SHA-256 of the job it came with (its canonical JSON). */
    public record Key(String caller, String key, String bodySha256) {
    }

    @Inject
    Db db;

    /** The key as sent, checked: 400 naming the header when it is empty, too long or not printable ASCII. */
    public static Key of(String caller, String header, String canonicalJob) {
        if (!VALID.matcher(header).matches()) {
            throw new ApiException(400, "invalid " + HEADER, List.of(HEADER + " must be 1 to 255 printable ASCII characters, such as a UUID (got "
                    + Limits.quote(header) + ")"));
        }
        return new Key(caller, header, Tokens.sha256(canonicalJob));
    }

    /**
     * The id of the job this key made earlier, if any; a 422 when the key came with another job (the draft's answer to
     * a key reused with a different payload), naming the job it belongs to.
     */
    public Optional<String> earlierJob(Key key) {
        List<String[]> found = db.query("SELECT job_id, body_sha256 FROM idempotency_keys WHERE caller = ? AND idem_key = ?", ps -> {
            ps.setString(1, key.caller());
            ps.setString(2, key.key());
        }, rs -> new String[] {rs.getString(1), rs.getString(2)});
        if (found.isEmpty()) return Optional.empty();
        if (!found.get(0)[1].equals(key.bodySha256())) {
            throw new ApiException(422, HEADER + " " + Limits.quote(key.key()) + " was used for another job (" + found.get(0)[0]
                    + "); a retry must send the same job, and a new job needs a new key");
        }
        return Optional.of(found.get(0)[0]);
    }

}
