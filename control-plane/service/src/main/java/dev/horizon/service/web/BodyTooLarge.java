package dev.horizon.service.web;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.quarkus.runtime.configuration.MemorySize;
import io.vertx.ext.web.Router;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.util.List;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * A body whose Content-Length is over quarkus.http.limits.max-body-size gets a 413 with {@link ErrorBody} JSON.
 * Quarkus refuses it anyway, but with an empty body, which leaves a client guessing; this route runs just before
 * Quarkus's own check (order -2) with the same limit. A chunked body without a Content-Length still meets Quarkus's
 * empty 413 once it passes the limit.
 */
@ApplicationScoped
public class BodyTooLarge {
    private static final int BEFORE_QUARKUS_LIMIT_CHECK = -3;

    @ConfigProperty(name = "quarkus.http.limits.max-body-size", defaultValue = "10240K")
    MemorySize limit;

    void install(@Observes Router router) throws JsonProcessingException {
        long max = limit.asLongValue();
        String body = new ObjectMapper().writeValueAsString(new ErrorBody(413, "the body is larger than " + max + " bytes",
                List.of("send one job or request as a JSON object; a job's JSON is well under a kilobyte")));
        router.route().order(BEFORE_QUARKUS_LIMIT_CHECK).handler(ctx -> {
            String length = ctx.request().getHeader("Content-Length");
            if (length != null && length.matches("\\d{1,18}") && Long.parseLong(length) > max) {
                ctx.response().setStatusCode(413).putHeader("Content-Type", "application/json").putHeader("Connection", "close").end(body);
            } else {
                ctx.next();
            }
        });
    }
}
