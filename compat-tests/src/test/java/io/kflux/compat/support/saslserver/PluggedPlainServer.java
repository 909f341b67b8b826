package io.kflux.compat.support.saslserver;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import javax.security.auth.callback.CallbackHandler;
import javax.security.sasl.SaslException;
import javax.security.sasl.SaslServer;
import javax.security.sasl.SaslServerFactory;

/**
 * The broker side of {@value #MECHANISM}, a SASL mechanism no Kafka broker or kflux builds in (PLAIN's token under
 * another name, one fixed user), so that kflux's {@code SaslMechanism} SPI can be tried against a real broker. It
 * runs inside the forked broker: the broker's JAAS entry names {@link PluggedPlainLogin}, whose loading registers the
 * {@link Factory} with the JVM's security providers, as Kafka's own {@code PlainLoginModule} does for PLAIN.
 * Depends on the JDK only, so its class files can be put on the broker's class path alone.
 */
public final class PluggedPlainServer implements SaslServer {
    public static final String MECHANISM = "KFLUX-PLAIN";
    public static final String USER = "plugged-user";
    public static final String PASSWORD = "plugged-pw-Rt64";

    private String user;

    @Override
    public String getMechanismName() {
        return MECHANISM;
    }

    @Override
    public byte[] evaluateResponse(byte[] response) throws SaslException {
        String[] parts = new String(response, StandardCharsets.UTF_8).split("\u0000", -1);
        if (parts.length != 3 || !parts[1].equals(USER) || !parts[2].equals(PASSWORD)) {
            throw new SaslException("wrong user name or password");
        }
        user = parts[1];
        return new byte[0];
    }

    @Override
    public boolean isComplete() {
        return user != null;
    }

    @Override
    public String getAuthorizationID() {
        return user;
    }

    @Override
    public byte[] unwrap(byte[] incoming, int offset, int len) {
        throw new IllegalStateException("no security layer");
    }

    @Override
    public byte[] wrap(byte[] outgoing, int offset, int len) {
        throw new IllegalStateException("no security layer");
    }

    @Override
    public Object getNegotiatedProperty(String propName) {
        return null;
    }

    @Override
    public void dispose() {
    }

    /** Makes the server for {@value #MECHANISM}. */
    public static final class Factory implements SaslServerFactory {
        @Override
        public SaslServer createSaslServer(String mechanism, String protocol, String serverName, Map<String, ?> props,
                                           CallbackHandler cbh) {
            return MECHANISM.equals(mechanism) ? new PluggedPlainServer() : null;
        }

        @Override
        public String[] getMechanismNames(Map<String, ?> props) {
            return new String[] {MECHANISM};
        }
    }
}
