package dev.horizon.service.security;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import dev.horizon.service.store.Db;
import dev.horizon.service.store.StoreException;
import dev.horizon.service.web.ApiTime;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Event;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.util.Base64;
import java.util.Collection;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

/**
 * Bearer tokens. Only their SHA-256 is stored, so a copy of the store does not hand out access; the plain token is
 * shown once, when it is created, and never logged. A token is known by its id (the first 16 hex digits of the hash);
 * revoking keeps the row, so the next request with it, on any replica, is refused as revoked, and a revoked bootstrap
 * token is never inserted again.
 */
@ApplicationScoped
public class Tokens {
    private static final Logger LOG = Logger.getLogger(Tokens.class);
    private static final SecureRandom RANDOM = new SecureRandom();
    /** last_used_at is written at most this often per token, so reading the API does not write to the store on every call. */
    private static final long TOUCH_MILLIS = 60_000;
    private static final String COLUMNS = "id, role, team, node, label, created_at, last_used_at, expires_at, revoked_at, created_by";

    /** What a live token may do: its role, the team a submitter token is bound to, the node a node credential is bound to. */
    public record Grant(String id, Role role, String team, String node, String label) {
        /** An agent token bound to no node: it only enrolls nodes (Register), as a Kubernetes bootstrap token does. */
        public boolean enrollsOnly() {
            return role == Role.AGENT && node == null;
        }
    }

    /** What an "Authorization" header value proves: a grant, or (grant null) why it proves nothing. */
    public record Authentication(Grant grant, String refusal) {
    }

    /** A token as admins list it: everything but the secret, which is never stored. Times are on the wall clock. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record TokenInfo(String id, String role, String team, String node, String label, @JsonSerialize(using = ApiTime.Millis.class) long createdAt, @JsonSerialize(using = ApiTime.Millis.class) Long lastUsedAt, @JsonSerialize(using = ApiTime.Millis.class) Long expiresAt,
                            @JsonSerialize(using = ApiTime.Millis.class) Long revokedAt, String createdBy) {
        boolean live(long now) {
            return revokedAt == null && (expiresAt == null || expiresAt > now);
        }
    }

    /** A token just made: the secret, shown this once, and its listing. */
    public record Created(String token, TokenInfo info) {
    }

    /** Fired after a token is revoked here, so open agent streams that use it close at once (other replicas sweep). */
    public record Revoked(String id) {
    }

    /** What to make: node binds an agent token to one node (a node credential); expiresAt null never expires. */
    public record Request(Role role, String team, String node, String label, Long expiresAt, String createdBy) {
    }

    @Inject
    Db db;
    @Inject
    Event<Revoked> revoked;
    @ConfigProperty(name = "horizon.bootstrap-admin-token")
    Optional<String> bootstrapAdminToken;
    @ConfigProperty(name = "horizon.bootstrap-agent-token")
    Optional<String> bootstrapAgentToken;

    private final Map<String, Long> touched = new ConcurrentHashMap<>();

    /**
     * A fresh store gets its first admin token from HORIZON_BOOTSTRAP_ADMIN_TOKEN. The enrollment token agents are
     * deployed with (HORIZON_BOOTSTRAP_AGENT_TOKEN, the Kubernetes chart's tokens Secret) is inserted once: a store that
     * ever held it, even revoked, does not get it again.
     */
    public void bootstrap(@Observes StartupEvent event) {
        bootstrapAdmin();
        bootstrapAgentToken.filter(t -> !t.isBlank()).ifPresent(this::bootstrapAgent);
    }

    private void bootstrapAgent(String token) {
        if (row(sha256(token)).isPresent()) return;
        try {
            store(token, new Request(Role.AGENT, null, null, "bootstrap agent", null, null));
            LOG.info("created the bootstrap agent token from HORIZON_BOOTSTRAP_AGENT_TOKEN");
        } catch (StoreException e) {
            // another replica starting on the same database stored it first
            if (!e.duplicateKey()) throw e;
        }
    }

