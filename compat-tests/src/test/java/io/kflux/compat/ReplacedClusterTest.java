package io.kflux.compat;

import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.ConsumerOptions;
import io.kflux.Deserializers;
import io.kflux.KafkaFluxConsumer;
import io.kflux.compat.support.BrokerVersion;
import io.kflux.compat.support.FaultProxy;
import io.kflux.compat.support.GroupKit;
import io.kflux.compat.support.Kflux;
import io.kflux.compat.support.LogCapture;
import io.kflux.test.broker.EmbeddedKafkaCluster;
import io.kflux.test.broker.SampleData;
import java.io.IOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.IntStream;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import reactor.core.Disposable;

/**
 * The whole cluster replaced behind the same bootstrap address (KIP-899, KIP-1102, KIP-1242): a one-broker cluster
 * A is stopped and a new cluster B, on other ports, takes its place behind a {@link FaultProxy} that
 * {@code bootstrap.servers} names ({@link FaultProxy#retarget}, as a load balancer or a DNS name would). kflux
 * (manual assignment) consumed A's records, and must consume B's without a restart, within the rebootstrap trigger
 * plus a metadata round trip (bound generous for a loaded machine; the measured time is printed).
 *
 * <p>In {@link #anotherClusterAtAKnownBrokersAddress} the known broker's own address is the reused one: on a 4.4
 * broker the connection meant for node 1 of A is refused (ApiVersions v5, REBOOTSTRAP_REQUIRED) with a WARN naming
 * A, and a second WARN names both clusters; before 4.4 the broker of B serves it unchecked, as before.
 *
 * <p>Not in the smoke runs against older brokers: it starts two clusters per test (about 40 s a version), and before
 * 4.4 a connection to a known broker is not checked at all (its brokers announce no ApiVersions v5, so none is asked;
 * ClusterCheckTest covers the refusal of a v5 by an older broker). Run it on 4.2 with
 * {@code -Dkflux.broker.version=4.2} (passed there).
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class ReplacedClusterTest {
    private static final long TRIGGER_MS = 10_000;
    private static final Duration RESUME_BOUND = Duration.ofMillis(TRIGGER_MS).plusSeconds(50);

    private FaultProxy proxy;
    private EmbeddedKafkaCluster clusterA;
    private EmbeddedKafkaCluster clusterB;
    private KafkaFluxConsumer<String, String> consumer;
    private Disposable subscription;
    private final Set<String> consumed = ConcurrentHashMap.newKeySet();
    private final AtomicReference<Throwable> ended = new AtomicReference<>();

    @AfterEach
    void stop() throws IOException {
        if (subscription != null) {
            subscription.dispose();
        }
        if (consumer != null) {
            consumer.close(Duration.ofSeconds(5)).onErrorResume(e -> reactor.core.publisher.Mono.empty())
                    .block(Duration.ofSeconds(20));
        }
        for (EmbeddedKafkaCluster c : new EmbeddedKafkaCluster[]{clusterA, clusterB}) {
            if (c != null) {
                c.close();
            }
        }
        if (proxy != null) {
            proxy.close();
        }
    }

    private static EmbeddedKafkaCluster.Builder broker() {
        return EmbeddedKafkaCluster.builder()
                .classpath(BrokerVersion.current().classpath())
                .brokerJvmArgs("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC");
    }

    /** A broker with an extra listener on {@code port}, advertised as the proxy's address. */
    private EmbeddedKafkaCluster.Builder brokerAdvertisedAsProxy(int port) {
        return broker()
                .brokerProperty("listeners", "PLAINTEXT://127.0.0.1:${port},CONTROLLER://127.0.0.1:${controllerPort},"
                        + "FAULTY://127.0.0.1:" + port)
                .brokerProperty("advertised.listeners", "PLAINTEXT://127.0.0.1:${port},FAULTY://" + proxy.address())
                .brokerProperty("listener.security.protocol.map",
                        "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT,FAULTY:PLAINTEXT");
    }

    private static int port(EmbeddedKafkaCluster cluster) {
        String s = cluster.bootstrapServers();
        return Integer.parseInt(s.substring(s.lastIndexOf(':') + 1));
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    private static Set<String> produce(EmbeddedKafkaCluster cluster, String topic, String prefix, int count)
            throws Exception {
        try (KafkaProducer<String, String> producer = SampleData.producer(cluster.bootstrapServers())) {
            for (int i = 0; i < count; i++) {
                producer.send(new ProducerRecord<>(topic, 0, "k" + i, prefix + i)).get(30, TimeUnit.SECONDS);
            }
        }
        return Set.copyOf(IntStream.range(0, count).mapToObj(i -> prefix + i).toList());
    }

    private Map<String, Object> props(String topic) {
        return Kflux.props(proxy.address(), "client.id", topic,
                "metadata.recovery.rebootstrap.trigger.ms", TRIGGER_MS, "request.timeout.ms", 5_000,
                "reconnect.backoff.ms", 50, "reconnect.backoff.max.ms", 1_000, "retry.backoff.ms", 100,
                "retry.backoff.max.ms", 1_000, "fetch.max.wait.ms", 500);
    }

    private void consume(String topic) {
        consume(Kflux.strings(props(topic), Kflux.partitions(topic, 1)));
    }

    private void consume(KafkaFluxConsumer<String, String> c) {
        consumer = c;
        subscription = consumer.receive()
                .doOnNext(r -> {
                    consumed.add(r.value());
                    r.acknowledge();
                })
                .subscribe(r -> { }, ended::set, () -> ended.set(new AssertionError("receive() completed")));
    }

    /** Waits until every one of {@code values} was consumed; returns how long it took, in ms. */
    private long awaitConsumed(Set<String> values, Duration within) throws InterruptedException {
        long start = System.nanoTime();
        long deadline = start + within.toNanos();
        while (!consumed.containsAll(values) && System.nanoTime() < deadline) {
            assertThat(ended.get()).as("receive() must not end while the cluster is replaced").isNull();
            Thread.sleep(50);
        }
        assertThat(consumed).as("consumed within %s", within).containsAll(values);
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    }

    /**
     * Cluster A stopped; cluster B created, its topic filled, then the proxy sent to B's listener on {@code port}
     * (0: B's own PLAINTEXT port).
     */
    private Set<String> replaceWith(EmbeddedKafkaCluster.Builder b, int port, String topic) throws Exception {
        clusterA.close();
        clusterA = null;
        clusterB = b.start();
        clusterB.createTopic(topic, 1, 1);
        Set<String> fromB = produce(clusterB, topic, "b-", 3); // fewer than A had: the old position is out of range
        proxy.retarget(port == 0 ? port(clusterB) : port);
        return fromB;
    }

    @Test
    void aClusterReplacedBehindTheBootstrapAddressIsFoundAgain() throws Exception {
        String topic = "replaced-bootstrap";
        clusterA = broker().start();
        proxy = new FaultProxy(port(clusterA));
        clusterA.createTopic(topic, 1, 1);
        Set<String> fromA = produce(clusterA, topic, "a-", 5);
        consume(topic);
        awaitConsumed(fromA, Duration.ofSeconds(60));

        Set<String> fromB = replaceWith(broker(), 0, topic);

        long tookMs = awaitConsumed(fromB, RESUME_BOUND);
        System.out.printf("ReplacedClusterTest (Kafka %s): cluster B consumed %d ms after the bootstrap address "
                + "led to it (trigger %d ms)%n", BrokerVersion.current().line(), tookMs, TRIGGER_MS);
        assertThat(ended.get()).isNull();
    }

    /**
     * The same replacement under a group, each protocol: the group and its commits are gone with cluster A, so the
     * member finds cluster B's coordinator, which does not know it (UNKNOWN_MEMBER_ID), joins again, is assigned the
     * partition anew and, with no committed offset in B, starts at {@code auto.offset.reset} (earliest here).
     * {@code receive()} does not end; B's records are consumed within the same bound as above, and the commits land
     * in B (read back with the official Admin).
     */
    @ParameterizedTest(name = "group.protocol={0}")
    @ValueSource(strings = {"classic", "consumer"})
    void aGroupMemberFindsItsGroupAgainInTheReplacedCluster(String protocol) throws Exception {
        Assumptions.assumeTrue(protocol.equals("classic") || BrokerVersion.current().atLeast(4, 0),
                "group.protocol=consumer needs a 4.0+ broker, this is " + BrokerVersion.current().full());
        String topic = "replaced-group-" + protocol;
        String group = topic + "-group";
        clusterA = broker().start();
        proxy = new FaultProxy(port(clusterA));
        clusterA.createTopic(topic, 1, 1);
        Set<String> fromA = produce(clusterA, topic, "a-", 5);
        Map<String, Object> props = props(topic);
        props.put("group.id", group);
        props.put("group.protocol", protocol);
        props.put("auto.commit.interval.ms", 200);
        consume(KafkaFluxConsumer.create(ConsumerOptions.create(props, Deserializers.string(), Deserializers.string())
                .subscription(List.of(topic))));
        awaitConsumed(fromA, Duration.ofSeconds(60));

        Set<String> fromB = replaceWith(broker(), 0, topic);

        long tookMs = awaitConsumed(fromB, RESUME_BOUND);
        System.out.printf("ReplacedClusterTest (Kafka %s, %s group): cluster B consumed %d ms after the bootstrap "
                + "address led to it (trigger %d ms)%n", BrokerVersion.current().line(), protocol, tookMs, TRIGGER_MS);
        assertThat(ended.get()).isNull();
        TopicPartition tp = new TopicPartition(topic, 0);
        GroupKit.await("the group's commit in cluster B", Duration.ofSeconds(30), () -> {
            try {
                OffsetAndMetadata committed = clusterB.admin().listConsumerGroupOffsets(group)
                        .partitionsToOffsetAndMetadata().get(10, TimeUnit.SECONDS).get(tp);
                return committed != null && committed.offset() == fromB.size();
            } catch (Exception e) {
                return false;
            }
        });
    }

    @Test
    void anotherClusterAtAKnownBrokersAddress() throws Exception {
        String topic = "replaced-known-address";
        proxy = FaultProxy.onFreePort();
        try (LogCapture log = new LogCapture("io.kflux")) {
            clusterA = proxy.brokerBehind().start();
            String clusterIdA = clusterA.clusterId();
            clusterA.createTopic(topic, 1, 1);
            Set<String> fromA = produce(clusterA, topic, "a-", 5);
            consume(topic);
            awaitConsumed(fromA, Duration.ofSeconds(60));

            int portB = freePort();
            Set<String> fromB = replaceWith(brokerAdvertisedAsProxy(portB), portB, topic);
            String clusterIdB = clusterB.clusterId();

            long tookMs = awaitConsumed(fromB, RESUME_BOUND);
            System.out.printf("ReplacedClusterTest (Kafka %s): cluster B at node 1's address consumed after %d ms%n",
                    BrokerVersion.current().line(), tookMs);
            List<LogCapture.Line> refused = log.lines().stream()
                    .filter(l -> l.message().contains("REBOOTSTRAP_REQUIRED (KIP-1242)")).toList();
            if (BrokerVersion.current().line().equals("4.4")) {
                assertThat(refused).as("WARN of the refused connection")
                        .anySatisfy(l -> {
                            assertThat(l.level()).isEqualTo("WARN");
                            assertThat(l.message()).contains("is not node 1 of cluster " + clusterIdA)
                                    .contains(":" + proxy.port());
                        });
                assertThat(log.lines()).as("WARN naming both clusters").anySatisfy(l -> {
                    assertThat(l.level()).isEqualTo("WARN");
                    assertThat(l.message()).contains("cluster " + clusterIdB + ", not cluster " + clusterIdA);
                });
            } else {
                assertThat(refused).as("brokers before 4.4 check nothing").isEmpty();
            }
            assertThat(ended.get()).isNull();
        }
    }
}
