package dev.horizon.agent;

import dev.horizon.agent.v1.Inventory;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.Optional;
import org.jboss.logging.Logger;

/**
 * The token this agent sends. It starts with horizon.agent.token, an enrollment token (or a credential an admin made for
 * this node); the control plane's answer to its first Register is the node's own credential, kept in
 * {@code <state-dir>/node-credential} (readable by the agent's user only) and sent from then on, across restarts. When
 * the control plane refuses the kept credential as unknown, revoked or expired, the agent tries horizon.agent.token
 * again: a control plane with a new store enrolls the node anew, while a node an admin cut off stays refused (until the
 * admin gives it a new credential as its token).
 */
@ApplicationScoped
public class NodeCredential {
    private static final Logger LOG = Logger.getLogger(NodeCredential.class);
    static final String FILE = "node-credential";
    static final String NONCE_FILE = "enrollment-nonce";
    private static final SecureRandom RANDOM = new SecureRandom();

    @Inject
    AgentConfig config;

    private volatile String kept;
    private volatile boolean keptRefused;
    private volatile boolean loaded;

    /** The bearer token for the next call; empty when neither a kept credential nor horizon.agent.token exists. */
    Optional<String> current() {
        load();
        if (kept != null && !keptRefused) return Optional.of(kept);
        return config.token();
    }

    /**
     * The inventory as Register sends it: while this agent enrolls (no kept credential in use) with the enrollment nonce,
     * made once per enrollment and kept in {@code <state-dir>/enrollment-nonce} until the credential is saved, so a
     * retry, even after a restart, is the same enrollment and gets the same credential.
     */
    Inventory withEnrollmentNonce(Inventory inventory) {
        load();
        if (kept != null && !keptRefused) return inventory;
        return inventory.toBuilder().setEnrollmentNonce(nonce()).build();
    }

    private synchronized String nonce() {
        Path f = config.stateDir().resolve(NONCE_FILE);
        try {
            if (Files.exists(f)) return Files.readString(f).strip();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + f + "; set horizon.agent.state-dir to a readable folder", e);
        }
        byte[] bytes = new byte[32];
        RANDOM.nextBytes(bytes);
        String nonce = Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
        StateFiles.writeAtomically(f, nonce + "\n", "horizon.agent.state-dir");
        return nonce;
    }

    /** Keeps the credential Register answered; it replaces any kept before, and ends the enrollment its nonce was for. */
    void issued(String credential) {
        StateFiles.writeAtomically(file(), credential + "\n", "horizon.agent.state-dir");
        kept = credential;
        keptRefused = false;
        try {
            Files.deleteIfExists(config.stateDir().resolve(NONCE_FILE));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot remove the finished enrollment's nonce from " + config.stateDir(), e);
        }
        LOG.infof("the control plane enrolled this node; its credential is kept in %s", file());
    }

    /**
     * The control plane refused the current token as unauthenticated (why). True when there is another token to try now:
     * the kept credential was refused and horizon.agent.token is set.
     */
    boolean refused(String why) {
        if (kept == null || keptRefused || config.token().isEmpty()) return false;
        keptRefused = true;
        LOG.warnf("the control plane refused this node's kept credential (%s); registering with horizon.agent.token instead", why);
        return true;
    }

    private void load() {
        if (loaded) return;
        synchronized (this) {
            if (loaded) return;
            Path f = file();
            try {
                if (Files.exists(f)) kept = Files.readString(f).strip();
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read " + f + "; set horizon.agent.state-dir to a readable folder", e);
            }
            loaded = true;
        }
    }

    private Path file() {
        return config.stateDir().resolve(FILE);
    }
}
