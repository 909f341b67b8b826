package io.kflux.compat.support;

import io.kflux.SaslMechanism;
import io.kflux.compat.support.saslserver.PluggedPlainServer;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import reactor.core.publisher.Mono;

/**
 * The client side of {@link PluggedPlainServer}'s mechanism, registered for {@link java.util.ServiceLoader} in this
 * module's {@code META-INF/services/io.kflux.SaslMechanism}: one token, {@code \0username\0password}, from the
 * options of {@code sasl.jaas.config}. Counts the exchanges it starts, so a test can tell it was used.
 */
public final class PluggedPlainMechanism implements SaslMechanism {
    /** Exchanges started by any instance. */
    public static final AtomicInteger STARTED = new AtomicInteger();

    @Override
    public String name() {
        return PluggedPlainServer.MECHANISM;
    }

    @Override
    public Exchange start(String brokerHost, Map<String, String> jaasOptions) {
        STARTED.incrementAndGet();
        boolean[] sent = new boolean[1];
        return challenge -> {
            if (sent[0]) {
                return Mono.empty();
            }
            sent[0] = true;
            return Mono.fromSupplier(() -> ("\0" + jaasOptions.get("username") + "\0" + jaasOptions.get("password"))
                    .getBytes(StandardCharsets.UTF_8));
        };
    }
}
