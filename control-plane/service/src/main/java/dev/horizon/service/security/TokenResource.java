package dev.horizon.service.security;

import dev.horizon.service.teams.TeamStore;
import dev.horizon.service.web.ApiException;
import dev.horizon.service.web.JsonBodies;
import jakarta.inject.Inject;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.util.List;
import java.util.Locale;

/** Admins hand out tokens: a submitter token is bound to one team, an agent token to the agents. */
@Path("/api/v1/tokens")
@Produces(MediaType.APPLICATION_JSON)
@Consumes(MediaType.APPLICATION_JSON)
public class TokenResource {
    private static final String EXAMPLE = "{\"role\":\"submitter\",\"team\":\"nlp\",\"label\":\"ci pipeline\"}";

    public record TokenRequest(String role, String team, String label) {
    }

    public record CreatedToken(String token, String role, String team, String label) {
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
        Role role;
        try {
            role = Role.valueOf(String.valueOf(req.role()).toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new ApiException(400, "invalid token request", List.of("role must be one of admin, submitter, agent (got " + req.role() + ")"));
        }
        if (role == Role.SUBMITTER && (req.team() == null || teams.find(req.team()).isEmpty())) {
            throw new ApiException(422, "invalid token request",
                    List.of("team: a submitter token needs an existing team (got " + req.team() + "); create it with POST /api/v1/teams"));
        }
        if (role != Role.SUBMITTER && req.team() != null) {
            throw new ApiException(400, "invalid token request", List.of("team: only submitter tokens are bound to a team; leave it out"));
        }
        String token = tokens.create(role, req.team(), req.label());
        return Response.status(201).entity(new CreatedToken(token, role.name().toLowerCase(Locale.ROOT), req.team(), req.label())).build();
    }
}