    private void bootstrapAdmin() {
        long existing = db.query("SELECT COUNT(*) FROM tokens", ps -> { }, rs -> rs.getLong(1)).get(0);
        if (existing > 0) return;
        if (bootstrapAdminToken.filter(t -> !t.isBlank()).isEmpty()) {
            LOG.warn("the store has no tokens: set HORIZON_BOOTSTRAP_ADMIN_TOKEN to create the first admin token");
            return;
        }
        try {
            store(bootstrapAdminToken.get(), new Request(Role.ADMIN, null, null, "bootstrap admin", null, null));
            LOG.info("created the bootstrap admin token from HORIZON_BOOTSTRAP_ADMIN_TOKEN");
        } catch (StoreException e) {
            // replicas starting together on a fresh store: the other one created it
            if (!e.duplicateKey()) throw e;
        }
    }

    /** Checks a "Bearer <token>" header value, for REST and gRPC alike: known, not revoked, not expired. */
    public Authentication authenticate(String header) {
        if (header == null || header.isBlank()) {
            return new Authentication(null, "missing bearer token: send 'Authorization: Bearer <token>' (an HTTP header, or gRPC metadata)");
        }
        if (!header.regionMatches(true, 0, "Bearer ", 0, 7) || header.substring(7).isBlank()) {
            return new Authentication(null, "the Authorization value must be 'Bearer <token>'");
        }
        Optional<TokenInfo> found = row(sha256(header.substring(7).trim()));
        if (found.isEmpty()) return new Authentication(null, "unknown token; ask an admin for one (POST /api/v1/tokens)");
        TokenInfo t = found.get();
        long now = wallMillis();
        if (t.revokedAt() != null) return new Authentication(null, "token " + t.id() + " was revoked at " + Instant.ofEpochMilli(t.revokedAt())
                + "; ask an admin for a new one");
        if (!t.live(now)) return new Authentication(null, "token " + t.id() + " expired at " + Instant.ofEpochMilli(t.expiresAt())
                + "; ask an admin for a new one");
        touch(t.id(), now);
        return new Authentication(new Grant(t.id(), Role.valueOf(t.role().toUpperCase(java.util.Locale.ROOT)), t.team(), t.node(), t.label()), null);
    }

    private void touch(String id, long now) {
        Long last = touched.get(id);
        if (last != null && now - last < TOUCH_MILLIS) return;
        touched.put(id, now);
        db.update("UPDATE tokens SET last_used_at = ? WHERE id = ?", ps -> {
            ps.setLong(1, now);
            ps.setString(2, id);
        });
    }

    /**
     * Creates a random token and returns it with its listing; only its hash is kept. A node credential replaces the node's
     * live one, if any, in the same transaction (there is never more than one live credential per node).
     */
    public Created create(Request request) {
        byte[] bytes = new byte[32];
        RANDOM.nextBytes(bytes);
        String token = "hz_" + Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
        return new Created(token, store(token, request));
    }

