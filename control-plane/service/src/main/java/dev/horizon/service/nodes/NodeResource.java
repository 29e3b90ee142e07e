package dev.horizon.service.nodes;

import dev.horizon.service.web.ApiException;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.util.List;

/** Nodes and their GPUs with MIG layout, health and the latest telemetry. */
@Path("/api/v1/nodes")
@Produces(MediaType.APPLICATION_JSON)
public class NodeResource {
    @Inject
    NodeStore nodes;

    @GET
    public List<Node> list() {
        return nodes.all();
    }

    @GET
    @Path("/{name}")
    public Node get(@PathParam("name") String name) {
        return nodes.all().stream().filter(n -> n.name().equals(name)).findFirst().orElseThrow(() -> ApiException.notFound("node", name));
    }
}
