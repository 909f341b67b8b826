package io.kflux.network;

import io.netty.handler.ssl.SslContext;

/**
 * How connections are secured: TLS (a client {@link SslContext} built on the JDK {@code SSLEngine}) and/or
 * SASL, as {@code security.protocol} chooses. Both are set up before a connection is handed out.
 *
 * @param tls  the TLS context (it also says whether the broker's certificate must match the host name
 *             connected to), or {@code null} for a plain TCP connection
 * @param sasl the SASL mechanism, or {@code null} when connections do not authenticate with SASL
 */
public record ConnectionSecurity(SslContext tls, SaslAuthenticator sasl) {

    /** No TLS, no SASL. */
    public static final ConnectionSecurity PLAINTEXT = new ConnectionSecurity(null, null);

    /** The {@code security.protocol} name these settings amount to, for messages. */
    public String protocolName() {
        if (tls == null) {
            return sasl == null ? "PLAINTEXT" : "SASL_PLAINTEXT";
        }
        return sasl == null ? "SSL" : "SASL_SSL";
    }

    @Override
    public String toString() {
        return "ConnectionSecurity[" + protocolName() + (sasl == null ? "" : ", " + sasl.mechanism()) + "]";
    }
}
