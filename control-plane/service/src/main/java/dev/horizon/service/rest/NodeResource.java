package dev.horizon.service.rest;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonUnwrapped;
import dev.horizon.api.integration.GpuMode;
import dev.horizon.service.clock.ServiceClock;
import dev.horizon.service.leadership.LeaderForwarding;
import dev.horizon.service.leadership.Leadership;
import dev.horizon.service.nodes.CommandQueue;
import dev.horizon.service.nodes.CommandRequest;
import dev.horizon.service.nodes.CommandStore;
import dev.horizon.service.nodes.DrainRequest;
import dev.horizon.service.nodes.MemoryViolations;
import dev.horizon.service.nodes.Node;
import dev.horizon.service.nodes.NodeCommand;
import dev.horizon.service.nodes.NodePlatform;
import dev.horizon.service.nodes.NodeStore;
import dev.horizon.service.plans.PlanRequests;
import dev.horizon.service.security.Caller;
import dev.horizon.service.web.ApiException;
import jakarta.inject.Inject;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.UriInfo;
import jakarta.ws.rs.core.Response;
import java.net.URI;
import java.util.List;

/** Nodes and their GPUs with MIG layout, health and the latest telemetry; commands for their agents. */
@Path("/api/v1/nodes")
@Produces(MediaType.APPLICATION_JSON)
public class NodeResource {
    /**
     * A node with its agent's newest commands, pending and answered, and the newest processes its memory guard caught; on
     * Kubernetes its GPU mode ("dra" or "device-plugin") and, in dra mode, the last check of the DRA driver's
     * ResourceSlices against its agent.
     */
    public record NodeDetail(@JsonUnwrapped Node node, List<NodeCommand> commands, List<MemoryViolations.Violation> memoryViolations,
                             @JsonInclude(JsonInclude.Include.NON_NULL) GpuMode gpuMode,
                             @JsonInclude(JsonInclude.Include.NON_NULL) NodePlatform.ResourceSliceCheck resourceSlices) {
    }

    @Inject
    NodeStore nodes;
    @Inject
    CommandStore commands;
    @Inject
    CommandQueue queue;
    @Inject
    MemoryViolations violations;
    @Inject
    Caller caller;
    @Inject
    Leadership leadership;
    @Inject
    LeaderForwarding forwarding;
    @Inject
    NodePlatform platform;
    @Inject
    PlanRequests planner;
    @Inject
    ServiceClock clock;

    /** Every node; to others than admins without the GPUs' processes (other teams' work). */
    @GET
    public List<Node> list() {
        return nodes.all().stream().map(platform::asSeen).map(this::visible).toList();
    }

    /** A node; admins also see its agent's commands, the processes on its GPUs and those its memory guard caught. */
    @GET
    @Path("/{name}")
    public NodeDetail get(@PathParam("name") String name) {
        Node node = find(name);
        if (!caller.seesAllTeams()) return new NodeDetail(node.withoutProcesses(), List.of(), List.of(), platform.mode(name).orElse(null), null);
        return new NodeDetail(node, commands.recent(name), violations.ofNode(name), platform.mode(name).orElse(null),
                platform.resourceSlices(name).orElse(null));
    }

    private Node visible(Node node) {
        return caller.seesAllTeams() ? node : node.withoutProcesses();
    }

    /**
     * Queues a command for the node's agent; it is streamed at once if the agent is connected, else when it connects.
     * Only the leader queues commands: a follower passes the request on to it.
     */
    @POST
    @Path("/{name}/commands")
    @Consumes(MediaType.APPLICATION_JSON)
    public Response command(@PathParam("name") String name, String body, @Context UriInfo uri, @Context HttpHeaders headers) {
        caller.requireAdmin("sending commands to agents");
        if (!leadership.leading()) return forwarding.toLeader("sending commands to agents", "POST", uri, headers, body);
        Node node = find(name);
        CommandRequest request = JsonBodies.read(body, CommandRequest.class, CommandRequest.EXAMPLE);
        List<String> problems = request.problems(node);
        if (!problems.isEmpty()) throw new ApiException(400, "invalid command", problems);
        if (!Node.FROM_AGENT.equals(node.source())) {
            throw new ApiException(409, "node " + name + " was declared in horizon.nodes and has no agent to run commands; start its agent");
        }
        // the agent waits for its GPUs' processes to end: new work landing there meanwhile would keep it waiting
        if (request.drain() != null) drainFor(name, request.drain().reason() == null || request.drain().reason().isBlank()
                ? "its agent was sent a drain command" : request.drain().reason());
        NodeCommand command = queue.queue(name, request);
        return Response.created(URI.create("/api/v1/nodes/" + name)).entity(command).build();
    }

    /**
     * Drains a node (Slurm's DRAIN, kubectl drain): the planner gives it no new work and moves the work running there
     * elsewhere as each job's contract allows (inside its minimum runtime, work stays); reason is shown in the node view.
     * Draining a drained node gives it the newer reason. Any replica answers: every planner reads it from the store.
     */
    @PUT
    @Path("/{name}/drain")
    @Consumes(MediaType.APPLICATION_JSON)
    public Node drain(@PathParam("name") String name, String body) {
        caller.requireAdmin("draining nodes");
        find(name);
        DrainRequest request = JsonBodies.read(body, DrainRequest.class, DrainRequest.EXAMPLE);
        List<String> problems = request.problems();
        if (!problems.isEmpty()) throw new ApiException(400, "invalid drain", problems);
        drainFor(name, request.reason());
        return find(name);
    }

    private void drainFor(String name, String reason) {
        nodes.drain(name, reason, clock.millis());
        caller.noteForAudit("drained node " + name + " (" + reason + "): no new work lands there, and work leaves as its contract allows");
        planner.requestPlan();
    }

    /** Undrains a node: the planner places work on it again. 409 when it is not drained. */
    @DELETE
    @Path("/{name}/drain")
    public Node undrain(@PathParam("name") String name) {
        caller.requireAdmin("undraining nodes");
        find(name);
        if (!nodes.undrain(name)) {
            if (platform.cordoned(name)) throw new ApiException(409, "node " + name + " is " + NodePlatform.CORDONED);
            throw new ApiException(409, "node " + name + " is not drained; PUT /api/v1/nodes/" + name + "/drain drains it");
        }
        caller.noteForAudit("undrained node " + name + ": the planner places work on it again");
        planner.requestPlan();
        return find(name);
    }

    /**
     * Approves a node whose enrollment token requires approval: from now on the planner places work on it. 409 when it
     * is not waiting (approved before, or enrolled by a token that needs no approval).
     */
    @POST
    @Path("/{name}/approval")
    public Node approve(@PathParam("name") String name) {
        caller.requireAdmin("approving nodes");
        find(name);
        if (!nodes.approve(name)) throw new ApiException(409, "node " + name + " is not waiting for approval; it is schedulable already");
        caller.noteForAudit("approved node " + name + ": the planner places work on it from now on");
        planner.requestPlan();
        return find(name);
    }

    private Node find(String name) {
        return nodes.find(name).map(platform::asSeen).orElseThrow(() -> ApiException.notFound("node", name));
    }
}
