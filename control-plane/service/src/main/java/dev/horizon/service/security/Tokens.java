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
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
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
 * Bearer tokens. Only a keyed hash of each is stored ({@link TokenHashes}), so a copy of the store does not hand out
 * access; the plain token is shown once, when it is created, and never logged. A token is known by its id (the first 16
 * hex digits of the hash it was created with; a token from before keyed hashes keeps the id it had);
 * revoking keeps the row, so the next request with it, on any replica, is refused as revoked, and a revoked bootstrap
 * token is never inserted again.
 */
@ApplicationScoped
public class Tokens {
    private static final Logger LOG = Logger.getLogger(Tokens.class);
    private static final SecureRandom RANDOM = new SecureRandom();
    /** last_used_at is written at most this often per token, so reading the API does not write to the store on every call. */
    private static final long TOUCH_MILLIS = 60_000;
    private static final String COLUMNS = "id, role, team, node, label, created_at, last_used_at, expires_at, revoked_at, created_by, max_uses, uses,"
            + " requires_approval";

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

    /**
     * A token as admins list it: everything but the secret, which is never stored. Times are on the wall clock, written as ISO-8601. An
     * enrollment token enrolls at most maxUses nodes (null: no count) and has enrolled uses; requiresApproval: the nodes
     * it enrolls wait for an admin's approval before the planner places anything on them.
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record TokenInfo(String id, String role, String team, String node, String label, @JsonSerialize(using = ApiTime.Millis.class) long createdAt,
                            @JsonSerialize(using = ApiTime.Millis.class) Long lastUsedAt, @JsonSerialize(using = ApiTime.Millis.class) Long expiresAt,
                            @JsonSerialize(using = ApiTime.Millis.class) Long revokedAt, String createdBy, Integer maxUses, int uses,
                            boolean requiresApproval) {
        boolean live(long now) {
            return revokedAt == null && (expiresAt == null || expiresAt > now);
        }

        /** The token as the audit log names it: role, id and what binds or bounds it. */
        public String describe() {
            return role + " token " + id + (team != null ? " for team " + team : "") + (node != null ? " for node " + node : "")
                    + (maxUses != null ? " enrolling at most " + maxUses + " nodes" : "") + (requiresApproval ? " that wait for approval" : "")
                    + (label != null ? " (" + label + ")" : "");
        }
    }

    /** A token just made: the secret, shown this once, and its listing. */
    public record Created(String token, TokenInfo info) {
    }

    /** Fired after a token is revoked here, so open agent streams that use it close at once (other replicas sweep). */
    public record Revoked(String id) {
    }

    /**
     * What to make: node binds an agent token to one node (a node credential); expiresInSeconds null never expires;
     * maxUses and requiresApproval bound an enrollment token (see {@link TokenInfo}).
     */
    public record Request(Role role, String team, String node, String label, Long expiresInSeconds, String createdBy, Integer maxUses,
                          boolean requiresApproval) {
        public Request(Role role, String team, String node, String label, Long expiresInSeconds, String createdBy) {
            this(role, team, node, label, expiresInSeconds, createdBy, null, false);
        }
    }

    @Inject
    Db db;
    @Inject
    TokenHashes hashes;
    @Inject
    Event<Revoked> revoked;
    @ConfigProperty(name = "horizon.bootstrap-admin-token")
    Optional<String> bootstrapAdminToken;
    @ConfigProperty(name = "horizon.bootstrap-agent-token")
    Optional<String> bootstrapAgentToken;

    private final Map<String, Long> touched = new ConcurrentHashMap<>();

    /**
     * The admin token HORIZON_BOOTSTRAP_ADMIN_TOKEN names is the way in whenever no admin token is live: on a fresh store,
     * and as break-glass after every admin token was revoked or expired. The enrollment token agents are deployed with
     * (HORIZON_BOOTSTRAP_AGENT_TOKEN, the Kubernetes chart's tokens Secret) is inserted once: a store that ever held it,
     * even revoked, does not get it again.
     */
    public void bootstrap(@Observes StartupEvent event) {
        int upgraded = hashes.upgrade();
        if (upgraded > 0) LOG.infof("rehashed %d token(s) stored as plain SHA-256 with this store's key; they keep working", upgraded);
        BootstrapOutcome admin = bootstrapAdmin(bootstrapAdminToken.filter(t -> !t.isBlank()));
        if (admin.leftOut()) LOG.warn(admin.message());
        else LOG.info(admin.message());
        bootstrapAgentToken.filter(t -> !t.isBlank()).ifPresent(this::bootstrapAgent);
    }

    private void bootstrapAgent(String token) {
        if (bySecret(token).isPresent()) return;
        try {
            store(token, new Request(Role.AGENT, null, null, "bootstrap agent", null, null));
            LOG.info("created the bootstrap agent token from HORIZON_BOOTSTRAP_AGENT_TOKEN");
        } catch (StoreException e) {
            // another replica starting on the same database stored it first
            if (!e.duplicateKey()) throw e;
        }
    }

    /**
     * Stores the bootstrap admin token when no admin token is live, and says what it did or why it did nothing. A value
     * the store knows already (revoked, expired, or another role's token) is never brought back: a revoked token may
     * have leaked, so break-glass needs a value never used before.
     */
    BootstrapOutcome bootstrapAdmin(Optional<String> value) {
        List<TokenInfo> live = liveAdmins();
        if (!live.isEmpty()) return whileLive(value, live);
        if (value.isEmpty()) {
            return new BootstrapOutcome(true, "the store holds no live admin token: set HORIZON_BOOTSTRAP_ADMIN_TOKEN to a new value and restart,"
                    + " or run ./horizon token create --store DIR|URL --role admin on the stopped store");
        }
        Optional<TokenInfo> known = bySecret(value.get());
        if (known.isPresent()) {
            TokenInfo t = known.get();
            return new BootstrapOutcome(true, "HORIZON_BOOTSTRAP_ADMIN_TOKEN is ignored although no admin token is live: it is " + t.role()
                    + " token " + t.id() + ", " + (t.revokedAt() != null ? "revoked at " + ApiTime.ofMillis(t.revokedAt())
                            : t.expiresAt() != null ? "expired at " + ApiTime.ofMillis(t.expiresAt()) : "not an admin token")
                    + "; set a value never used before and restart");
        }
        boolean fresh = db.query("SELECT COUNT(*) FROM tokens", ps -> { }, rs -> rs.getLong(1)).get(0) == 0;
        try {
            TokenInfo created = store(value.get(), new Request(Role.ADMIN, null, null, "bootstrap admin", null, null));
            return new BootstrapOutcome(!fresh, fresh ? "created the bootstrap admin token " + created.id() + " from HORIZON_BOOTSTRAP_ADMIN_TOKEN"
                    : "break-glass: no admin token was live, so HORIZON_BOOTSTRAP_ADMIN_TOKEN became admin token " + created.id());
        } catch (StoreException e) {
            // replicas starting together: the other one stored it
            if (!e.duplicateKey()) throw e;
            return new BootstrapOutcome(false, "HORIZON_BOOTSTRAP_ADMIN_TOKEN was stored by another replica starting at the same time");
        }
    }

    /** With admin tokens live the value is not needed: says whether it is one of them, or ignored (naming them). */
    private BootstrapOutcome whileLive(Optional<String> value, List<TokenInfo> live) {
        if (value.isEmpty()) return new BootstrapOutcome(false, "the store holds " + live.size() + " live admin token(s)");
        Optional<TokenInfo> same = bySecret(value.get()).filter(t -> live.stream().anyMatch(l -> l.id().equals(t.id())));
        return new BootstrapOutcome(same.isEmpty(), same.map(t -> "HORIZON_BOOTSTRAP_ADMIN_TOKEN is live admin token " + t.id())
                .orElse("HORIZON_BOOTSTRAP_ADMIN_TOKEN is ignored: the store holds " + live.size() + " live admin token(s) ("
                        + String.join(", ", live.stream().map(TokenInfo::id).toList()) + "); it applies only when none is live"));
    }

    /** What starting did about the bootstrap admin token; leftOut when an operator should read it (logged as a warning). */
    record BootstrapOutcome(boolean leftOut, String message) {
    }

    /** Admin tokens that are neither revoked nor expired, oldest first. */
    public List<TokenInfo> liveAdmins() {
        long now = now();
        return db.query("SELECT " + COLUMNS + " FROM tokens WHERE role = 'ADMIN' AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > ?)"
                + " ORDER BY created_at, id", ps -> ps.setLong(1, now), Tokens::info);
    }

    /** Checks a "Bearer <token>" header value, for REST and gRPC alike: known, not revoked, not expired. */
    public Authentication authenticate(String header) {
        if (header == null || header.isBlank()) {
            return new Authentication(null, "missing bearer token: send 'Authorization: Bearer <token>' (an HTTP header, or gRPC metadata)");
        }
        if (!header.regionMatches(true, 0, "Bearer ", 0, 7) || header.substring(7).isBlank()) {
            return new Authentication(null, "the Authorization value must be 'Bearer <token>'");
        }
        Optional<TokenInfo> found = bySecret(header.substring(7).trim());
        if (found.isEmpty()) return new Authentication(null, "unknown token; ask an admin for one (POST /api/v1/tokens)");
        TokenInfo t = found.get();
        long now = now();
        if (t.revokedAt() != null) return new Authentication(null, "token " + t.id() + " was revoked at " + ApiTime.ofMillis(t.revokedAt())
                + "; ask an admin for a new one");
        if (!t.live(now)) return new Authentication(null, "token " + t.id() + " expired at " + ApiTime.ofMillis(t.expiresAt())
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
        return create("hz_" + Base64.getUrlEncoder().withoutPadding().encodeToString(bytes), request);
    }

    /** Stores a token whose secret the caller made (a node credential derived from its enrollment; NodeCredentials). */
    Created create(String token, Request request) {
        return new Created(token, store(token, request));
    }

    /** The token whose secret this is, live or not. */
    Optional<TokenInfo> bySecret(String token) {
        return db.query("SELECT " + COLUMNS + " FROM tokens WHERE hash = ?", ps -> ps.setString(1, hashes.of(token)), Tokens::info).stream().findFirst();
    }

    /**
     * Counts one enrollment against an enrollment token's maxUses; false when it has enrolled as many nodes as it may.
     * One conditional update, so two agents enrolling at once cannot both take its last use.
     */
    boolean useForEnrollment(String id) {
        return db.update("UPDATE tokens SET uses = uses + 1 WHERE id = ? AND (max_uses IS NULL OR uses < max_uses)", ps -> ps.setString(1, id)) == 1;
    }

    private TokenInfo store(String token, Request r) {
        String hash = hashes.of(token);
        long now = now();
        List<String> replaced = db.inTransaction(c -> {
            List<String> old = r.node() == null ? List.of() : Db.query(c, "SELECT id FROM tokens WHERE live_node = ?", ps -> ps.setString(1, r.node()),
                    rs -> rs.getString(1));
            for (String id : old) revoke(c, id, now);
            Db.update(c, "INSERT INTO tokens (hash, id, role, team, node, live_node, label, created_at, expires_at, created_by, max_uses,"
                    + " requires_approval, hashed_with) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", ps -> {
                        ps.setString(1, hash);
                        ps.setString(2, id(hash));
                        ps.setString(3, r.role().name());
                        ps.setString(4, r.team());
                        ps.setString(5, r.node());
                        ps.setString(6, r.node());
                        ps.setString(7, r.label());
                        ps.setLong(8, now);
                        if (r.expiresInSeconds() == null) ps.setNull(9, Types.BIGINT);
                        else ps.setLong(9, now + r.expiresInSeconds() * 1000);
                        ps.setString(10, r.createdBy());
                        if (r.maxUses() == null) ps.setNull(11, Types.INTEGER);
                        else ps.setInt(11, r.maxUses());
                        ps.setBoolean(12, r.requiresApproval());
                        ps.setString(13, TokenHashes.KEYED);
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

    /**
     * Revokes a live token; false when it was revoked already. The next request with it is refused, on every replica.
     * An admin token is revoked only while another admin token that never expires stays live, checked with the live
     * admin tokens locked, so two admins revoking each other at once cannot both succeed.
     */
    public boolean revoke(String id) {
        boolean done = db.inTransaction(c -> {
            List<TokenInfo> admins = Db.query(c, "SELECT " + COLUMNS + " FROM tokens WHERE role = 'ADMIN' AND revoked_at IS NULL FOR UPDATE",
                    ps -> { }, Tokens::info);
            if (admins.stream().anyMatch(t -> t.id().equals(id)) && admins.stream().noneMatch(t -> !t.id().equals(id) && t.expiresAt() == null)) {
                throw new LastAdminException("token " + id + " is the last live admin token, or the last that never expires; create another"
                        + " admin token without expiresInSeconds first, or nobody could administer the cluster once the others expire");
            }
            return revoke(c, id, now());
        }) == 1;
        if (done) revoked.fire(new Revoked(id));
        return done;
    }

    /** Revoking this admin token would leave no admin token that never expires. */
    public static class LastAdminException extends RuntimeException {
        LastAdminException(String message) {
            super(message);
        }
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
        long now = now();
        String marks = String.join(", ", java.util.Collections.nCopies(ids.size(), "?"));
        return new HashSet<>(db.query("SELECT id FROM tokens WHERE revoked_at IS NULL AND (expires_at IS NULL OR expires_at > ?) AND id IN (" + marks + ")",
                ps -> {
                    ps.setLong(1, now);
                    int i = 2;
                    for (String id : ids) ps.setString(i++, id);
                }, rs -> rs.getString(1)));
    }

    private static TokenInfo info(ResultSet rs) throws SQLException {
        return new TokenInfo(rs.getString(1), rs.getString(2).toLowerCase(java.util.Locale.ROOT), rs.getString(3), rs.getString(4), rs.getString(5),
                rs.getLong(6), nullable(rs, 7), nullable(rs, 8), nullable(rs, 9), rs.getString(10), (Integer) rs.getObject(11), rs.getInt(12),
                rs.getBoolean(13));
    }

    private static Long nullable(ResultSet rs, int column) throws SQLException {
        long v = rs.getLong(column);
        return rs.wasNull() ? null : v;
    }

    /**
     * Tokens live in wall time in both clock modes, and expiry is set and checked on this one clock: a virtual clock (a
     * replay, the demo) starts at 0 and jumps by days, under which an expiry would mean nothing.
     */
    private static long now() {
        return System.currentTimeMillis();
    }

    private static String id(String hash) {
        return hash.substring(0, 16);
    }

    /** The hex SHA-256 of a text's UTF-8 bytes (not how tokens are stored: see {@link TokenHashes}). */
    public static String sha256(String text) {
        return HexFormat.of().formatHex(TokenHashes.sha256(text.getBytes(StandardCharsets.UTF_8)));
    }
}
