package io.kflux;

/**
 * The TLS handshake with a broker failed: its certificate is not trusted by the configured trust store, has
 * expired, or does not match the host name connected to ({@code ssl.endpoint.identification.algorithm=https}),
 * or the broker refused the client's certificate (under TLS 1.3 that shows only after the handshake, on the
 * first request; it is reported as this type all the same). The cause is the JDK's {@code SSLException}.
 *
 * <p>Not retriable: {@code receive()} terminates with it.
 */
public class SslAuthenticationException extends AuthenticationException {

    private static final long serialVersionUID = 1L;

    /**
     * Creates the error.
     *
     * @param message which broker, and what failed; never a key or password
     * @param cause   the underlying {@code SSLException}, may be {@code null}
     */
    public SslAuthenticationException(String message, Throwable cause) {
        super(message, cause);
    }
}
