package dev.horizon.service.agents;

import dev.horizon.service.security.Role;
import dev.horizon.service.security.Tokens;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

/**
 * Agents authenticate as REST clients do, with a bearer token, sent as gRPC metadata "authorization: Bearer <token>";
 * only tokens of the agent role may call the agent service.
 */
@ApplicationScoped
public class AgentTokenInterceptor implements ServerInterceptor {
    static final Metadata.Key<String> AUTHORIZATION = Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);

    @Inject
    Tokens tokens;

    @Override
    public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
        // one primary-key lookup, on the thread that accepted the call: gRPC interceptors run before any offloading
        Tokens.Authentication auth = tokens.authenticate(headers.get(AUTHORIZATION));
        Status refusal = null;
        if (auth.grant() == null) {
            refusal = Status.UNAUTHENTICATED.withDescription(auth.refusal());
        } else if (auth.grant().role() != Role.AGENT) {
            refusal = Status.PERMISSION_DENIED.withDescription("the agent service needs an agent token (POST /api/v1/tokens {\"role\":\"agent\"});"
                    + " this token's role is " + auth.grant().role().name().toLowerCase());
        }
        if (refusal == null) return next.startCall(call, headers);
        call.close(refusal, new Metadata());
        return new ServerCall.Listener<>() {
        };
    }
}
