package io.kflux.compat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kflux.Deserializers;
import io.kflux.KafkaProtocolException;
import io.kflux.KafkaShareConsumer;
import io.kflux.ShareConsumerOptions;
import io.kflux.ShareRecord;
import io.kflux.compat.support.BrokerVersion;
import io.kflux.compat.support.FaultProxy;
import io.kflux.compat.support.LogCapture;
import io.kflux.test.broker.EmbeddedKafkaCluster;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.core.Disposable;

/**
 * A share consumer (KIP-932) cut off from its broker (a {@link FaultProxy} black hole on every one of its connections)
 * past its session timeout and as long again, against a real broker whose share session timeout is the same 6 s
 * (KIP-932 does not send it; {@code session.timeout.ms} stands for it): the member concludes the broker removed it,
 * so the record it still held unacknowledged is no longer acknowledged as if held (its accept fails at once with
 * INVALID_RECORD_STATE, nothing is sent), and once the network is back it joins again with epoch 0 and gets the record
 * once more (a new delivery, once the broker released the old one), which it then accepts.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class ShareSessionExpiryTest {
    private static final int SESSION_MS = 6_000;
    private static final Duration WAIT = Duration.ofSeconds(90);

    private static FaultProxy proxy;
    private static EmbeddedKafkaCluster kafka;

    @BeforeAll
    static void startBrokerBehindProxy() throws IOException {
        Assumptions.assumeTrue(BrokerVersion.current().atLeast(4, 2), "share groups are production-ready from 4.2");
        proxy = FaultProxy.onFreePort();
        kafka = proxy.brokerBehind()
                .brokerProperty("group.share.min.session.timeout.ms", String.valueOf(SESSION_MS))
                .brokerProperty("group.share.session.timeout.ms", String.valueOf(SESSION_MS))
                .brokerProperty("group.share.min.heartbeat.interval.ms", "1000")
                .brokerProperty("group.share.heartbeat.interval.ms", "1000")
                .start();
    }

    @AfterAll
    static void stop() throws IOException {
        FaultProxy.closeBoth(kafka, proxy);
    }

    @Test
    void aMemberCutOffPastItsSessionStopsAcknowledgingWhatItHeldAndJoinsAgain() throws Exception {
        String topic = "share-expiry";
        String group = "share-expiry-group";
        ShareConsumerTest.topicWith(kafka, topic, group, "held");
        BlockingQueue<ShareRecord<String, String>> received = new LinkedBlockingQueue<>();
        KafkaShareConsumer<String, String> consumer = KafkaShareConsumer.create(ShareConsumerOptions.create(Map.of(
                        "bootstrap.servers", proxy.address(), "group.id", group, "share.acknowledgement.mode",
                        "explicit", "session.timeout.ms", SESSION_MS, "request.timeout.ms", 3_000, "retry.backoff.ms",
                        100, "reconnect.backoff.max.ms", 1_000), Deserializers.string(), Deserializers.string())
                .subscription(List.of(topic)));
        try (LogCapture log = new LogCapture("io.kflux")) {
            Disposable subscription = consumer.receive().subscribe(received::add);
            try {
                ShareRecord<String, String> held = received.poll(WAIT.toSeconds(), TimeUnit.SECONDS);
                assertThat(held).as("the record, first delivery").isNotNull();
                assertThat(held.value()).isEqualTo("held");
                assertThat(held.deliveryCount()).isEqualTo((short) 1);

                proxy.blackHole(true);
                log.await(l -> l.message().contains("session expired"), 1, WAIT);
                assertThatThrownBy(() -> held.accept().block(Duration.ofSeconds(10)))
                        .as("not acknowledged as if still held")
                        .isInstanceOf(KafkaProtocolException.class).hasMessageContaining("INVALID_RECORD_STATE");

                proxy.heal();
                ShareRecord<String, String> again = received.poll(WAIT.toSeconds(), TimeUnit.SECONDS);
                assertThat(again).as("the record delivered again after the member rejoined").isNotNull();
                assertThat(again.value()).isEqualTo("held");
                assertThat(again.deliveryCount()).as("a new delivery").isGreaterThanOrEqualTo((short) 2);
                again.accept().block(WAIT);
            } finally {
                proxy.heal();
                consumer.close().block(WAIT);
                subscription.dispose();
            }
        }
    }
}
