package dev.horizon.agent;

import dev.horizon.nvml.NvmlSession;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.logging.Logger;

/**
 * The agent's one NVML session. Opening can fail (no driver, driver not loaded); the agent then keeps
 * running so that its health endpoints can say why, instead of crash-looping without a word.
 */
@ApplicationScoped
public class Nvml {
    private static final Logger LOG = Logger.getLogger(Nvml.class);

    private volatile NvmlSession session;
    private volatile String failure = "NVML is not opened yet";

    synchronized void open() {
        if (session != null) return;
        try {
            session = NvmlSession.open();
            failure = null;
            LOG.infof("NVML opened: %d GPUs, %s", session.deviceCount(), session.driver());
        } catch (RuntimeException e) {
            failure = e.getMessage();
            LOG.errorf("NVML unavailable: %s", failure);
        }
    }

    synchronized void close() {
        if (session != null) session.close();
        session = null;
        failure = "NVML is closed";
    }

    public boolean isOpen() {
        return session != null;
    }

    /** Why NVML is not usable, null when it is. */
    public String failure() {
        return failure;
    }

    /** @throws IllegalStateException saying why when NVML could not be opened */
    public NvmlSession session() {
        NvmlSession s = session;
        if (s == null) throw new IllegalStateException(failure);
        return s;
    }
}
