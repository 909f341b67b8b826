package io.kflux.internal.security;

import io.kflux.AuthenticationException;
import io.kflux.network.SaslAuthenticator;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.security.PrivilegedActionException;
import java.security.PrivilegedExceptionAction;
import java.util.Map;
import javax.security.auth.Subject;
import javax.security.sasl.Sasl;
import javax.security.sasl.SaslClient;
import javax.security.sasl.SaslException;
import io.kflux.network.BlockingScheduler;
import reactor.core.publisher.Mono;

/**
 * SASL/GSSAPI (Kerberos V5, RFC 4752) through the JDK's own SASL client ({@code javax.security.sasl}); kflux holds
 * no Kerberos code. Each step runs as the logged-in {@link Subject} on a bounded-elastic thread, never on an event
 * loop: the first one asks the KDC for a service ticket over the network. The service principal is
 * {@code <sasl.kerberos.service.name>/<broker host>}, where the host is found as the official client finds it
 * ({@link InetAddress#getHostName()}: an IP address is looked up in reverse).
 *
 * <p>Every token is sent, even an empty one, until the JDK client says it is complete (mutual authentication,
 * then the security layer negotiation, which settles on {@code auth}: no integrity or confidentiality layer, as
 * Kafka wants).
 */
final class GssapiMechanism implements SaslAuthenticator {
    private final String serviceName;
    private final KerberosLogin login;

    GssapiMechanism(String serviceName, KerberosLogin login) {
        this.serviceName = serviceName;
        this.login = login;
    }

    @Override
    public String mechanism() {
        return "GSSAPI";
    }

    @Override
    public Exchange newExchange(String brokerHost) {
        return new Exchange() {
            private SaslClient client;

            @Override
            public Mono<byte[]> respond(byte[] challenge) {
                return login.subject().flatMap(subject -> Mono.fromCallable(() -> step(subject, challenge))
                        .subscribeOn(BlockingScheduler.shared()));
            }

            private byte[] step(Subject subject, byte[] challenge) {
                String host = brokerHost;
                try {
                    if (client == null) {
                        host = InetAddress.getByName(brokerHost).getHostName();
                        String serverHost = host;
                        client = as(subject, () -> Sasl.createSaslClient(new String[] {"GSSAPI"},
                                KerberosLogin.principalName(subject), serviceName, serverHost,
                                Map.of(Sasl.QOP, "auth"), null));
                        if (client == null) {
                            throw new AuthenticationException("GSSAPI: this JVM has no SASL client for GSSAPI");
                        }
                    }
                    if (client.isComplete()) {
                        client.dispose();
                        return null;
                    }
                    byte[] token = as(subject, () -> client.evaluateChallenge(challenge));
                    return token == null ? new byte[0] : token;
                } catch (SaslException | UnknownHostException e) {
                    dispose();
                    // the GSS messages name principals and the KDC's error code, never key material
                    throw new AuthenticationException("GSSAPI exchange with broker " + brokerHost + " (service principal "
                            + serviceName + "/" + host + ") failed: " + describe(e));
                }
            }

            private void dispose() {
                if (client != null) {
                    try {
                        client.dispose();
                    } catch (SaslException ignored) {
                        // nothing is left to release that matters once the exchange has failed
                    }
                }
            }
        };
    }

    private static <T> T as(Subject subject, PrivilegedExceptionAction<T> action) throws SaslException {
        try {
            return Subject.doAs(subject, action);
        } catch (PrivilegedActionException e) {
            if (e.getException() instanceof SaslException s) {
                throw s;
            }
            throw new SaslException(e.getException().toString(), e.getException());
        }
    }

    private static String describe(Throwable e) {
        StringBuilder b = new StringBuilder(String.valueOf(e.getMessage()));
        for (Throwable c = e.getCause(); c != null && c != c.getCause(); c = c.getCause()) {
            if (c.getMessage() != null && !b.toString().contains(c.getMessage())) {
                b.append(" [").append(c.getMessage()).append(']');
            }
        }
        return b.toString();
    }

    @Override
    public String toString() {
        return "GSSAPI[service=" + serviceName + ", " + login + "]";
    }
}
