package io.kflux.compat;

import static io.kflux.testsupport.LeftBehind.assertClosesWithinTimeout;
import static io.kflux.testsupport.LeftBehind.assertNoLeaks;
import static io.kflux.testsupport.LeftBehind.awaitTrue;
import static io.kflux.testsupport.LeftBehind.kfluxThreads;
import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.KafkaFluxConsumer;
import io.kflux.TopicPartition;
import io.kflux.compat.support.ClientSockets;
import io.kflux.compat.support.Kflux;
import io.kflux.compat.support.SecuredKafka;
import io.kflux.compat.support.SharedSecuredKafka;
import io.kflux.compat.support.TestCertificates;
import io.kflux.testsupport.NettyLeaks;
import io.kflux.testsupport.ParanoidLeakDetection;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import reactor.core.Disposable;

/**
 * Issue #15's last close race: a subscription disposed while its connections are in the TLS handshake or the SASL
 * exchange (SCRAM-SHA-256 over TLS), against a real secured broker. The dispose point moves from "at once" to past
 * the handshakes over the rounds. Each round must leave no client socket to the broker (read from
 * {@code /proc/net/tcp*}), no kflux thread behind and no buffer unreleased (Netty's leak detector on PARANOID), and
 * {@code close(timeout)} must complete within its timeout.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
@ExtendWith(ParanoidLeakDetection.class)
@ExtendWith(SharedSecuredKafka.class)
class SecuredCloseRaceTest {
    private static final String TOPIC = SecuredKafka.ALLOWED + "race";
    private static final int ROUNDS = 16;

    private static SecuredKafka kafka;

    @BeforeAll
    static void start(SecuredKafka shared) {
        kafka = shared; // the run's one secured broker: SharedSecuredKafka stops it at the end
        kafka.cluster().createTopic(TOPIC, 2, 1);
    }


    /** SCRAM-SHA-256 over TLS on the SASL_SSL listener; mutual TLS (a client key store) on the SSL one. */
    private static Map<String, Object> props(String listener) {
        Map<String, Object> p = new HashMap<>();
        if (listener.equals("SSL")) {
            p.putAll(kafka.ssl("SSL"));
            p.put("ssl.keystore.location", kafka.certs().path("client.jks"));
            p.put("ssl.keystore.type", "JKS");
            p.put("ssl.keystore.password", TestCertificates.PASSWORD);
            p.put("ssl.key.password", TestCertificates.PASSWORD);
        } else {
            p.putAll(kafka.saslSsl("SCRAM-SHA-256", SecuredKafka.scramJaas("scram256", SecuredKafka.SCRAM256_PASSWORD)));
        }
        p.put("auto.offset.reset", "earliest");
        return p;
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"SASL_SSL", "SSL"})
    void disposeDuringTheHandshakesLeavesNothingBehind(String listener) throws Exception {
        int port = Integer.parseInt(kafka.cluster().bootstrapServers(listener).split(",")[0].split(":")[1]);
        try (NettyLeaks leaks = new NettyLeaks()) {
            int threadsBefore = -1;
            for (int round = 0; round < ROUNDS; round++) {
                KafkaFluxConsumer<String, String> consumer = Kflux.strings(props(listener),
                        List.of(new TopicPartition(TOPIC, 0), new TopicPartition(TOPIC, 1)));
                Disposable subscription = consumer.receive().subscribe(r -> { }, e -> { });
                // from at once to well past TLS + SCRAM (a few ms to ~100 ms once warm; longer in the first rounds)
                Thread.sleep(round * 15L);
                subscription.dispose();
                assertClosesWithinTimeout(consumer);
                awaitTrue(() -> ClientSockets.count(port) == 0, Duration.ofSeconds(5));
                if (round == 3) {
                    // not round 0: the JVM-wide event loops start with the first connection, which a dispose
                    // "at once" may not have made yet
                    threadsBefore = kfluxThreads();
                }
            }
            assertThat(kfluxThreads()).as("kflux threads after %d rounds", ROUNDS).isLessThanOrEqualTo(threadsBefore);
            assertNoLeaks(leaks);
        }
    }
}
