package dev.horizon.service.agents;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.horizon.service.store.StoreException;
import io.grpc.Status;
import io.quarkus.runtime.ShutdownEvent;
import java.sql.SQLException;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** A store failure on an agent call is an ERROR while the control plane runs, and the shutdown itself once it stops. */
class AgentErrorsTest {
    private final Logger log = Logger.getLogger(AgentErrors.class.getName());
    private final List<LogRecord> records = new CopyOnWriteArrayList<>();
    private final Handler capture = new Handler() {
        @Override
        public void publish(LogRecord r) {
            records.add(r);
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };

    @BeforeEach
    void listen() {
        log.addHandler(capture);
    }

    @AfterEach
    void stopListening() {
        log.removeHandler(capture);
    }

    private static StoreException poolClosed() {
        return new StoreException(new SQLException("This pool is closed and does not handle any more connections!"));
    }

    private boolean anError() {
        return records.stream().anyMatch(r -> r.getLevel().intValue() >= Level.SEVERE.intValue());
    }

    private static AgentErrors errors(ShuttingDown shuttingDown) {
        AgentErrors errors = new AgentErrors();
        errors.shuttingDown = shuttingDown;
        return errors;
    }

    @Test
    void aStoreFailureWhileRunningIsAnErrorAndTheAgentRetries() {
        AgentErrors errors = errors(new ShuttingDown());
        Throwable answer = errors.transform(poolClosed());
        assertEquals(Status.Code.UNAVAILABLE, Status.fromThrowable(answer).getCode());
        assertTrue(anError(), "an ERROR line: " + records);
    }

    @Test
    void theStoreClosingOnShutdownIsNoError() {
        ShuttingDown shuttingDown = new ShuttingDown();
        shuttingDown.begin(new ShutdownEvent());
        AgentErrors errors = errors(shuttingDown);
        Throwable answer = errors.transform(poolClosed());
        assertEquals(Status.Code.UNAVAILABLE, Status.fromThrowable(answer).getCode());
        assertTrue(!records.isEmpty() && !anError(), "said below ERROR: " + records);
    }
}
