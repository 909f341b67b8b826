package io.kflux.internal.security;

import com.ongres.scram.client.ScramClient;
import com.ongres.scram.common.StringPreparation;
import com.ongres.scram.common.exception.ScramException;
import io.kflux.AuthenticationException;
import io.kflux.internal.config.Password;
import io.kflux.network.SaslAuthenticator;
import java.nio.charset.StandardCharsets;
import java.util.List;
import reactor.core.publisher.Mono;

/**
 * SASL/SCRAM-SHA-256 and SCRAM-SHA-512 (RFC 5802, RFC 7677) with the ongres SCRAM client: client-first,
 * client-final, then the server's signature is checked. No string preparation of the password, as Kafka's
 * own SCRAM does not apply SASLprep either (the stored credentials were derived from the raw UTF-8 bytes).
 */
final class ScramMechanism implements SaslAuthenticator {
    private final String mechanism;
    private final String username;
    private final Password password;

    ScramMechanism(String mechanism, String username, Password password) {
        this.mechanism = mechanism;
        this.username = username;
        this.password = password;
    }

    @Override
    public String mechanism() {
        return mechanism;
    }

    @Override
    public Exchange newExchange(String brokerHost) {
        return new Exchange() {
            private ScramClient client;
            private int step;

            @Override
            public Mono<byte[]> respond(byte[] challenge) {
                return Mono.fromCallable(() -> next(challenge));
            }

            private byte[] next(byte[] challenge) {
                try {
                    switch (step++) {
                        case 0 -> {
                            client = ScramClient.builder()
                                    .advertisedMechanisms(List.of(mechanism))
                                    .username(username)
                                    .password(password.value().toCharArray())
                                    .stringPreparation(StringPreparation.NO_PREPARATION)
                                    .build();
                            return utf8(client.clientFirstMessage().toString());
                        }
                        case 1 -> {
                            client.serverFirstMessage(new String(challenge, StandardCharsets.UTF_8));
                            return utf8(client.clientFinalMessage().toString());
                        }
                        case 2 -> {
                            client.serverFinalMessage(new String(challenge, StandardCharsets.UTF_8));
                            return null;
                        }
                        default -> {
                            return null;
                        }
                    }
                } catch (ScramException | IllegalArgumentException | IllegalStateException e) {
                    // ongres's messages describe the SCRAM message structure, not the credentials
                    throw new AuthenticationException(mechanism + " exchange with broker " + brokerHost + " failed: "
                            + e.getClass().getSimpleName() + " (" + e.getMessage() + ")");
                }
            }
        };
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public String toString() {
        return mechanism + "[username=" + username + "]";
    }
}
