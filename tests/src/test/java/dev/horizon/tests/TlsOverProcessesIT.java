package dev.horizon.tests;

import static dev.horizon.tests.Horizon.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.databind.JsonNode;
import io.grpc.Status;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * TLS end to end over the packaged processes, with certificates made at test time: the control plane serves REST and the
 * agents' gRPC on one HTTPS port and nothing in plaintext there; an agent given the CA (--ca) enrolls over TLS; a client
 * that trusts another CA is refused the handshake.
 */
class TlsOverProcessesIT extends OverProcesses {
    private static final String ADMIN = "tls-it-admin";

    @Test
    void anAgentRegistersOverTlsAndPlaintextOrAnotherCaIsRefused() throws Exception {
        TestCertificates certs = TestCertificates.make(dir, "horizon");
        TestCertificates other = TestCertificates.make(dir, "other");
        int port = Horizon.freePort();
        processes.add(Horizon.controlPlane(dir, port, ADMIN, "-Dhorizon.tls.cert=" + certs.cert(), "-Dhorizon.tls.key=" + certs.key()));
        await("the TLS control plane's readiness", 90, dir, new Horizon.Rest(port, ADMIN)::ready, Boolean::booleanValue);

        HttpClient https = HttpClient.newBuilder().sslContext(certs.trustingCa()).connectTimeout(Duration.ofSeconds(30)).build();
        String enrollment = Horizon.JSON.readTree(send(https, "https", port, "POST", "/api/v1/tokens", "{\"role\":\"agent\"}", 201)).path("token").asText();

        processes.add(Horizon.agent(dir, "tls-node", Horizon.freePort(), port, enrollment, "-Dhorizon.agent.control-plane-ca=" + certs.ca()));
        JsonNode node = await("the agent enrolling over TLS", 90, dir,
                () -> Horizon.JSON.readTree(send(https, "https", port, "GET", "/api/v1/nodes/tls-node", null, 200)), n -> n.path("gpus").size() == 8);
        assertEquals("agent", node.path("source").asText());

        HttpClient plain = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(30)).build();
        assertThrows(IOException.class, () -> send(plain, "http", port, "GET", "/api/v1/nodes", null, 200), "no plaintext on the API port");
        HttpClient wrongCa = HttpClient.newBuilder().sslContext(other.trustingCa()).connectTimeout(Duration.ofSeconds(30)).build();
        assertThrows(javax.net.ssl.SSLHandshakeException.class, () -> send(wrongCa, "https", port, "GET", "/api/v1/nodes", null, 200));
        try (AgentWire wrong = AgentWire.tls(port, other.ca()); AgentWire plaintext = AgentWire.plaintext(port)) {
            assertEquals(Status.Code.UNAVAILABLE, AgentWire.code(() -> wrong.as(enrollment).register(AgentWire.host("mallory", 1))),
                    "gRPC with a CA that did not sign the certificate");
            assertEquals(Status.Code.UNAVAILABLE, AgentWire.code(() -> plaintext.as(enrollment).register(AgentWire.host("mallory", 1))),
                    "gRPC in plaintext");
        }
        send(https, "https", port, "GET", "/q/metrics", null, 404);
    }

    private static String send(HttpClient client, String scheme, int port, String method, String path, String body, int expected) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(scheme + "://127.0.0.1:" + port + path)).timeout(Duration.ofSeconds(20))
                .header("Authorization", "Bearer " + ADMIN).header("Content-Type", "application/json")
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        HttpResponse<String> r = client.send(b.build(), HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != expected) throw new AssertionError(method + " " + path + " answered " + r.statusCode() + ": " + r.body());
        return r.body();
    }
}
