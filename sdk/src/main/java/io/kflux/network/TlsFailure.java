package io.kflux.network;

import java.security.cert.CertPathValidatorException;
import java.security.cert.Certificate;
import java.security.cert.CertificateExpiredException;
import java.security.cert.CertificateNotYetValidException;
import java.security.cert.X509Certificate;
import java.util.List;
import javax.net.ssl.SSLException;

/**
 * What a failed TLS handshake's {@link SSLException} means, in words: the JDK says "validity check failed" for both
 * an expired and a not-yet-valid certificate, with the reason only in a cause; this names which certificate
 * (subject) and when it stops or starts being valid. Certificates are public; nothing of a key is quoted.
 */
final class TlsFailure {
    private TlsFailure() {
    }

    /** The reason to put in an {@code SslAuthenticationException} message. */
    static String describe(SSLException e) {
        X509Certificate failed = null;
        for (Throwable t = e; t != null && t.getCause() != t; t = t.getCause()) {
            if (t instanceof CertPathValidatorException v && v.getCertPath() != null) {
                List<? extends Certificate> path = v.getCertPath().getCertificates();
                if (v.getIndex() >= 0 && v.getIndex() < path.size() && path.get(v.getIndex()) instanceof X509Certificate x) {
                    failed = x;
                }
            }
            if (t instanceof CertificateExpiredException) {
                return (failed == null ? "a certificate of the broker's chain has expired (" + t.getMessage() + ")"
                        : "the broker's chain holds certificate " + failed.getSubjectX500Principal().getName()
                        + ", which expired at " + failed.getNotAfter().toInstant()) + "; " + e.getMessage();
            }
            if (t instanceof CertificateNotYetValidException) {
                return (failed == null ? "a certificate of the broker's chain is not valid yet (" + t.getMessage() + ")"
                        : "the broker's chain holds certificate " + failed.getSubjectX500Principal().getName()
                        + ", which is not valid before " + failed.getNotBefore().toInstant()) + "; " + e.getMessage();
            }
        }
        return e.getMessage();
    }
}