    private TokenInfo store(String token, Request r) {
        String hash = sha256(token);
        long now = wallMillis();
        List<String> replaced = db.inTransaction(c -> {
            List<String> old = r.node() == null ? List.of() : Db.query(c, "SELECT id FROM tokens WHERE live_node = ?", ps -> ps.setString(1, r.node()),
                    rs -> rs.getString(1));
            for (String id : old) revoke(c, id, now);
            Db.update(c, "INSERT INTO tokens (hash, id, role, team, node, live_node, label, created_at, expires_at, created_by)"
                    + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", ps -> {
                        ps.setString(1, hash);
                        ps.setString(2, id(hash));
                        ps.setString(3, r.role().name());
                        ps.setString(4, r.team());
                        ps.setString(5, r.node());
                        ps.setString(6, r.node());
                        ps.setString(7, r.label());
                        ps.setLong(8, now);
                        if (r.expiresAt() == null) ps.setNull(9, Types.BIGINT);
                        else ps.setLong(9, r.expiresAt());
                        ps.setString(10, r.createdBy());
                    });
            return old;
        });
        replaced.forEach(id -> revoked.fire(new Revoked(id)));
        return find(id(hash)).orElseThrow();
    }

    /** Every token, oldest first. */
    public List<TokenInfo> list() {
        return db.query("SELECT " + COLUMNS + " FROM tokens ORDER BY created_at, id", ps -> { }, Tokens::info);
    }

    public Optional<TokenInfo> find(String id) {
        return db.query("SELECT " + COLUMNS + " FROM tokens WHERE id = ?", ps -> ps.setString(1, id), Tokens::info).stream().findFirst();
    }

    /** The node's credentials, newest first. */
    public List<TokenInfo> ofNode(String node) {
        return db.query("SELECT " + COLUMNS + " FROM tokens WHERE node = ? ORDER BY created_at DESC", ps -> ps.setString(1, node), Tokens::info);
    }

    /** Revokes a live token; false when it was revoked already. The next request with it is refused, on every replica. */
    public boolean revoke(String id) {
        boolean done = db.inTransaction(c -> revoke(c, id, wallMillis())) == 1;
        if (done) revoked.fire(new Revoked(id));
        return done;
    }

    private static int revoke(Connection c, String id, long now) throws SQLException {
        return Db.update(c, "UPDATE tokens SET revoked_at = ?, live_node = NULL WHERE id = ? AND revoked_at IS NULL", ps -> {
            ps.setLong(1, now);
            ps.setString(2, id);
        });
    }

    /** Which of these token ids are still live (known, not revoked, not expired). */
    public Set<String> liveAmong(Collection<String> ids) {
        if (ids.isEmpty()) return Set.of();
        long now = wallMillis();
        String marks = String.join(", ", java.util.Collections.nCopies(ids.size(), "?"));
        return new HashSet<>(db.query("SELECT id FROM tokens WHERE revoked_at IS NULL AND (expires_at IS NULL OR expires_at > ?) AND id IN (" + marks + ")",
                ps -> {
                    ps.setLong(1, now);
                    int i = 2;
                    for (String id : ids) ps.setString(i++, id);
                }, rs -> rs.getString(1)));
    }

    /** How many live admin tokens there are besides this one. */
    public long otherLiveAdmins(String id) {
        long now = wallMillis();
        return db.query("SELECT COUNT(*) FROM tokens WHERE role = 'ADMIN' AND id <> ? AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > ?)",
                ps -> {
                    ps.setString(1, id);
                    ps.setLong(2, now);
                }, rs -> rs.getLong(1)).get(0);
    }

    /**
     * Tokens live on the wall clock, as their expiry (expiresInSeconds from now) does, never on the service's scheduling
     * clock: a virtual clock that a replay moves by days must neither expire a token nor stamp it with a replayed date.
     */
    private static long wallMillis() {
        return System.currentTimeMillis();
    }

    private Optional<TokenInfo> row(String hash) {
        return db.query("SELECT " + COLUMNS + " FROM tokens WHERE hash = ?", ps -> ps.setString(1, hash), Tokens::info).stream().findFirst();
    }

    private static TokenInfo info(ResultSet rs) throws SQLException {
        return new TokenInfo(rs.getString(1), rs.getString(2).toLowerCase(java.util.Locale.ROOT), rs.getString(3), rs.getString(4), rs.getString(5),
                rs.getLong(6), nullable(rs, 7), nullable(rs, 8), nullable(rs, 9), rs.getString(10));
    }

    private static Long nullable(ResultSet rs, int column) throws SQLException {
        long v = rs.getLong(column);
        return rs.wasNull() ? null : v;
    }

    private static String id(String hash) {
        return hash.substring(0, 16);
    }

    static String sha256(String token) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime has SHA-256", e);
        }
    }
}
