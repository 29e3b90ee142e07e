package dev.horizon.service.security;

import dev.horizon.service.web.ErrorBody;
import io.vertx.core.http.HttpServerRequest;
import jakarta.inject.Inject;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.Response;
import java.util.List;
import java.util.Optional;
import org.jboss.resteasy.reactive.server.ServerRequestFilter;

/**
 * Every /api request needs a live bearer token (the web page does not; health and metrics are on the management port).
 * An enrollment token (an agent token bound to no node) only registers nodes over gRPC, so REST refuses it.
 */
public class BearerTokenFilter {
    @Inject
    Tokens tokens;
    @Inject
    Caller caller;
    @Inject
    FailedTokens failedTokens;

    @ServerRequestFilter
    public Optional<Response> authenticate(ContainerRequestContext request, HttpServerRequest http) {
        if (!request.getUriInfo().getPath().startsWith("/api/")) return Optional.empty();
        String source = http.remoteAddress() == null ? "unknown" : http.remoteAddress().hostAddress();
        if (failedTokens.refused(source)) return Optional.of(tooMany(source));
        String header = request.getHeaderString(HttpHeaders.AUTHORIZATION);
        Tokens.Authentication auth = tokens.authenticate(header);
        if (auth.grant() == null) return Optional.of(failed(source, header, auth.refusal()));
        if (auth.grant().enrollsOnly()) {
            return Optional.of(new ErrorBody(403, "token " + auth.grant().id() + " is an enrollment token: it only registers nodes (the agents'"
                    + " gRPC Register), which answers each node its own credential; use that credential, or an admin or submitter token", List.of())
                    .response());
        }
        caller.set(auth.grant());
        return Optional.empty();
    }

    /** A presented token that failed counts against its source, whose answers then slow down, then stop (FailedTokens). */
    private Response failed(String source, String header, String refusal) {
        if (header == null || header.isBlank()) return unauthorized(refusal);
        // this is a worker thread: it waits out a delay here
        return failedTokens.failed(source).toCompletableFuture().join() == FailedTokens.Verdict.REFUSE ? tooMany(source) : unauthorized(refusal);
    }

    private Response tooMany(String source) {
        long retry = failedTokens.retryAfterSeconds(source);
        return Response.fromResponse(new ErrorBody(429, "too many failed tokens from " + source + " in the last minute; retry after " + retry + " s",
                List.of()).response()).header(HttpHeaders.RETRY_AFTER, retry).build();
    }

    private static Response unauthorized(String message) {
        return Response.fromResponse(new ErrorBody(401, message, List.of()).response())
                .header(HttpHeaders.WWW_AUTHENTICATE, "Bearer realm=\"horizon\"").build();
    }
}
