package dev.horizon.service.rest;

import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import dev.horizon.allocator.model.InferenceService;
import dev.horizon.api.Limits;
import dev.horizon.api.NodeNames;
import dev.horizon.service.inference.InferenceStore;
import dev.horizon.service.nodes.NodeStore;
import dev.horizon.service.plans.PlanRequests;
import dev.horizon.service.plans.PlannerSettings;
import dev.horizon.service.security.Caller;
import dev.horizon.service.teams.TeamStore;
import dev.horizon.service.web.ApiException;
import dev.horizon.service.web.ApiTime;
import jakarta.inject.Inject;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
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
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Real-time inference services: teams declare them, agents report their demand, and the planner reserves GPUs by its forecast. */
@Path("/api/v1/inference-services")
@Produces(MediaType.APPLICATION_JSON)
@Consumes(MediaType.APPLICATION_JSON)
public class InferenceResource {
    private static final String EXAMPLE = "{\"name\":\"chat\",\"team\":\"nlp\",\"weightPerGpuHour\":20,\"swapCapGpus\":2,\"servedBy\":[\"gpu-1\"]}";
    private static final String DEMAND_EXAMPLE = "{\"gpus\":[3.5,4,4.2],\"heldGpus\":4}";
    private static final String NAME_PATTERN = "[a-z0-9][a-z0-9-]{0,62}";
    private static final double MAX_WEIGHT = 1e6;
    /** Bounds on GPU counts: more than any cluster Horizon plans, so a bigger number is a typo. */
    private static final int MAX_GPUS = 100_000;
    /** Four weeks of 15-minute steps: enough to backfill the forecaster's whole look-back in one call. */
    private static final int MAX_STEPS_PER_REPORT = 2688;

    /** Nodes whose agents serve one service: at most this many may be named. */
    private static final int MAX_SERVED_BY = 200;

    public record Demand(List<Double> gpus, Integer heldGpus) {
    }

    /** The GPUs the service's replicas serve on now, by uuid. */
    public record Held(List<String> gpuUuids) {
    }

    /** servedBy: the nodes whose agents serve the service, the only node credentials that may report its demand. */
    public record ServiceBody(String name, String team, double weightPerGpuHour, int swapCapGpus, List<String> servedBy) {
        InferenceService service() {
            return new InferenceService(name, team, weightPerGpuHour, swapCapGpus);
        }
    }

    /**
     * lastDemand: the newest observed step (null before any); forecast[k]: GPUs needed k + 1 steps after it. heldOn: the
     * uuids of the GPUs its replicas hold (empty when only a count was reported). recentDemand: the last day's observed
     * steps, oldest first, the last of which was reported at recentDemandReportedAt (epoch ms), each step stepSeconds long.
     */
    public record ServiceView(String name, String team, double weightPerGpuHour, int swapCapGpus, List<String> servedBy, int heldGpus,
                              int observedSteps, Double lastDemand, double[] forecast, List<String> heldOn, List<Double> recentDemand,
                              @JsonSerialize(using = ApiTime.Millis.class) Long recentDemandReportedAt, long stepSeconds) {
    }

    @Inject
    Caller caller;
    @Inject
    InferenceStore services;
    @Inject
    TeamStore teams;
    @Inject
    NodeStore nodes;
    @Inject
    PlanRequests planner;
    @Inject
    PlannerSettings settings;

    @GET
    public List<ServiceView> list() {
        return services.all().stream().map(this::view).toList();
    }

    @GET
    @Path("/{name}")
    public ServiceView get(@PathParam("name") String name) {
        return view(find(name));
    }

