package dev.horizon.agent;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
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

    /** Keeps the credential Register answered; it replaces any kept before. */
    void issued(String credential) {
        StateFiles.writeAtomically(file(), credential + "\n", "horizon.agent.state-dir");
        kept = credential;
        keptRefused = false;
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
