package dev.horizon.service.security;

import io.smallrye.config.common.MapBackedConfigSource;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * TLS for the API port in two settings instead of the Quarkus TLS registry's keys: HORIZON_TLS_CERT and HORIZON_TLS_KEY
 * (or horizon.tls.cert / horizon.tls.key; the launcher's --tls-cert / --tls-key), PEM files of the certificate (chain)
 * and its private key; or HORIZON_TLS_ENABLED=true with HORIZON_TLS_DIR, a folder holding tls.crt and tls.key (a mounted
 * kubernetes.io/tls Secret, as the chart does it). REST, the web view and the agents' gRPC then share one HTTPS port, the one quarkus.http.port
 * names, and nothing listens in plaintext there. The management port (health, metrics that name teams, OpenAPI) serves
 * HTTPS with the same certificate, unless HORIZON_TLS_MANAGEMENT=false (the chart's: the kubelet's probes and the
 * Prometheus annotations it sets speak plain HTTP, and its templates cannot switch their scheme). Its ordinal (275) is above application.properties and below explicit environment variables and system
 * properties.
 */
public class TlsSelection extends MapBackedConfigSource {
    public TlsSelection() {
        super("horizon-tls-selection", properties(fromDir("tls.crt", setting("horizon.tls.cert", "HORIZON_TLS_CERT")),
                fromDir("tls.key", setting("horizon.tls.key", "HORIZON_TLS_KEY")),
                !"false".equalsIgnoreCase(setting("horizon.tls.management", "HORIZON_TLS_MANAGEMENT"))), 275);
    }

    /** given, or else DIR/file when TLS is enabled by HORIZON_TLS_ENABLED with HORIZON_TLS_DIR. */
    private static String fromDir(String file, String given) {
        String dir = setting("horizon.tls.dir", "HORIZON_TLS_DIR");
        if (given != null || dir == null || !"true".equalsIgnoreCase(setting("horizon.tls.enabled", "HORIZON_TLS_ENABLED"))) return given;
        return Path.of(dir, file).toString();
    }

    static Map<String, String> properties(String cert, String key, boolean management) {
        Map<String, String> properties = new HashMap<>();
        if (cert == null && key == null) return properties;
        if (cert == null || key == null) {
            throw new IllegalArgumentException("TLS needs both HORIZON_TLS_CERT and HORIZON_TLS_KEY (--tls-cert and --tls-key); only "
                    + (cert == null ? "the key" : "the certificate") + " is set");
        }
        for (String file : new String[] {cert, key}) {
            if (!Files.isReadable(Path.of(file))) {
                throw new IllegalArgumentException("TLS: cannot read '" + file + "'; HORIZON_TLS_CERT and HORIZON_TLS_KEY are PEM files");
            }
        }
        // one named TLS configuration for the API port and the management port alike
        properties.put("quarkus.tls.api.key-store.pem.0.cert", cert);
        properties.put("quarkus.tls.api.key-store.pem.0.key", key);
        properties.put("quarkus.http.tls-configuration-name", "api");
        if (management) properties.put("quarkus.management.tls-configuration-name", "api");
        properties.put("quarkus.http.ssl-port", "${quarkus.http.port}");
        properties.put("quarkus.http.insecure-requests", "disabled");
        return properties;
    }

    private static String setting(String property, String env) {
        String v = System.getProperty(property, System.getenv(env));
        return v == null || v.isBlank() ? null : v.strip();
    }
}
