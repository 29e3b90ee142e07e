package dev.horizon.service.security;

import dev.horizon.service.web.ErrorBody;
import jakarta.inject.Inject;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.Response;
import java.util.List;
import java.util.Optional;
import org.jboss.resteasy.reactive.server.ServerRequestFilter;

/** Every /api/v1 request needs a known bearer token; health, metrics, OpenAPI and the web page do not. */
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
        caller.set(auth.grant().role(), auth.grant().team());
        return Optional.empty();
    }

    private static Response unauthorized(String message) {
        return Response.fromResponse(new ErrorBody(401, message, List.of()).response())
                .header(HttpHeaders.WWW_AUTHENTICATE, "Bearer realm=\"horizon\"").build();
    }
}
