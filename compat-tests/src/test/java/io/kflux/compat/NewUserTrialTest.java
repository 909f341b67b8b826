package io.kflux.compat;

import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.ConsumerRecord;
import io.kflux.KafkaFluxConsumer;
import io.kflux.OffsetAndMetadata;
import io.kflux.TimeoutException;
import io.kflux.TopicPartition;
import io.kflux.test.KafkaTest;
import io.kflux.compat.support.Kflux;
import io.kflux.compat.support.LogCapture;
import io.kflux.compat.support.RecordQueue;
import io.kflux.test.broker.EmbeddedKafkaCluster;
import io.kflux.test.broker.SampleData;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.core.config.Configurator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.core.publisher.Mono;

/**
 * What a new user trying kflux ran into (issue #13), against a real broker: a manual assignment of a topic that does
 * not exist or of a partition past the topic's count is reported while the consumer keeps waiting, and it starts as
 * soon as the topic appears; subscribers waiting for a stopping subscription are served first come, first served;
 * {@code close()} after {@code receive()} ended with an error commits what was acknowledged, and an acknowledgement
 * after close says (at DEBUG) that it is ignored.
 */
@KafkaTest(nodes = 1)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class NewUserTrialTest {
    private static final Duration WAIT = Duration.ofSeconds(20);

    private static List<LogCapture.Line> await(LogCapture log, Predicate<LogCapture.Line> match, int count)
            throws InterruptedException {
        return log.await(match, count, WAIT);
    }

    @Test
    void anUnknownTopicAndAPartitionPastTheCountAreReportedWhileTheConsumerWaitsForThem(EmbeddedKafkaCluster kafka)
            throws Exception {
        kafka.createTopic("trial-known", 1, 1);
        TopicPartition missing = new TopicPartition("trial-later", 0);
        TopicPartition pastCount = new TopicPartition("trial-known", 3);
        KafkaFluxConsumer<String, String> consumer = Kflux.strings(Kflux.props(kafka.bootstrapServers(),
                "client.id", "trial-waiter", "default.api.timeout.ms", 1500, "allow.auto.create.topics", false),
                List.of(missing, pastCount));
        try (LogCapture log = new LogCapture("io.kflux")) {
            RecordQueue<String, String> q = RecordQueue.subscribe(consumer.receive(), Long.MAX_VALUE);
            try {
                List<LogCapture.Line> missingLines = await(log, l -> l.level().equals("WARN")
                        && l.message().startsWith(missing + " has not been in the cluster's metadata for"), 2);
                assertThat(missingLines.get(0).message()).contains("topic 'trial-later' does not exist")
                        .contains("still waiting").contains("retry.backoff.ms");
                assertThat(missingLines.get(0).context()).containsEntry("kflux.client.id", "trial-waiter");
                // repeated while it lasts, rate-limited (the waits double from 2 s): the second says it waited longer
                assertThat(waitedMs(missingLines.get(1))).isGreaterThan(waitedMs(missingLines.get(0)));
                assertThat(missingLines.get(1).nanos() - missingLines.get(0).nanos())
                        .isGreaterThan(Duration.ofSeconds(1).toNanos());
                LogCapture.Line pastLine = await(log, l -> l.level().equals("WARN")
                        && l.message().startsWith(pastCount + " has not been in the cluster's metadata"), 1).get(0);
                assertThat(pastLine.message()).contains("topic 'trial-known' has 1 partitions");
                assertThat(log.matching(m -> m.contains("yet"))).isEmpty();

                // where a position cannot be decided, the lookup fails typed after default.api.timeout.ms
                Throwable position = consumer.position(missing).then(Mono.<Throwable>empty())
                        .onErrorResume(Mono::just).block(WAIT);
                assertThat(position).isInstanceOf(TimeoutException.class)
                        .hasMessageContaining(missing.toString()).hasMessageContaining("default.api.timeout.ms");

                // metadata is asked for all along: once the topic exists, its records arrive on the same subscription
                kafka.createTopic("trial-later", 1, 1);
                SampleData.produce(kafka.bootstrapServers(), "trial-later", 3);
                assertThat(q.take(3, WAIT)).extracting(ConsumerRecord::offset).containsExactly(0L, 1L, 2L);
                assertThat(q.error()).isNull();
                await(log, l -> l.level().equals("INFO") && l.message().startsWith(missing + " has a leader again"), 1);
            } finally {
                q.dispose();
                consumer.close().block(WAIT);
            }
        }
    }

    /** The "for N ms" of a wait WARN. */
    private static long waitedMs(LogCapture.Line line) {
        String m = line.message();
        int at = m.indexOf("metadata for ") + "metadata for ".length();
        return Long.parseLong(m.substring(at, m.indexOf(" ms", at)));
    }

    @Test
    void subscribersWaitingForAStoppingSubscriptionAreServedInTheOrderTheySubscribed(EmbeddedKafkaCluster kafka)
            throws Exception {
        kafka.createTopic("trial-fifo", 1, 1);
        SampleData.produce(kafka.bootstrapServers(), "trial-fifo", 5);
        KafkaFluxConsumer<String, String> consumer = Kflux.strings(Kflux.props(kafka.bootstrapServers()),
                List.of(new TopicPartition("trial-fifo", 0)));
        try {
            RecordQueue<String, String> first = RecordQueue.subscribe(consumer.receive(), Long.MAX_VALUE);
            first.take(5, WAIT);
            // the cancelled subscription closes its fetch session and connections (round trips to the broker): the
            // three below subscribe while it stops, and wait for it
            first.dispose();
            RecordQueue<String, String> one = RecordQueue.subscribe(consumer.receive(), Long.MAX_VALUE);
            RecordQueue<String, String> two = RecordQueue.subscribe(consumer.receive(), Long.MAX_VALUE);
            RecordQueue<String, String> three = RecordQueue.subscribe(consumer.receive(), Long.MAX_VALUE);
            assertThat(three.awaitTermination(WAIT)).isTrue();
            assertThat(two.awaitTermination(WAIT)).isTrue();
            assertThat(two.error()).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("already has an active receive() subscription");
            assertThat(three.error()).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("already has an active receive() subscription");
            SampleData.produce(kafka.bootstrapServers(), "trial-fifo", 3);
            // the first to subscribe got the subscription, and it continues where the cancelled one stopped
            assertThat(one.take(3, WAIT)).extracting(ConsumerRecord::offset).containsExactly(5L, 6L, 7L);
            assertThat(one.error()).isNull();
            one.dispose();
        } finally {
            consumer.close().block(WAIT);
        }
    }

    @Test
    void closeAfterReceiveEndedWithAnErrorCommitsWhatWasAcknowledged(EmbeddedKafkaCluster kafka) throws Exception {
        kafka.createTopic("trial-error", 1, 1);
        SampleData.produce(kafka.bootstrapServers(), "trial-error", 10);
        TopicPartition tp = new TopicPartition("trial-error", 0);
        KafkaFluxConsumer<String, String> consumer = Kflux.strings(Kflux.props(kafka.bootstrapServers(),
                "group.id", "trial-error-group", "enable.auto.commit", false), List.of(tp));
        AtomicReference<ConsumerRecord<String, String>> failing = new AtomicReference<>();
        AtomicReference<Throwable> ended = new AtomicReference<>();
        CountDownLatch done = new CountDownLatch(1);
        consumer.receive()
                .doOnNext(r -> {
                    if (r.offset() == 6) {
                        failing.set(r);
                        throw new IllegalArgumentException("the application failed on offset 6");
                    }
                    r.acknowledge();
                })
                .subscribe(r -> { }, e -> {
                    ended.set(e);
                    done.countDown();
                });
        assertThat(done.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
        assertThat(ended.get()).hasMessageContaining("offset 6");

        Configurator.setLevel("io.kflux.commit.CommitManager", Level.DEBUG);
        try (LogCapture log = new LogCapture("io.kflux.commit.CommitManager", Level.DEBUG)) {
            // completes after the final commit of offsets 0-5, although receive() is over
            consumer.close().block(WAIT);
            failing.get().acknowledge();
            failing.get().acknowledge();
            List<LogCapture.Line> ignored = log.matching(m -> m.startsWith("acknowledgement of " + tp + " at offset 6"
                    + " ignored"));
            assertThat(ignored).hasSize(1); // once per partition, not per record
            assertThat(ignored.get(0).message()).contains("the consumer is closed");
        } finally {
            Configurator.setLevel("io.kflux.commit.CommitManager", Level.INFO);
        }
        KafkaFluxConsumer<String, String> reader = Kflux.strings(Kflux.props(kafka.bootstrapServers(),
                "group.id", "trial-error-group"), List.of(tp));
        Map<TopicPartition, OffsetAndMetadata> committed = reader.committed(Set.of(tp)).block(WAIT);
        reader.close().block(WAIT);
        assertThat(committed.get(tp)).isNotNull();
        assertThat(committed.get(tp).offset()).isEqualTo(6L);
    }
    @Test
    void theEffectiveConfigurationIsLoggedOnceWithoutSecretsAndAMisspelledPropertyGetsASuggestion(
            EmbeddedKafkaCluster kafka) throws Exception {
        kafka.createTopic("trial-config", 1, 1);
        SampleData.produce(kafka.bootstrapServers(), "trial-config", 3);
        List<String> secrets = List.of("pw-truststore-0xA1", "pw-jaas-0xB2", "pw-client-0xC3", "pw-url-0xD4");
        Configurator.setLevel("io.kflux", Level.DEBUG);
        try (LogCapture log = new LogCapture("io.kflux", Level.DEBUG)) {
            KafkaFluxConsumer<String, String> consumer = Kflux.strings(Kflux.props(kafka.bootstrapServers(),
                    "client.id", "trial-config-client", "group.id", "trial-config-group",
                    "ssl.truststore.password", secrets.get(0),
                    "sasl.jaas.config", "org.apache.kafka.common.security.plain.PlainLoginModule required "
                            + "username=\"u\" password=\"" + secrets.get(1) + "\";",
                    "sasl.oauthbearer.client.credentials.client.secret", secrets.get(2),
                    "sasl.oauthbearer.token.endpoint.url", "https://svc:" + secrets.get(3) + "@idp.example/token",
                    "sessoin.timeout.ms", 10_000), List.of(new TopicPartition("trial-config", 0)));
            try {
                RecordQueue<String, String> q = RecordQueue.subscribe(consumer.receive(), Long.MAX_VALUE);
                q.take(3, WAIT);
                q.dispose();
            } finally {
                consumer.close().block(WAIT);
            }
            List<LogCapture.Line> dumps = log.matching(m -> m.startsWith("ConsumerConfig values:"));
            assertThat(dumps).hasSize(1);
            LogCapture.Line dump = dumps.get(0);
            assertThat(dump.level()).isEqualTo("INFO");
            assertThat(dump.context()).containsEntry("kflux.client.id", "trial-config-client")
                    .containsEntry("kflux.group.id", "trial-config-group");
            assertThat(dump.message()).contains("\n\tclient.id = trial-config-client\n",
                    "\n\tssl.truststore.password = [hidden]\n", "\n\tsasl.jaas.config = [hidden]\n",
                    "\n\tsasl.oauthbearer.token.endpoint.url = https://[hidden]@idp.example/token\n",
                    "\n\tgroup.id = trial-config-group\n", "\n\tauto.offset.reset = earliest\n");
            assertThat(log.matching(m -> m.startsWith("Ignoring unknown consumer property 'sessoin.timeout.ms'")))
                    .singleElement().satisfies(l -> {
                        assertThat(l.level()).isEqualTo("WARN");
                        assertThat(l.message()).contains("did you mean 'session.timeout.ms'?");
                    });
            // no line kflux wrote, at any level, quotes a secret
            assertThat(log.lines()).isNotEmpty().allSatisfy(l -> secrets.forEach(secret ->
                    assertThat(l.message()).as(l.logger()).doesNotContain(secret)));
        } finally {
            Configurator.setLevel("io.kflux", Level.INFO);
        }
    }
}
