package dev.horizon.service.rest;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonUnwrapped;
import dev.horizon.api.Limits;
import dev.horizon.service.security.Caller;
import dev.horizon.service.security.Role;
import dev.horizon.service.security.TokenRequest;
import dev.horizon.service.security.Tokens;
import dev.horizon.service.teams.TeamStore;
import dev.horizon.service.web.ApiException;
import dev.horizon.service.web.ApiTime;
import jakarta.inject.Inject;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.net.URI;
import java.util.List;

/**
 * Admins hand out, list and revoke tokens: a submitter token is bound to one team; an agent token bound to no node only
 * enrolls nodes (their agents' Register answers each its own credential); an agent token bound to a node is that node's
 * credential, which replaces the node's live one (re-enrolling a node). The secret is shown once, at creation.
 */
@Path("/api/v1/tokens")
@Produces(MediaType.APPLICATION_JSON)
@Consumes(MediaType.APPLICATION_JSON)
public class TokenResource {
    private static final String EXAMPLE = "{\"role\":\"submitter\",\"team\":\"nlp\",\"label\":\"ci pipeline\",\"expiresInSeconds\":86400}";

    /** The new token's secret, shown this once, beside what GET /api/v1/tokens lists for it. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record CreatedToken(String token, @JsonUnwrapped Tokens.TokenInfo info) {
    }

    @Inject
    Caller caller;
    @Inject
    Tokens tokens;
    @Inject
    TeamStore teams;

    @POST
    public Response create(String body) {
        caller.requireAdmin("creating tokens");
        TokenRequest req = JsonBodies.read(body, TokenRequest.class, EXAMPLE);
        Role role = req.checked(teams);
        Tokens.Created created = tokens.create(new Tokens.Request(role, req.team(), req.node(), req.label(), req.expiresInSeconds(), caller.tokenId(),
                req.maxUses(), Boolean.TRUE.equals(req.requireApproval())));
        caller.noteForAudit("created " + created.info().describe());
        return Response.created(URI.create("/api/v1/tokens/" + created.info().id())).entity(new CreatedToken(created.token(), created.info())).build();
    }

    /** Every token (admins): id, role, team, node, label, created, last used, expiry, revocation; never the secret. */
    @GET
    public List<Tokens.TokenInfo> list() {
        caller.requireAdmin("listing tokens");
        return tokens.list();
    }

    @GET
    @Path("/{id}")
    public Tokens.TokenInfo get(@PathParam("id") String id) {
        caller.requireAdmin("reading tokens");
        return find(id);
    }

    /** Revokes a token: its next request is refused (401), and agent streams using it close within a second or two. */
    @DELETE
    @Path("/{id}")
    public Tokens.TokenInfo revoke(@PathParam("id") String id) {
        caller.requireAdmin("revoking tokens");
        Tokens.TokenInfo token = find(id);
        if (token.revokedAt() != null) {
            throw new ApiException(409, "token " + id + " was revoked already, at " + ApiTime.ofMillis(token.revokedAt()));
        }
        try {
            tokens.revoke(id);
        } catch (Tokens.LastAdminException e) {
            throw new ApiException(409, e.getMessage());
        }
        caller.noteForAudit("revoked " + token.describe());
        return find(id);
    }

    private Tokens.TokenInfo find(String id) {
        return tokens.find(id).orElseThrow(() -> new ApiException(404, "no token with id " + Limits.quote(id) + "; GET /api/v1/tokens lists them"));
    }
}
