package dev.horizon.service.rest;

import dev.horizon.service.mig.MigPolicyBody;
import dev.horizon.service.mig.MigPolicyStore;
import dev.horizon.service.security.Caller;
import dev.horizon.service.web.ApiException;
import jakarta.inject.Inject;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.net.URI;
import java.util.List;

/** Admins' MIG policies, one per node pool; any token may read them so submitters can see which profiles they may ask for. */
@Path("/api/v1/mig-policies")
@Produces(MediaType.APPLICATION_JSON)
public class MigPolicyResource {
    private static final String POOL_PATTERN = "[a-z0-9][a-z0-9-]{0,62}";

    @Inject
    Caller caller;
    @Inject
    MigPolicyStore policies;

    @GET
    public List<MigPolicyBody.Stored> list() {
        return policies.all();
    }

    @GET
    @Path("/{pool}")
    public MigPolicyBody.Stored get(@PathParam("pool") String pool) {
        return policies.find(pool).orElseThrow(() -> ApiException.notFound("MIG policy for pool", pool));
    }

    /** Creates (201) or replaces (200) the pool's policy. */
    @PUT
    @Path("/{pool}")
    @Consumes(MediaType.APPLICATION_JSON)
    public Response put(@PathParam("pool") String pool, String body) {
        caller.requireAdmin("setting MIG policies");
        if (!pool.matches(POOL_PATTERN)) {
            throw new ApiException(400, "invalid MIG policy", List.of("pool: lower-case letters, digits and '-', 1 to 63 characters (got " + dev.horizon.api.Limits.quote(pool) + ")"));
        }
        MigPolicyBody request = JsonBodies.read(body, MigPolicyBody.class, MigPolicyBody.EXAMPLE);
        List<String> problems = request.problems();
        if (!problems.isEmpty()) throw new ApiException(400, "invalid MIG policy", problems);
        MigPolicyBody.Stored stored = MigPolicyBody.Stored.of(request.policy(pool));
        boolean created = policies.put(stored);
        return (created ? Response.created(URI.create("/api/v1/mig-policies/" + pool)) : Response.ok()).entity(stored).build();
    }

    @DELETE
    @Path("/{pool}")
    public Response delete(@PathParam("pool") String pool) {
        caller.requireAdmin("deleting MIG policies");
        if (!policies.delete(pool)) throw ApiException.notFound("MIG policy for pool", pool);
        return Response.noContent().build();
    }
}
