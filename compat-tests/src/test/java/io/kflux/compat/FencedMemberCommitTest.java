package io.kflux.compat;

import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.CommitFailedException;
import io.kflux.ConsumerOptions;
import io.kflux.Deserializers;
import io.kflux.KafkaFluxConsumer;
import io.kflux.OffsetAndMetadata;
import io.kflux.TopicPartition;
import io.kflux.compat.support.BrokerVersion;
import io.kflux.compat.support.FaultProxy;
import io.kflux.compat.support.GroupKit;
import io.kflux.compat.support.Kflux;
import io.kflux.test.broker.EmbeddedKafkaCluster;
import io.kflux.test.broker.SampleData;
import java.io.IOException;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.core.Disposable;

/**
 * A KIP-848 member ({@code group.protocol=consumer}) fenced while its commit is in flight (issue #29, assignment
 * epochs): the zombie owns the partition, is cut off ({@link FaultProxy} black hole) just as it commits, the broker
 * fences it after the session timeout and gives the partition to a successor (the official consumer, connected
 * directly) that commits its own offset; then the network comes back and the zombie's commit, sent with its old member
 * id and epoch, reaches the coordinator. The user sees the commit's Mono fail with {@link CommitFailedException}, and
 * the successor's offset stands (read back with the official Admin).
 *
 * <p>Kafka 4.3+ (KIP-1251) checks a known member's commit against the epoch each partition was assigned at; a member
 * the coordinator fenced is no longer known at all, so every broker with the consumer protocol (4.0+) answers
 * UNKNOWN_MEMBER_ID (OffsetCommit v9+, the schema's error for a member id the group does not hold) and the outcome on
 * 4.2 is the same as on 4.4. Run it there with {@code -Dkflux.broker.version=4.2}.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class FencedMemberCommitTest {
    private static final int SESSION_MS = 6_000;
    private static final int RECORDS = 10;
    private static final long SUCCESSOR_OFFSET = 3;

    private static FaultProxy proxy;
    private static EmbeddedKafkaCluster kafka;

    @BeforeAll
    static void startBrokerBehindProxy() throws IOException {
        Assumptions.assumeTrue(BrokerVersion.current().atLeast(4, 0),
                "group.protocol=consumer needs a 4.0+ broker, this is " + BrokerVersion.current().full());
        proxy = FaultProxy.onFreePort();
        kafka = GroupKit.consumerGroupTimings(proxy.brokerBehind(), SESSION_MS).start();
    }

    @AfterAll
    static void stop() throws Exception {
        for (AutoCloseable c : new AutoCloseable[] {kafka, proxy}) {
            if (c != null) {
                c.close();
            }
        }
    }

    @Test
    void aZombiesCommitIsRefusedTypedAndTheSuccessorsOffsetStands() throws Exception {
        String topic = "zombie-commit";
        String group = topic + "-group";
        TopicPartition tp = new TopicPartition(topic, 0);
        kafka.createTopic(topic, 1, 1);
        try (KafkaProducer<String, String> producer = SampleData.producer(kafka.bootstrapServers())) {
            for (int i = 0; i < RECORDS; i++) {
                producer.send(new ProducerRecord<>(topic, 0, "k" + i, "v" + i)).get(30, TimeUnit.SECONDS);
            }
        }
        // kflux's own session check (session.timeout.ms) is left at its 45 s default: the broker's fencing decides
        Map<String, Object> props = Kflux.props(proxy.address(), "group.id", group, "group.protocol", "consumer",
                "client.id", "zombie", "enable.auto.commit", false, "request.timeout.ms", 30_000,
                "fetch.max.wait.ms", 500);
        KafkaFluxConsumer<String, String> zombie = KafkaFluxConsumer.create(
                ConsumerOptions.create(props, Deserializers.string(), Deserializers.string())
                        .subscription(List.of(topic)));
        AtomicInteger emitted = new AtomicInteger();
        Disposable receiving = zombie.receive().subscribe(r -> emitted.incrementAndGet(), e -> { });
        Map<String, Object> official = new HashMap<>();
        official.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        official.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        official.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "consumer");
        official.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        official.put(ConsumerConfig.CLIENT_ID_CONFIG, "successor");
        try (KafkaConsumer<String, String> successor = new KafkaConsumer<>(official, new StringDeserializer(),
                new StringDeserializer())) {
            GroupKit.await("the zombie owns " + tp + " and emitted its records", Duration.ofSeconds(60),
                    () -> zombie.assignment().contains(tp) && emitted.get() == RECORDS);

            proxy.blackHole(true); // the commit below leaves the zombie and waits in the network
            AtomicReference<Throwable> commitError = new AtomicReference<>();
            CompletableFuture<Void> commit = zombie.commit(Map.of(tp, new OffsetAndMetadata(RECORDS)))
                    .doOnError(commitError::set).toFuture();

            successor.subscribe(List.of(topic));
            org.apache.kafka.common.TopicPartition officialTp = new org.apache.kafka.common.TopicPartition(topic, 0);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (!successor.assignment().contains(officialTp) && System.nanoTime() < deadline) {
                successor.poll(Duration.ofMillis(200)); // the broker fences the zombie after SESSION_MS
            }
            assertThat(successor.assignment()).as("the successor took the zombie's partition").contains(officialTp);
            successor.commitSync(Map.of(officialTp,
                    new org.apache.kafka.clients.consumer.OffsetAndMetadata(SUCCESSOR_OFFSET)));
            assertThat(commit).as("the zombie's commit is still in flight").isNotDone();

            proxy.blackHole(false); // the zombie's commit reaches the coordinator now
            GroupKit.await("the zombie's commit ended", Duration.ofSeconds(40), commit::isDone);
            // UNKNOWN_MEMBER_ID as a rule; STALE_MEMBER_EPOCH when a retry of the commit (after a request timeout
            // on the black-holed connection) reached the coordinator after the zombie had joined again under its
            // member id: both are CommitFailedException
            assertThat(commitError.get()).as("the zombie's commit fails typed")
                    .isInstanceOf(CommitFailedException.class);
            System.out.printf("FencedMemberCommitTest (Kafka %s): the zombie's commit failed: %s%n",
                    BrokerVersion.current().line(), commitError.get().getMessage());

            org.apache.kafka.clients.consumer.OffsetAndMetadata committed = kafka.admin()
                    .listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get(30, TimeUnit.SECONDS)
                    .get(officialTp);
            assertThat(committed).isNotNull();
            assertThat(committed.offset()).as("the successor's commit stands, nothing of the zombie's")
                    .isEqualTo(SUCCESSOR_OFFSET);
        } finally {
            receiving.dispose();
            zombie.close(Duration.ofSeconds(5)).onErrorResume(e -> reactor.core.publisher.Mono.empty())
                    .block(Duration.ofSeconds(20));
        }
    }
}