    @POST
    public Response create(String body) {
        ServiceBody s = JsonBodies.read(body, ServiceBody.class, EXAMPLE);
        List<String> problems = new ArrayList<>();
        if (s.name() == null || !s.name().matches(NAME_PATTERN)) {
            problems.add("name must be lower-case letters, digits and '-', 1 to 63 characters (got " + Limits.quote(s.name()) + ")");
        }
        if (s.team() == null) problems.add("team is required: the team whose budget the service's GPUs count against");
        Limits.text("team", s.team(), Limits.SHORT_NAME, problems);
        checkServedBy(s.servedBy(), problems);
        if (!(s.weightPerGpuHour() > 0 && s.weightPerGpuHour() <= MAX_WEIGHT)) {
            problems.add("weightPerGpuHour must be above 0 and at most " + MAX_WEIGHT + ", the value of one served GPU-hour (got " + s.weightPerGpuHour() + ")");
        }
        if (s.swapCapGpus() < 1 || s.swapCapGpus() > MAX_GPUS) {
            problems.add("swapCapGpus must be 1 to " + MAX_GPUS + ", the GPUs it may gain or lose in one step (got " + s.swapCapGpus() + ")");
        }
        if (!problems.isEmpty()) throw new ApiException(400, "invalid inference service", problems);
        caller.requireTeam(s.team(), "declaring inference services");
        if (teams.find(s.team()).isEmpty()) {
            throw new ApiException(422, "invalid inference service", List.of("team: no team '" + s.team() + "'; create it with POST /api/v1/teams"));
        }
        if (services.find(s.name()).isPresent()) throw new ApiException(409, "inference service '" + s.name() + "' already exists");
        services.insert(s.service(), s.servedBy() == null ? List.of() : s.servedBy());
        planner.requestPlan();
        return Response.created(URI.create("/api/v1/inference-services/" + s.name())).entity(view(find(s.name()))).build();
    }

    @DELETE
    @Path("/{name}")
    public Response delete(@PathParam("name") String name) {
        InferenceStore.Row row = find(name);
        caller.requireTeam(row.service().team(), "removing inference services");
        services.delete(name);
        planner.requestPlan();
        return Response.noContent().build();
    }

    private static void checkServedBy(List<String> servedBy, List<String> problems) {
        if (servedBy == null) return;
        if (servedBy.size() > MAX_SERVED_BY) problems.add("servedBy names " + servedBy.size() + " nodes; the limit is " + MAX_SERVED_BY);
        for (int i = 0; i < Math.min(servedBy.size(), MAX_SERVED_BY); i++) {
            String node = servedBy.get(i);
            if (node == null || node.isBlank()) problems.add("servedBy[" + i + "] must be a node name");
            else NodeNames.check("servedBy[" + i + "]", node, problems);
        }
    }

    /**
     * Observed demand for the steps after the last reported one, oldest first; heldGpus: the replicas serving now. Admins
     * report for any service, a node credential only for a service that lists its node in servedBy.
     */
    @POST
    @Path("/{name}/demand")
    public ServiceView report(@PathParam("name") String name, String body) {
        caller.requireAgentOrAdmin("reporting inference demand");
        InferenceStore.Row row = find(name);
        caller.requireOwnNode("reporting inference demand", row.servedBy()::contains, "service " + name + " (served by " + row.servedBy() + ")");
        Demand d = JsonBodies.read(body, Demand.class, DEMAND_EXAMPLE);
        List<String> problems = new ArrayList<>();
        if (d.gpus() == null || d.gpus().isEmpty() || d.gpus().size() > MAX_STEPS_PER_REPORT) {
            problems.add("gpus: 1 to " + MAX_STEPS_PER_REPORT + " observed demands, one per step, oldest first; for example " + DEMAND_EXAMPLE);
        } else {
            for (int i = 0; i < d.gpus().size(); i++) {
                Double g = d.gpus().get(i);
                if (g == null || !(g >= 0 && g <= MAX_GPUS)) problems.add("gpus[" + i + "]: GPUs demanded, 0 to " + MAX_GPUS + " (got " + g + ")");
            }
        }
        if (d.heldGpus() != null && (d.heldGpus() < 0 || d.heldGpus() > MAX_GPUS)) {
            problems.add("heldGpus: GPUs serving the service now, 0 to " + MAX_GPUS + " (got " + d.heldGpus() + ")");
        }
        if (!problems.isEmpty()) throw new ApiException(400, "invalid demand report", problems);
        if (caller.node() != null && d.heldGpus() != null) requireServable(row, d.heldGpus());
        services.report(name, d.gpus(), d.heldGpus());
        planner.requestPlan();
        return get(name);
    }

