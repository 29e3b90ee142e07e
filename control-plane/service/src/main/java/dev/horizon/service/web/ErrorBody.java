package dev.horizon.service.web;

import com.fasterxml.jackson.annotation.JsonInclude;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.util.List;

/** The JSON every 4xx and 5xx carries: the status, what went wrong, and the problems field by field. */
@JsonInclude(JsonInclude.Include.NON_EMPTY)
public record ErrorBody(int status, String error, List<String> problems) {
    public Response response() {
        return Response.status(status).type(MediaType.APPLICATION_JSON_TYPE).entity(this).build();
    }
}
