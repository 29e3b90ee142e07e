package dev.horizon.api.scheduler;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/** An SSL context that trusts exactly the CA certificates of one PEM file (HORIZON_CA), as curl's --cacert does. */
public final class TrustedCa {
    private TrustedCa() {
    }

    public static SSLContext sslContext(Path pem) {
        try (InputStream in = Files.newInputStream(pem)) {
            KeyStore trust = KeyStore.getInstance("PKCS12");
            trust.load(null, null);
            int i = 0;
            for (Certificate c : CertificateFactory.getInstance("X.509").generateCertificates(in)) trust.setCertificateEntry("ca-" + i++, c);
            if (i == 0) throw new IllegalArgumentException("HORIZON_CA: " + pem + " holds no PEM certificate");
            TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            tmf.init(trust);
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(null, tmf.getTrustManagers(), null);
            return context;
        } catch (IOException | GeneralSecurityException e) {
            throw new IllegalArgumentException("HORIZON_CA: cannot read the CA certificate " + pem + " (" + e.getMessage() + ")", e);
        }
    }
}
