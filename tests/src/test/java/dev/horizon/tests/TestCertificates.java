package dev.horizon.tests;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.util.Base64;
import java.util.List;
import dev.horizon.api.scheduler.TrustedCa;
import javax.net.ssl.SSLContext;

/**
 * Certificates made at test time with the JDK's keytool: a CA, and a server certificate it signs for localhost and
 * 127.0.0.1, written as the PEM files --tls-cert, --tls-key and --ca take. Nothing is checked in.
 */
record TestCertificates(Path ca, Path cert, Path key) {
    private static final String PASSWORD = "test-only";
    private static final String KEYTOOL = Path.of(System.getProperty("java.home"), "bin", "keytool").toString();

    static TestCertificates make(Path dir, String name) throws Exception {
        Path caStore = dir.resolve(name + "-ca.p12");
        Path serverStore = dir.resolve(name + "-server.p12");
        Path csr = dir.resolve(name + "-server.csr");
        TestCertificates files = new TestCertificates(dir.resolve(name + "-ca.pem"), dir.resolve(name + "-server.pem"), dir.resolve(name + "-server.key"));
        keytool("-genkeypair", "-alias", "ca", "-keyalg", "RSA", "-keysize", "2048", "-dname", "CN=Horizon test CA " + name, "-ext", "bc:c",
                "-validity", "2", "-keystore", caStore.toString());
        keytool("-exportcert", "-rfc", "-alias", "ca", "-file", files.ca().toString(), "-keystore", caStore.toString());
        keytool("-genkeypair", "-alias", "server", "-keyalg", "RSA", "-keysize", "2048", "-dname", "CN=localhost", "-validity", "2",
                "-keystore", serverStore.toString());
        keytool("-certreq", "-alias", "server", "-file", csr.toString(), "-keystore", serverStore.toString());
        keytool("-gencert", "-rfc", "-alias", "ca", "-infile", csr.toString(), "-outfile", files.cert().toString(), "-validity", "2",
                "-ext", "SAN=dns:localhost,ip:127.0.0.1", "-ext", "EKU=serverAuth", "-keystore", caStore.toString());
        KeyStore server = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(serverStore)) {
            server.load(in, PASSWORD.toCharArray());
        }
        PrivateKey key = (PrivateKey) server.getKey("server", PASSWORD.toCharArray());
        Files.writeString(files.key(), "-----BEGIN PRIVATE KEY-----\n" + Base64.getMimeEncoder(64, "\n".getBytes()).encodeToString(key.getEncoded())
                + "\n-----END PRIVATE KEY-----\n");
        return files;
    }

    /** An SSL context that trusts only this CA, as the adapters' HORIZON_CA does. */
    SSLContext trustingCa() {
        return TrustedCa.sslContext(ca);
    }

    private static void keytool(String... args) throws IOException, InterruptedException {
        // the command (-genkeypair, ...) first, as keytool wants it
        List<String> command = new java.util.ArrayList<>(List.of(KEYTOOL, args[0], "-noprompt", "-storetype", "PKCS12", "-storepass", PASSWORD));
        command.addAll(List.of(args).subList(1, args.length));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        if (p.waitFor() != 0) throw new AssertionError("keytool " + String.join(" ", args) + " failed: " + out);
    }
}
