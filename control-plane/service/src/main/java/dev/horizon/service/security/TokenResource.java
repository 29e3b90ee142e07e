package dev.horizon.service.security;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonUnwrapped;
import dev.horizon.api.Limits;
import dev.horizon.api.NodeNames;
import dev.horizon.service.teams.TeamStore;
import dev.horizon.service.web.ApiException;
import dev.horizon.service.web.JsonBodies;
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
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

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
    /** Ten years: a longer expiry is a unit mistake; leave it out for a token that never expires. */
    static final long MAX_EXPIRES_IN_SECONDS = 10L * 365 * 86_400;
    /** Nodes one enrollment token may enroll: more than any cluster Horizon plans. */
    static final int MAX_USES = 100_000;

    /** maxUses and requireApproval bound an enrollment token (an agent token without a node). */
    public record TokenRequest(String role, String team, String node, String label, Long expiresInSeconds, Integer maxUses, Boolean requireApproval) {
    }

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
        Role role = checked(req, teams);
        Tokens.Created created = tokens.create(new Tokens.Request(role, req.team(), req.node(), req.label(), req.expiresInSeconds(), caller.tokenId(),
                req.maxUses(), Boolean.TRUE.equals(req.requireApproval())));
        caller.noteForAudit("created " + describe(created.info()));
        return Response.created(URI.create("/api/v1/tokens/" + created.info().id())).entity(new CreatedToken(created.token(), created.info())).build();
    }

    /** Checks the request's fields and its team; the role they ask for. The offline command (TokenCommand) checks the same. */
    static Role checked(TokenRequest req, TeamStore teams) {
        Role role = role(req);
        if (role == Role.SUBMITTER && (req.team() == null || teams.find(req.team()).isEmpty())) {
            throw new ApiException(422, "invalid token request", List.of("team: a submitter token needs an existing team (got "
                    + Limits.quote(req.team()) + "); create it with POST /api/v1/teams"));
        }
        return role;
    }

    private static Role role(TokenRequest req) {
        List<String> problems = new ArrayList<>();
        Role role = null;
        try {
            role = Role.valueOf(String.valueOf(req.role()).toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            problems.add("role must be one of admin, submitter, agent (got " + Limits.quote(req.role()) + ")");
        }
        if (role != Role.SUBMITTER && req.team() != null) problems.add("team: only submitter tokens are bound to a team; leave it out");
        if (role != Role.AGENT && req.node() != null) problems.add("node: only agent tokens are bound to a node; leave it out");
        Limits.text("team", req.team(), Limits.SHORT_NAME, problems);
        if (req.node() != null && req.node().isBlank()) problems.add("node must not be empty: the node name its agent registers");
        else NodeNames.check("node", req.node(), problems);
        enrollmentBounds(req, role, problems);
        Limits.text("label", req.label(), Limits.LABEL, problems);
        if (req.expiresInSeconds() != null && (req.expiresInSeconds() < 1 || req.expiresInSeconds() > MAX_EXPIRES_IN_SECONDS)) {
            problems.add("expiresInSeconds must be between 1 and " + MAX_EXPIRES_IN_SECONDS + " (ten years); leave it out for a token that never"
                    + " expires (got " + req.expiresInSeconds() + ")");
        }
        if (!problems.isEmpty()) throw new ApiException(400, "invalid token request", problems);
        return role;
    }

    /** maxUses and requireApproval: only on an enrollment token (an agent token bound to no node), maxUses within its limit. */
    private static void enrollmentBounds(TokenRequest req, Role role, List<String> problems) {
        boolean enrollment = role == Role.AGENT && req.node() == null;
        if (!enrollment && req.maxUses() != null) problems.add("maxUses: only enrollment tokens (role agent, no node) count the nodes they enroll; leave it out");
        if (!enrollment && req.requireApproval() != null) {
            problems.add("requireApproval: only enrollment tokens (role agent, no node) enroll nodes that wait for approval; leave it out");
        }
        if (req.maxUses() != null && (req.maxUses() < 1 || req.maxUses() > MAX_USES)) {
            problems.add("maxUses must be 1 to " + MAX_USES + ", the nodes the token may enroll; leave it out for no count (got " + req.maxUses() + ")");
        }
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
            throw new ApiException(409, "token " + id + " was revoked already, at " + Instant.ofEpochMilli(token.revokedAt()));
        }
        try {
            tokens.revoke(id);
        } catch (Tokens.LastAdminException e) {
            throw new ApiException(409, e.getMessage());
        }
        caller.noteForAudit("revoked " + describe(token));
        return find(id);
    }

    private Tokens.TokenInfo find(String id) {
        return tokens.find(id).orElseThrow(() -> new ApiException(404, "no token with id " + Limits.quote(id) + "; GET /api/v1/tokens lists them"));
    }

    static String describe(Tokens.TokenInfo t) {
        return t.role() + " token " + t.id() + (t.team() != null ? " for team " + t.team() : "") + (t.node() != null ? " for node " + t.node() : "")
                + (t.maxUses() != null ? " enrolling at most " + t.maxUses() + " nodes" : "") + (t.requiresApproval() ? " that wait for approval" : "")
                + (t.label() != null ? " (" + t.label() + ")" : "");
    }
}
