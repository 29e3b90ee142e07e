package dev.horizon.service.leadership;

import dev.horizon.service.web.ErrorBody;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * A follower's answer to a write only the leader may do (queueing agent commands): it passes the request on to the leader,
 * where the lease row says the leader answers, and relays the leader's answer, so a client behind a load balancer never
 * has to find the leader; with horizon.leader.forward-writes=false it answers 307 to the leader instead. While no replica
 * leads, or the leader does not answer, it is a 503 with Retry-After: the next leader is elected within a lease.
 */
@Singleton
public class LeaderForwarding {
    /** Marks a request one replica passed to another, so one that reaches a follower again is refused, never passed on in a loop. */
    static final String FORWARDED_BY = "Horizon-Forwarded-By";
    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    @Inject
    Leadership leadership;
    @ConfigProperty(name = "horizon.leader.forward-writes", defaultValue = "true")
    boolean forwardWrites;
    @ConfigProperty(name = "horizon.leader.lease-seconds")
    int leaseSeconds;

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(TIMEOUT).build();

    /** The leader's answer to this request (method, path and query, headers, body), as this follower got it. */
    public Response toLeader(String action, String method, UriInfo uri, HttpHeaders headers, String body) {
        Leadership.Lease lease = leadership.lease();
        if (lease.holder() == null || lease.expired() || lease.self()) {
            return unavailable(action + " is done by the leader, and no replica leads right now (an election is under way)");
        }
        if (lease.holderUrl() == null) {
            return unavailable(action + " is done by the leader " + lease.holder() + ", which has not said where it answers (a replica of an"
                    + " older version); send it to the leader yourself");
        }
        if (headers.getHeaderString(FORWARDED_BY) != null) {
            return unavailable(action + " was passed here as to the leader, but this replica (" + leadership.id() + ") follows: the leadership is moving");
        }
        URI target = URI.create(lease.holderUrl() + uri.getRequestUri().getRawPath()
                + (uri.getRequestUri().getRawQuery() == null ? "" : "?" + uri.getRequestUri().getRawQuery()));
        if (!forwardWrites) {
            return Response.temporaryRedirect(target).header(HttpHeaders.RETRY_AFTER, 0).build();
        }
        HttpRequest.Builder request = HttpRequest.newBuilder(target).timeout(TIMEOUT).header(FORWARDED_BY, leadership.id())
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        for (String name : List.of(HttpHeaders.AUTHORIZATION, HttpHeaders.CONTENT_TYPE, HttpHeaders.ACCEPT)) {
            String value = headers.getHeaderString(name);
            if (value != null) request.header(name, value);
        }
        try {
            HttpResponse<String> answer = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
            Response.ResponseBuilder relayed = Response.status(answer.statusCode()).entity(answer.body());
            for (String name : List.of(HttpHeaders.CONTENT_TYPE, HttpHeaders.LOCATION, HttpHeaders.RETRY_AFTER)) {
                answer.headers().firstValue(name).ifPresent(v -> relayed.header(name, v));
            }
            return relayed.build();
        } catch (IOException e) {
            return unavailable(action + " is done by the leader " + lease.holder() + " at " + lease.holderUrl() + ", which did not answer ("
                    + e.getMessage() + "); if it died, another replica leads within " + leaseSeconds + " s");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return unavailable(action + ": interrupted while waiting for the leader");
        }
    }

    private Response unavailable(String why) {
        return Response.fromResponse(new ErrorBody(503, why + "; retry after " + leaseSeconds + " s", List.of()).response())
                .header(HttpHeaders.RETRY_AFTER, leaseSeconds).build();
    }
}
