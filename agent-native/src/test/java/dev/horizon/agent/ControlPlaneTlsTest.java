package dev.horizon.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** --ca (horizon.agent.control-plane-ca) makes the agent's gRPC client TLS-only, verified against that CA. */
class ControlPlaneTlsTest {
    @TempDir
    Path dir;

    @Test
    void aCaMakesTheClientTlsOnlyAndFalseKeepsPlaintext() throws Exception {
        Path ca = Files.writeString(dir.resolve("ca.crt"), "pem");
        Map<String, String> tls = ControlPlaneTls.properties(ca.toString(), null);
        assertEquals(ca.toString(), tls.get("quarkus.grpc.clients.control-plane.ssl.trust-store"));
        assertEquals("false", tls.get("quarkus.grpc.clients.control-plane.plain-text"));
        assertEquals("TLS", tls.get("quarkus.grpc.clients.control-plane.negotiation-type"));
        assertEquals("false", ControlPlaneTls.properties(null, "true").get("quarkus.grpc.clients.control-plane.plain-text"), "the JVM's trust store");
        assertTrue(ControlPlaneTls.properties(ca.toString(), "false").isEmpty(), "the chart with TLS off sets a CA path and false");
        assertTrue(ControlPlaneTls.properties(null, null).isEmpty());
        String missing = assertThrows(IllegalArgumentException.class, () -> ControlPlaneTls.properties("/nope/ca.crt", null)).getMessage();
        assertTrue(missing.contains("cannot read '/nope/ca.crt'"), missing);
    }
}
