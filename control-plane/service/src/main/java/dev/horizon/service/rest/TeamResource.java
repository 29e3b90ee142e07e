package dev.horizon.service.rest;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonUnwrapped;
import dev.horizon.api.Limits;
import dev.horizon.service.jobs.JobStore;
import dev.horizon.service.fairshare.OwedDelivered;
import dev.horizon.service.security.Caller;
import dev.horizon.service.teams.Team;
import dev.horizon.service.teams.TeamStore;
import dev.horizon.service.web.ApiException;
import jakarta.inject.Inject;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Teams and their budgets (shares of the cluster's GPU time); only admins change them. */
@Path("/api/v1/teams")
@Produces(MediaType.APPLICATION_JSON)
@Consumes(MediaType.APPLICATION_JSON)
public class TeamResource {
    private static final String EXAMPLE = "{\"name\":\"nlp\",\"parent\":\"research\",\"share\":0.25}";
    private static final String NAME_PATTERN = "[a-z0-9][a-z0-9-]{0,62}";

    public record Budget(Double share) {
    }

    /**
     * owedGpuHoursDelivered: GPU-hours run over GPU-hours owed over the last 7 days, capped at 1; absent when owed nothing.
     * owedGpuHours, deliveredGpuHours: the two sides of it over the same window.
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record TeamView(@JsonUnwrapped Team team, Double owedGpuHoursDelivered, double owedGpuHours, double deliveredGpuHours) {
    }

    @Inject
    Caller caller;
    @Inject
    TeamStore teams;
    @Inject
    OwedDelivered owed;
    @Inject
    JobStore jobs;

    @GET
    public List<TeamView> list() {
        Map<String, OwedDelivered.TeamHours> hours = owed.hoursByTeam();
        return teams.all().stream().map(t -> view(t, hours)).toList();
    }

    @GET
    @Path("/{name}")
    public TeamView get(@PathParam("name") String name) {
        return view(teams.find(name).orElseThrow(() -> ApiException.notFound("team", name)), owed.hoursByTeam());
    }

    private static TeamView view(Team team, Map<String, OwedDelivered.TeamHours> hours) {
        OwedDelivered.TeamHours h = hours.getOrDefault(team.name(), OwedDelivered.TeamHours.NONE);
        return new TeamView(team, h.delivered(), h.owed(), h.held());
    }

    @POST
    public Response create(String body) {
        caller.requireAdmin("creating teams");
        Team team = JsonBodies.read(body, Team.class, EXAMPLE);
        List<String> problems = new ArrayList<>();
        if (team.name() == null || !team.name().matches(NAME_PATTERN)) {
            problems.add("name must be lower-case letters, digits and '-', 1 to 63 characters (got " + Limits.quote(team.name()) + ")");
        }
        Limits.text("parent", team.parent(), Limits.SHORT_NAME, problems);
        checkShare(team.share(), problems);
        if (!problems.isEmpty()) throw new ApiException(400, "invalid team", problems);
        if (team.parent() != null && teams.find(team.parent()).isEmpty()) {
            throw new ApiException(422, "invalid team", List.of("parent: no team " + Limits.quote(team.parent()) + "; create the parent first or leave parent out"));
        }
        if (teams.find(team.name()).isPresent()) throw new ApiException(409, "team '" + team.name() + "' already exists; PUT /api/v1/teams/" + team.name() + "/budget changes its share");
        if (team.parent() != null && jobs.hasActive(team.parent())) {
            // with a sub-team the parent is owed nothing of its own (JobSubmissions), so its accepted jobs would turn into fill
            throw new ApiException(409, "team '" + team.parent() + "' has waiting or running jobs, which a team with sub-teams is owed no GPU time for:"
                    + " let them finish or cancel them, then create its sub-team");
        }
        teams.insert(team);
        return Response.created(URI.create("/api/v1/teams/" + team.name())).entity(team).build();
    }

    @PUT
    @Path("/{name}/budget")
    public TeamView setBudget(@PathParam("name") String name, String body) {
        caller.requireAdmin("changing budgets");
        Budget budget = JsonBodies.read(body, Budget.class, "{\"share\":0.3}");
        List<String> problems = new ArrayList<>();
        if (budget.share() == null) problems.add("share is required: the team's fraction of the cluster's GPU time, 0 to 1");
        else checkShare(budget.share(), problems);
        if (!problems.isEmpty()) throw new ApiException(400, "invalid budget", problems);
        get(name);
        teams.setShare(name, budget.share());
        return get(name);
    }

    private static void checkShare(double share, List<String> problems) {
        if (!(share >= 0 && share <= 1)) problems.add("share must be between 0 and 1, a fraction of the cluster's GPU time (got " + share + ")");
    }
}
