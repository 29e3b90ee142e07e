package dev.horizon.service.security;

import dev.horizon.service.web.QueryParams;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerResponseContext;
import jakarta.ws.rs.core.MediaType;
import java.util.List;
import java.util.Set;
import org.jboss.resteasy.reactive.server.ServerResponseFilter;

/**
 * GET /api/v1/audit (admins): the audit log, newest first, {@code limit} entries (100, at most 1000) older than entry
 * {@code before}. Every change an admin token makes through the API that succeeds is recorded by the filter below, so a
 * new admin endpoint is audited without doing anything; only the work itself is left out (submitting a job, reporting
 * inference demand), which the jobs and services keep.
 */
@Path("/api/v1/audit")
@Produces(MediaType.APPLICATION_JSON)
public class AuditResource {
    private static final int MAX_LIMIT = 1000;
    private static final Set<String> CHANGES = Set.of("POST", "PUT", "PATCH", "DELETE");

    @Inject
    Caller caller;
    @Inject
    AuditLog audit;

    @GET
    public List<AuditLog.Entry> list(@QueryParam("limit") String limit, @QueryParam("before") String before) {
        caller.requireAdmin("reading the audit log");
        return audit.list(QueryParams.number("limit", limit, 100, 1, MAX_LIMIT), before == null ? null
                : (long) QueryParams.number("before", before, 0, 1, Integer.MAX_VALUE));
    }

    /** Records each successful change made with an admin token: who (the token), what (method, path, detail), when. */
    @ServerResponseFilter
    public void record(ContainerRequestContext request, ContainerResponseContext response) {
        if (!CHANGES.contains(request.getMethod()) || response.getStatus() >= 400) return;
        String path = request.getUriInfo().getPath();
        if (!path.startsWith("/api/") || isWork(request.getMethod(), path)) return;
        Tokens.Grant grant;
        try {
            grant = caller.grant();
        } catch (RuntimeException e) {
            return;
        }
        if (grant == null || grant.role() != Role.ADMIN) return;
        String location = response.getHeaderString("Location");
        String detail = caller.auditDetail() != null ? caller.auditDetail() : location;
        audit.record(grant, request.getMethod(), path, response.getStatus(), detail);
    }

    private static boolean isWork(String method, String path) {
        return method.equals("POST") && (path.equals("/api/v1/jobs") || path.endsWith("/demand"));
    }
}
