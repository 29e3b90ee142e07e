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
        String header = request.getHeaderString(HttpHeaders.AUTHORIZATION);
        if (header == null || header.isBlank()) {
            return Optional.of(unauthorized("missing bearer token: send the header 'Authorization: Bearer <token>'"));
        }
        if (!header.regionMatches(true, 0, "Bearer ", 0, 7) || header.substring(7).isBlank()) {
            return Optional.of(unauthorized("the Authorization header must be 'Bearer <token>'"));
        }
        Optional<Tokens.Grant> grant = tokens.lookup(header.substring(7).trim());
        if (grant.isEmpty()) return Optional.of(unauthorized("unknown or revoked token; ask an admin for one (POST /api/v1/tokens)"));
        caller.set(grant.get().role(), grant.get().team());
        return Optional.empty();
    }

    private static Response unauthorized(String message) {
        return Response.fromResponse(new ErrorBody(401, message, List.of()).response())
                .header(HttpHeaders.WWW_AUTHENTICATE, "Bearer realm=\"horizon\"").build();
    }
}
