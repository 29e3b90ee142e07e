package dev.horizon.agent;

import io.smallrye.config.common.MapBackedConfigSource;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * TLS to the control plane in two settings instead of Quarkus's per-client switches: horizon.agent.control-plane-ca
 * (HORIZON_AGENT_CONTROL_PLANE_CA; the launcher's --ca), the PEM file of the CA that signed the control plane's
 * certificate, which the agent verifies it against (host name included); or horizon.agent.control-plane-tls=true
 * (HORIZON_AGENT_CONTROL_PLANE_TLS) for a certificate the JVM's own trust store accepts (control-plane-tls=false keeps
 * plaintext even with a CA set, as the chart renders it while TLS is off). The gRPC client the agent
 * builds is then TLS-only: it never falls back to plaintext. Its ordinal (275) is above application.properties and
 * below explicit environment variables and system properties.
 */
public class ControlPlaneTls extends MapBackedConfigSource {
    private static final String CLIENT = "quarkus.grpc.clients.control-plane.";

    public ControlPlaneTls() {
        super("horizon-agent-control-plane-tls", properties(setting("horizon.agent.control-plane-ca", "HORIZON_AGENT_CONTROL_PLANE_CA"),
                setting("horizon.agent.control-plane-tls", "HORIZON_AGENT_CONTROL_PLANE_TLS")), 275);
    }

    static Map<String, String> properties(String ca, String tls) {
        Map<String, String> properties = new HashMap<>();
        if ("false".equalsIgnoreCase(tls)) return properties;
        if (ca != null) {
            if (!Files.isReadable(Path.of(ca))) {
                throw new IllegalArgumentException("horizon.agent.control-plane-ca (--ca): cannot read '" + ca
                        + "'; give the PEM file of the CA that signed the control plane's certificate");
            }
            properties.put(CLIENT + "ssl.trust-store", ca);
        }
        if (ca != null || "true".equalsIgnoreCase(tls)) {
            properties.put(CLIENT + "plain-text", "false");
            properties.put(CLIENT + "negotiation-type", "TLS");
        }
        return properties;
    }

    private static String setting(String property, String env) {
        String v = System.getProperty(property, System.getenv(env));
        return v == null || v.isBlank() ? null : v.strip();
    }
}
