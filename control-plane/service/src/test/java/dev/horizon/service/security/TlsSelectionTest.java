package dev.horizon.service.security;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** HORIZON_TLS_CERT and HORIZON_TLS_KEY become a TLS configuration of the API port only, with plaintext there switched off. */
class TlsSelectionTest {
    @TempDir
    Path dir;

    @Test
    void aCertificateAndKeyPutTheApiPortOnTlsOnly() throws Exception {
        Path cert = Files.writeString(dir.resolve("tls.crt"), "cert");
        Path key = Files.writeString(dir.resolve("tls.key"), "key");
        Map<String, String> p = TlsSelection.properties(cert.toString(), key.toString(), true);
        assertEquals(cert.toString(), p.get("quarkus.tls.api.key-store.pem.0.cert"));
        assertEquals(key.toString(), p.get("quarkus.tls.api.key-store.pem.0.key"));
        assertEquals("api", p.get("quarkus.http.tls-configuration-name"));
        assertEquals("api", p.get("quarkus.management.tls-configuration-name"), "the management port on TLS too");
        assertNull(TlsSelection.properties(cert.toString(), key.toString(), false).get("quarkus.management.tls-configuration-name"),
                "HORIZON_TLS_MANAGEMENT=false (the chart's) keeps it plain");
        assertEquals("${quarkus.http.port}", p.get("quarkus.http.ssl-port"));
        assertEquals("disabled", p.get("quarkus.http.insecure-requests"));
        assertTrue(TlsSelection.properties(null, null, true).isEmpty(), "neither set: plaintext, as the demo runs");
    }

    @Test
    void halfAConfigurationOrAnUnreadableFileIsAClearError() {
        String half = assertThrows(IllegalArgumentException.class, () -> TlsSelection.properties("/x/tls.crt", null, true)).getMessage();
        assertTrue(half.contains("needs both HORIZON_TLS_CERT and HORIZON_TLS_KEY"), half);
        String missing = assertThrows(IllegalArgumentException.class, () -> TlsSelection.properties("/nope/tls.crt", "/nope/tls.key", true)).getMessage();
        assertTrue(missing.contains("cannot read '/nope/tls.crt'"), missing);
    }
}
