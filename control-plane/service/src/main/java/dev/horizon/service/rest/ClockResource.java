package dev.horizon.service.rest;

import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import dev.horizon.service.clock.ServiceClock;
import dev.horizon.service.security.Caller;
import dev.horizon.service.web.ApiException;
import dev.horizon.service.web.ApiTime;
import jakarta.inject.Inject;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.util.List;

/**
 * The service's clock as the API shows it (the web view's "simulated time"), and, on a virtual clock, the one way a
 * driver outside the process moves it: {@code ./horizon demo} replays a day at speed by moving it forward and asking
 * for plans ({@code POST /api/v1/plan}). Time never goes back.
 */
@Path("/api/v1/clock")
@Produces(MediaType.APPLICATION_JSON)
@Consumes(MediaType.APPLICATION_JSON)
public class ClockResource {
    private static final String EXAMPLE = "{\"to\":\"2026-12-01T00:00:00Z\"}";

    /** now: the time (ISO-8601 UTC); virtual: whether only a driver moves it (horizon.clock=virtual). */
    public record ClockView(@JsonSerialize(using = ApiTime.Millis.class) long now, boolean virtual) {
    }

    /** to: the time (ISO-8601 UTC) to move the virtual clock to. */
    public record Advance(String to) {
    }

    @Inject
    ServiceClock clock;
    @Inject
    Caller caller;

    @GET
    public ClockView now() {
        return new ClockView(clock.millis(), clock.virtual());
    }

    @POST
    public ClockView advance(String body) {
        caller.requireAdmin("moving the clock");
        Advance a = JsonBodies.read(body, Advance.class, EXAMPLE);
        if (a.to() == null) throw new ApiException(400, "invalid body", List.of("to is required: the time to move the clock to, for example " + EXAMPLE));
        if (!clock.virtual()) {
            throw new ApiException(409, "this control plane's clock follows wall time; start it with -Dhorizon.clock=virtual to move it (./horizon demo does)");
        }
        long to = ApiTime.parseSeconds("to", a.to()) * 1000;
        long before = clock.millis();
        if (to < before) {
            throw new ApiException(409, "the clock goes forward only: it reads " + ApiTime.ofMillis(before) + ", and to is " + a.to() + "; ask for a time at or after it");
        }
        clock.advanceTo(to);
        return now();
    }
}
