package dev.horizon.service.rest;

import dev.horizon.service.security.AuditLog;
import dev.horizon.service.security.Caller;
import dev.horizon.service.security.Role;
import dev.horizon.service.security.Tokens;
import dev.horizon.service.web.ErrorBody;
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

    /**
     * Records each successful change made with an admin token, every cancel, hold and release of a job whoever made it
     * (a hold's detail is what the answer said), and every change
     * refused to a known token (403, or 409 such as revoking the last admin token): who (the token), what (method, path,
     * detail or the refusal), when.
     */
    @ServerResponseFilter
    public void record(ContainerRequestContext request, ContainerResponseContext response) {
        if (!CHANGES.contains(request.getMethod())) return;
        String path = request.getUriInfo().getPath();
        if (!path.startsWith("/api/")) return;
        Tokens.Grant grant;
        try {
            grant = caller.grant();
        } catch (RuntimeException e) {
            return;
        }
        if (grant == null) return;
        int status = response.getStatus();
        boolean refused = status == 403 || status == 409;
        boolean cancel = request.getMethod().equals("DELETE") && path.startsWith("/api/v1/jobs/") && status < 400;
        // a hold keeps a job from its GPUs as a cancel does, so it is kept whoever made it, and its release too
        boolean hold = path.startsWith("/api/v1/jobs/") && (path.endsWith("/hold") || path.endsWith("/release")) && status < 400;
        boolean adminChange = grant.role() == Role.ADMIN && status < 400 && !isWork(request.getMethod(), path);
        if (!refused && !cancel && !hold && !adminChange) return;
        String detail = refused && response.getEntity() instanceof ErrorBody e ? "refused: " + e.error()
                : caller.auditDetail() != null ? caller.auditDetail() : cancel ? "cancelled job " + path.substring("/api/v1/jobs/".length())
                        : response.getHeaderString("Location");
        audit.record(grant, request.getMethod(), path, status, detail);
    }

    private static boolean isWork(String method, String path) {
        return method.equals("POST") && (path.equals("/api/v1/jobs") || path.endsWith("/demand"));
    }
}