    /** A node credential reports at most as many held GPUs as the nodes serving the service registered (a 403 otherwise). */
    private void requireServable(InferenceStore.Row row, int heldGpus) {
        int registered = row.servedBy().stream().map(nodes::find).flatMap(java.util.Optional::stream).mapToInt(n -> n.gpus().size()).sum();
        if (heldGpus <= registered) return;
        throw new ApiException(403, "heldGpus: " + heldGpus + " GPUs held, but the nodes serving service " + row.service().name() + " " + row.servedBy()
                + " registered " + registered + "; a node reports no more than its nodes registered");
    }

    /**
     * Agents report which GPUs the service's replicas hold now: the plan keeps batch work off them, and a job it finds on
     * one has lost it to the service and waits to be placed again. An admin replaces the whole list; a node credential
     * names only its own node's GPUs and replaces only what the service holds there, so it can neither take nor release
     * another node's GPUs.
     */
    @PUT
    @Path("/{name}/held")
    public ServiceView held(@PathParam("name") String name, String body) {
        caller.requireAgentOrAdmin("reporting the GPUs an inference service holds");
        InferenceStore.Row row = find(name);
        caller.requireOwnNode("reporting the GPUs an inference service holds", row.servedBy()::contains,
                "service " + name + " (served by " + row.servedBy() + ")");
        Held h = JsonBodies.read(body, Held.class, "{\"gpuUuids\":[\"GPU-...\"]}");
        if (h.gpuUuids() == null) {
            throw new ApiException(422, "invalid held GPUs", List.of("gpuUuids is required: the uuids of the GPUs serving the service now ([] for none)"));
        }
        Map<String, String> nodeOfGpu = new HashMap<>();
        nodes.planned().forEach(n -> n.gpus().forEach(g -> nodeOfGpu.put(g.uuid(), n.name())));
        if (caller.node() != null) requireOwnGpus(h.gpuUuids(), nodeOfGpu);
        List<String> problems = new ArrayList<>();
        for (int i = 0; i < h.gpuUuids().size(); i++) {
            String uuid = h.gpuUuids().get(i);
            if (!nodeOfGpu.containsKey(uuid)) problems.add("gpuUuids[" + i + "]: no GPU " + Limits.quote(uuid) + " on a node in the plan (GET /api/v1/nodes lists them)");
        }
        if (new HashSet<>(h.gpuUuids()).size() != h.gpuUuids().size()) problems.add("gpuUuids: a GPU is listed twice");
        if (!problems.isEmpty()) throw new ApiException(422, "invalid held GPUs", problems);
        List<String> held = new ArrayList<>(h.gpuUuids());
        if (caller.node() != null) row.heldOn().stream().filter(uuid -> !caller.node().equals(nodeOfGpu.get(uuid))).forEach(held::add);
        services.setHeld(name, held);
        planner.requestPlan();
        return get(name);
    }

    /** A 403 naming the first GPU that is not on the node credential's node, before anything is written. */
    private void requireOwnGpus(List<String> uuids, Map<String, String> nodeOfGpu) {
        Set<String> own = new HashSet<>();
        nodes.find(caller.node()).ifPresent(n -> n.gpus().forEach(g -> own.add(g.uuid())));
        for (int i = 0; i < uuids.size(); i++) {
            String uuid = uuids.get(i);
            if (own.contains(uuid)) continue;
            String where = nodeOfGpu.containsKey(uuid) ? "is on node " + nodeOfGpu.get(uuid) : "is not on node " + caller.node();
            throw new ApiException(403, "gpuUuids[" + i + "]: GPU " + Limits.quote(uuid) + " " + where + "; this credential is node " + caller.node()
                    + "'s, which reports only what the service holds on its own GPUs");
        }
    }

    private InferenceStore.Row find(String name) {
        return services.find(name).orElseThrow(() -> new ApiException(404, "no inference service named " + Limits.quote(name)));
    }

    private ServiceView view(InferenceStore.Row row) {
        InferenceService s = row.service();
        InferenceStore.Demand d = services.demand(s.name());
        InferenceStore.Recent recent = services.recent(s.name(), services.stepsPerDay());
        return new ServiceView(s.name(), s.team(), s.weightPerGpuHour(), s.swapCapGpus(), row.servedBy(), row.heldGpus(), d.observedSteps(), d.last(),
                d.forecaster().forecast(settings.horizonSteps()), row.heldOn(), recent.gpus(), recent.lastReportedAt(), settings.stepSeconds());
    }
}
