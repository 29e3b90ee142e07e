package dev.horizon.service.agents;

import dev.horizon.service.store.StoreException;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.Status;
import io.grpc.StatusException;
import io.quarkus.grpc.ExceptionHandler;
import io.quarkus.grpc.ExceptionHandlerProvider;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.jboss.logging.Logger;

/**
 * The gRPC side of the API's error rule: a refusal keeps its status; a store that is down is UNAVAILABLE (an agent
 * retries); a value the store refuses is INVALID_ARGUMENT; anything else is INTERNAL, logged here, with no stack trace
 * sent to the agent. While the control plane shuts down its connection pool closes before the agents' calls drain: a
 * store failure then is the shutdown itself, not a fault, and is said without an ERROR line.
 */
@ApplicationScoped
public class AgentErrors implements ExceptionHandlerProvider {
    private static final Logger LOG = Logger.getLogger(AgentErrors.class);
    @Inject
    ShuttingDown shuttingDown;

    @Override
    public Throwable transform(Throwable t) {
        if (t instanceof io.grpc.StatusRuntimeException || t instanceof StatusException) return t;
        if (t instanceof StoreException s && s.refusedData()) {
            LOG.warnf("the store refused a value from an agent that passed the checks (a missing check): %s", s.getCause().getMessage());
            return Status.INVALID_ARGUMENT.withDescription("a value does not fit the store; shorten the message's longest text fields").asRuntimeException();
        }
        if (t instanceof StoreException && shuttingDown.begun()) {
            LOG.infof("an agent call met the store closing on shutdown; the agent retries on the next replica: %s", t.getMessage());
            return Status.UNAVAILABLE.withDescription("the control plane is shutting down; retry shortly").asRuntimeException();
        }
        if (t instanceof StoreException) {
            LOG.error("store failure on an agent call", t);
            return Status.UNAVAILABLE.withDescription("the store is not available; retry shortly").asRuntimeException();
        }
        LOG.error("agent call failed", t);
        return Status.INTERNAL.withDescription("the control plane failed on this call; its log says why").asRuntimeException();
    }

    @Override
    public <Q, R> ExceptionHandler<Q, R> createHandler(ServerCall.Listener<Q> listener, ServerCall<Q, R> call, Metadata metadata) {
        return new ExceptionHandler<>(listener, call, metadata) {
            @Override
            protected void handleException(Throwable t, ServerCall<Q, R> call, Metadata metadata) {
                StatusException e = (StatusException) ExceptionHandlerProvider.toStatusException(transform(t), false);
                try {
                    call.close(e.getStatus(), e.getTrailers() != null ? e.getTrailers() : metadata);
                } catch (IllegalStateException closed) {
                    // the call was closed already (the agent went away): nothing left to tell it
                }
            }
        };
    }
}
