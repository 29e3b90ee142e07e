package dev.horizon.service.web;

import static dev.horizon.service.Api.ADMIN;
import static dev.horizon.service.Api.as;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A slow or hostile client cannot hold the API port: 100 connections that sent half a request (headers cut short, or
 * headers and part of a body) are closed within the idle timeout, while a normal client keeps being served.
 */
@QuarkusTest
@TestProfile(HalfOpenConnectionsTest.ShortTimeouts.class)
class HalfOpenConnectionsTest {
    static final int IDLE_SECONDS = 2;

    /**
     * Short timeouts keep the listener tests fast: a 2 s idle timeout (production's is 60 s), and failed tokens slowed
     * after the second in a minute (production's: after 30), never refused, so no test here locks out the others.
     */
    public static class ShortTimeouts implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("quarkus.http.idle-timeout", IDLE_SECONDS + "s", "quarkus.datasource.jdbc.url", "jdbc:h2:mem:listeners;DB_CLOSE_DELAY=-1",
                    "horizon.auth.free-failures-per-minute", "2", "horizon.auth.failure-delay", "400ms",
                    "horizon.auth.refuse-after-failures-per-minute", "100000");
        }
    }

    @TestHTTPResource("/")
    URL api;

    @Test
    void halfSentRequestsAreClosedWithinTheIdleTimeoutWhileANormalClientIsServed() throws Exception {
        as(ADMIN).get("/api/v1/jobs?limit=1").then().statusCode(200);
        long opened = System.nanoTime();
        List<Socket> halfOpen = new ArrayList<>();
        try {
            for (int i = 0; i < 100; i++) {
                Socket s = new Socket(api.getHost(), api.getPort());
                String part = i % 2 == 0 ? "POST /api/v1/jobs HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + ADMIN + "\r\nContent-Le"
                        : "POST /api/v1/jobs HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nAuthorization: Bearer " + ADMIN
                                + "\r\nContent-Length: 500\r\n\r\n{\"name\":\"slow\"";
                s.getOutputStream().write(part.getBytes(StandardCharsets.US_ASCII));
                s.getOutputStream().flush();
                halfOpen.add(s);
            }
            // served while all hundred are held open, each answer in well under the idle timeout
            for (int i = 0; i < 5; i++) {
                long asked = System.nanoTime();
                as(ADMIN).get("/api/v1/jobs?limit=1").then().statusCode(200);
                assertTrue(System.nanoTime() - asked < 1_000_000_000L, "a normal request waited on the half-open connections");
                Thread.sleep(200);
            }
            long deadline = opened + (IDLE_SECONDS + 3) * 1_000_000_000L;
            int closed = 0;
            for (Socket s : halfOpen) if (closedBy(s, deadline)) closed++;
            assertEquals(100, closed, "every half-sent request is closed within the idle timeout and 3 s");
            assertTrue(System.nanoTime() - opened >= IDLE_SECONDS * 1_000_000_000L - 500_000_000L, "not closed before the idle timeout ran");
            as(ADMIN).get("/api/v1/jobs?limit=1").then().statusCode(200);
        } finally {
            for (Socket s : halfOpen) s.close();
        }
    }

    /** True when the server closed the connection (end of stream, after any answer it sent) before the deadline. */
    private static boolean closedBy(Socket s, long deadlineNanos) throws IOException {
        InputStream in = s.getInputStream();
        byte[] buffer = new byte[4096];
        while (true) {
            long left = (deadlineNanos - System.nanoTime()) / 1_000_000;
            if (left <= 0) return false;
            s.setSoTimeout((int) left);
            try {
                if (in.read(buffer) < 0) return true;
            } catch (SocketTimeoutException e) {
                return false;
            } catch (IOException reset) {
                return true;
            }
        }
    }
}
