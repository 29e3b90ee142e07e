package dev.horizon.service.agents;

import dev.horizon.service.security.FailedTokens;
import dev.horizon.service.security.Role;
import dev.horizon.service.security.Tokens;
import io.grpc.Context;
import io.grpc.Contexts;
import io.grpc.ForwardingServerCallListener;
import io.grpc.Grpc;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.net.InetSocketAddress;
import java.net.SocketAddress;

/**
 * Agents authenticate as REST clients do, with a bearer token, sent as gRPC metadata "authorization: Bearer <token>";
 * only agent tokens may call the agent service, and an enrollment token (bound to no node) only Register. The grant
 * travels with the call ({@link #grant()}) so each method checks the node it acts for against the credential's node.
 */
@ApplicationScoped
public class AgentTokenInterceptor implements ServerInterceptor {
    static final Metadata.Key<String> AUTHORIZATION = Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);
    private static final Context.Key<Tokens.Grant> GRANT = Context.key("horizon-agent-grant");
    /** The enrollment token's secret, on Register calls made with one: a retried enrollment's credential is derived from it. */
    private static final Context.Key<String> ENROLLMENT_SECRET = Context.key("horizon-enrollment-secret");
    private static final String REGISTER = "Register";

    @Inject
    Tokens tokens;
    @Inject
    FailedTokens failedTokens;

    /** The grant of the call being served; set for every call that reaches AgentGrpc. */
    static Tokens.Grant grant() {
        return GRANT.get();
    }

    /** The secret of the enrollment token this Register call was made with; null for a node credential. */
    static String enrollmentSecret() {
        return ENROLLMENT_SECRET.get();
    }

    @Override
    public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
        // failed tokens count against their source as on REST (FailedTokens): a source past the limit is refused without a
        // look at its token, and beyond the free failures its refusals are answered late
        String source = source(call);
        if (failedTokens.refused(source)) {
            call.close(tooMany(source), new Metadata());
            return new ServerCall.Listener<>() {
            };
        }
        // one primary-key lookup, on the thread that accepted the call: gRPC interceptors run before any offloading
        Tokens.Authentication auth = tokens.authenticate(headers.get(AUTHORIZATION));
        Status refusal = refusal(auth, call.getMethodDescriptor().getBareMethodName());
        if (auth.grant() == null && headers.get(AUTHORIZATION) != null) {
            failedTokens.failed(source).thenAccept(verdict -> call.close(verdict == FailedTokens.Verdict.REFUSE ? tooMany(source) : refusal,
                    new Metadata()));
            return new ServerCall.Listener<>() {
            };
        }
        if (refusal == null) {
            Context context = Context.current().withValue(GRANT, auth.grant());
            if (auth.grant().enrollsOnly()) context = context.withValue(ENROLLMENT_SECRET, headers.get(AUTHORIZATION).substring(7).trim());
            ServerCall.Listener<Q> listener = Contexts.interceptCall(context, call, headers, next);
            return call.getMethodDescriptor().getType().clientSendsOneMessage() ? new OneMessage<>(listener, call) : listener;
        }
        call.close(refusal, new Metadata());
        return new ServerCall.Listener<>() {
        };
    }

    private Status tooMany(String source) {
        return Status.RESOURCE_EXHAUSTED.withDescription("too many failed tokens from " + source + " in the last minute; retry after "
                + failedTokens.retryAfterSeconds(source) + " s");
    }

    private static String source(ServerCall<?, ?> call) {
        SocketAddress remote = call.getAttributes().get(Grpc.TRANSPORT_ATTR_REMOTE_ADDR);
        return remote instanceof InetSocketAddress a && a.getAddress() != null ? a.getAddress().getHostAddress() : String.valueOf(remote);
    }

    /**
     * A unary call whose request could not be parsed as its message type reaches the service as a half-close without
     * a message, which gRPC answers INTERNAL; that is the client's malformed bytes, so it is answered INVALID_ARGUMENT.
     */
    private static final class OneMessage<Q, R> extends ForwardingServerCallListener.SimpleForwardingServerCallListener<Q> {
        private final ServerCall<Q, R> call;
        private boolean received;

        OneMessage(ServerCall.Listener<Q> delegate, ServerCall<Q, R> call) {
            super(delegate);
            this.call = call;
        }

        @Override
        public void onMessage(Q message) {
            received = true;
            super.onMessage(message);
        }

        @Override
        public void onHalfClose() {
            if (received) {
                super.onHalfClose();
                return;
            }
            call.close(Status.INVALID_ARGUMENT.withDescription("the request is not a valid " + call.getMethodDescriptor().getBareMethodName()
                    + " message of horizon/agent/v1/agent.proto"), new Metadata());
        }
    }

    private static Status refusal(Tokens.Authentication auth, String method) {
        if (auth.grant() == null) return Status.UNAUTHENTICATED.withDescription(auth.refusal());
        if (auth.grant().role() != Role.AGENT) {
            return Status.PERMISSION_DENIED.withDescription("the agent service needs an agent token (POST /api/v1/tokens {\"role\":\"agent\"});"
                    + " this token's role is " + auth.grant().role().name().toLowerCase());
        }
        if (auth.grant().enrollsOnly() && !REGISTER.equals(method)) {
            return Status.PERMISSION_DENIED.withDescription("token " + auth.grant().id() + " is an enrollment token: it only calls Register, whose"
                    + " reply carries the node's own credential (node_credential); send that credential on " + method);
        }
        return null;
    }
}
