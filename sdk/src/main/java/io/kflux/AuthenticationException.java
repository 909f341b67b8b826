package io.kflux;

/**
 * The connection could not be authenticated: the TLS handshake failed ({@link SslAuthenticationException}), or
 * the broker rejected the SASL exchange (SaslHandshake / SaslAuthenticate, KIP-43 and KIP-152; error
 * SASL_AUTHENTICATION_FAILED, code 58: wrong password or unknown user; UNSUPPORTED_SASL_MECHANISM, code 33: the
 * mechanism is not enabled on the listener). The message names the broker and the mechanism, never a credential.
 *
 * <p>Not retriable: repeating with the same credentials gives the same answer. {@code receive()} terminates
 * with it, as do {@code commit()} and {@code committed()}; it is never retried in a reconnect loop.
 */
public class AuthenticationException extends KafkaFluxException {

    private static final long serialVersionUID = 1L;

    /**
     * Creates the error.
     *
     * @param message what failed, never containing credentials
     */
    public AuthenticationException(String message) {
        super(message);
    }

    /**
     * Creates the error with a cause (e.g. an {@code SSLHandshakeException}).
     *
     * @param message what failed, never containing credentials
     * @param cause   the underlying error, may be {@code null}
     */
    public AuthenticationException(String message, Throwable cause) {
        super(message, cause);
    }
}
