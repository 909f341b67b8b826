package io.kflux.internal.security;

import io.kflux.SaslMechanism;
import io.kflux.network.SaslAuthenticator;
import java.util.Map;
import reactor.core.publisher.Mono;

/** A user's {@link SaslMechanism} as the network layer drives mechanisms. */
final class PluggedMechanism implements SaslAuthenticator {
    private final SaslMechanism mechanism;
    private final Map<String, String> jaasOptions;

    PluggedMechanism(SaslMechanism mechanism, Map<String, String> jaasOptions) {
        this.mechanism = mechanism;
        this.jaasOptions = Map.copyOf(jaasOptions);
    }

    @Override
    public String mechanism() {
        return mechanism.name();
    }

    @Override
    public Exchange newExchange(String brokerHost) {
        SaslMechanism.Exchange exchange = mechanism.start(brokerHost, jaasOptions);
        return challenge -> Mono.defer(() -> exchange.respond(challenge));
    }

    @Override
    public String toString() {
        return mechanism.name() + "[plugged in: " + mechanism.getClass().getName() + "]";
    }
}
