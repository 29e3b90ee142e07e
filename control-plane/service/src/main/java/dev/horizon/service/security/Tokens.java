package dev.horizon.service.security;

import dev.horizon.service.clock.ServiceClock;
import dev.horizon.service.store.Db;
import dev.horizon.service.store.StoreException;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

/**
 * Bearer tokens. Only their SHA-256 is stored, so a copy of the store does not hand out access; the
 * plain token is shown once, when it is created, and never logged.
 */
@ApplicationScoped
public class Tokens {
    private static final Logger LOG = Logger.getLogger(Tokens.class);
    private static final SecureRandom RANDOM = new SecureRandom();

    public record Grant(Role role, String team) {
    }

    /** What an "Authorization" header value proves: a grant, or (grant null) why it proves nothing. */
    public record Authentication(Grant grant, String refusal) {
    }

    @Inject
    ServiceClock clock;
    @Inject
    Db db;
    @ConfigProperty(name = "horizon.bootstrap-admin-token")
    Optional<String> bootstrapAdminToken;
    @ConfigProperty(name = "horizon.bootstrap-agent-token")
    Optional<String> bootstrapAgentToken;

    /**
     * A fresh store gets its first admin token from HORIZON_BOOTSTRAP_ADMIN_TOKEN. An agent token from
     * HORIZON_BOOTSTRAP_AGENT_TOKEN is added to any store that lacks it, so agents deployed with it
     * (the Kubernetes chart's tokens Secret) register without an admin creating their token first.
     */
    void bootstrap(@Observes StartupEvent event) {
        bootstrapAdmin();
        bootstrapAgentToken.filter(t -> !t.isBlank()).ifPresent(this::bootstrapAgent);
    }

    private void bootstrapAgent(String token) {
        if (lookup(token).isPresent()) return;
        try {
            store(token, Role.AGENT, null, "bootstrap agent");
            LOG.info("created the bootstrap agent token from HORIZON_BOOTSTRAP_AGENT_TOKEN");
        } catch (RuntimeException e) {
            // another replica starting on the same database stored it first
            if (lookup(token).isEmpty()) throw e;
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
            store(bootstrapAdminToken.get(), Role.ADMIN, null, "bootstrap admin");
            LOG.info("created the bootstrap admin token from HORIZON_BOOTSTRAP_ADMIN_TOKEN");
        } catch (StoreException e) {
            // replicas starting together on a fresh store: the other one created it
            if (!e.duplicateKey()) throw e;
        }
    }

    /** Checks a "Bearer <token>" header value, for REST and gRPC alike. */
    public Authentication authenticate(String header) {
        if (header == null || header.isBlank()) {
            return new Authentication(null, "missing bearer token: send 'Authorization: Bearer <token>' (an HTTP header, or gRPC metadata)");
        }
        if (!header.regionMatches(true, 0, "Bearer ", 0, 7) || header.substring(7).isBlank()) {
            return new Authentication(null, "the Authorization value must be 'Bearer <token>'");
        }
        return lookup(header.substring(7).trim()).map(g -> new Authentication(g, null))
                .orElseGet(() -> new Authentication(null, "unknown or revoked token; ask an admin for one (POST /api/v1/tokens)"));
    }

    private Optional<Grant> lookup(String token) {
        List<Grant> found = db.query("SELECT role, team FROM tokens WHERE hash = ?", ps -> ps.setString(1, sha256(token)),
                rs -> new Grant(Role.valueOf(rs.getString(1)), rs.getString(2)));
        return found.stream().findFirst();
    }

    /** Creates a random token and returns it; only its hash is kept. */
    public String create(Role role, String team, String label) {
        byte[] bytes = new byte[32];
        RANDOM.nextBytes(bytes);
        String token = "hz_" + Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
        store(token, role, team, label);
        return token;
    }

    private void store(String token, Role role, String team, String label) {
        db.update("INSERT INTO tokens (hash, role, team, label, created_at) VALUES (?, ?, ?, ?, ?)", ps -> {
            ps.setString(1, sha256(token));
            ps.setString(2, role.name());
            ps.setString(3, team);
            ps.setString(4, label);
            ps.setLong(5, clock.millis());
        });
    }

    static String sha256(String token) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime has SHA-256", e);
        }
    }
}
