package io.kflux.internal.config;

/** {@code security.protocol}: how connections to brokers are secured. */
public enum SecurityProtocol {
    /** No TLS, no authentication. */
    PLAINTEXT(false, false),
    /** TLS; authentication by client certificate when a key store is configured. */
    SSL(true, false),
    /** SASL authentication over a plain connection (credentials of PLAIN travel unencrypted). */
    SASL_PLAINTEXT(false, true),
    /** SASL authentication over TLS. */
    SASL_SSL(true, true);

    private final boolean tls;
    private final boolean sasl;

    SecurityProtocol(boolean tls, boolean sasl) {
        this.tls = tls;
        this.sasl = sasl;
    }

    /**
     * Whether connections use TLS.
     *
     * @return {@code true} for SSL and SASL_SSL
     */
    public boolean usesTls() {
        return tls;
    }

    /**
     * Whether connections authenticate with SASL (SaslHandshake + SaslAuthenticate, KIP-43/KIP-152).
     *
     * @return {@code true} for SASL_PLAINTEXT and SASL_SSL
     */
    public boolean usesSasl() {
        return sasl;
    }
}
