package dev.horizon.service.security;

import dev.horizon.service.web.ErrorBody;
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

    @ServerRequestFilter
    public Optional<Response> authenticate(ContainerRequestContext request) {
        if (!request.getUriInfo().getPath().startsWith("/api/")) return Optional.empty();
        Tokens.Authentication auth = tokens.authenticate(request.getHeaderString(HttpHeaders.AUTHORIZATION));
        if (auth.grant() == null) return Optional.of(unauthorized(auth.refusal()));
        if (auth.grant().enrollsOnly()) {
            return Optional.of(new ErrorBody(403, "token " + auth.grant().id() + " is an enrollment token: it only registers nodes (the agents'"
                    + " gRPC Register), which answers each node its own credential; use that credential, or an admin or submitter token", List.of())
                    .response());
        }
        caller.set(auth.grant());
        return Optional.empty();
    }

    private static Response unauthorized(String message) {
        return Response.fromResponse(new ErrorBody(401, message, List.of()).response())
                .header(HttpHeaders.WWW_AUTHENTICATE, "Bearer realm=\"horizon\"").build();
    }
}
