package dev.horizon.service.web;

import dev.horizon.api.InvalidJobException;
import dev.horizon.service.store.StoreException;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.Response;
import org.jboss.logging.Logger;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;

/** Turns every refusal into {@link ErrorBody} JSON, so clients never have to parse HTML or plain text. */
public class ErrorMappers {
    private static final Logger LOG = Logger.getLogger(ErrorMappers.class);

    @ServerExceptionMapper
    public Response api(ApiException e) {
        return new ErrorBody(e.status(), e.getMessage(), e.problems()).response();
    }

    @ServerExceptionMapper
    public Response invalidJob(InvalidJobException e) {
        return new ErrorBody(400, "invalid job", e.problems()).response();
    }

    /** 503 only when the store is really down; a value it refuses is the request's fault, and retrying would not help. */
    @ServerExceptionMapper
    public Response store(StoreException e) {
        if (e.refusedData()) {
            LOG.warnf("the store refused a value that passed the API's limits (a missing check): %s", e.getCause().getMessage());
            return new ErrorBody(422, "a value does not fit the store", java.util.List.of("shorten the request's longest text fields; "
                    + "see the documented limits (docs/rest-api.md: input limits and errors)")).response();
        }
        LOG.error("store failure", e);
        return new ErrorBody(503, "the store is not available; retry shortly", java.util.List.of()).response();
    }

    @ServerExceptionMapper
    public Response web(WebApplicationException e) {
        int status = e.getResponse().getStatus();
        String message = switch (status) {
            case 404 -> "no such resource; the API lives under /api/v1 (see /q/openapi)";
            case 405 -> "method not allowed on this resource (see /q/openapi)";
            case 415 -> "send the body as JSON with Content-Type: application/json";
            case 406 -> "this API answers application/json";
            default -> e.getMessage();
        };
        return new ErrorBody(status, message, java.util.List.of()).response();
    }
}
