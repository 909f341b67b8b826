package io.kflux.compat;

import static org.assertj.core.api.Assertions.assertThat;

import com.github.luben.zstd.Zstd;
import io.kflux.ConsumerOptions;
import io.kflux.Deserializers;
import io.kflux.KafkaFluxConsumer;
import io.kflux.compat.support.BrokerPluginClasses;
import io.kflux.compat.support.BrokerVersion;
import io.kflux.compat.support.GroupKit;
import io.kflux.compat.support.telemetryreceiver.RecordingTelemetryReceiver;
import io.kflux.test.broker.EmbeddedKafkaCluster;
import io.kflux.test.broker.SampleData;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.metrics.v1.MetricsData;
import java.io.ByteArrayInputStream;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import java.util.zip.GZIPInputStream;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;

/**
 * Client telemetry (KIP-714) against a real broker with a client-metrics subscription ({@code interval.ms=1000},
 * the consumer metrics, matching client ids {@code tele-match-.*}) and a receiver plugin ({@link
 * RecordingTelemetryReceiver}) in the forked broker: a matching kflux consumer pushes OTLP MetricsData at the
 * interval, named as the official consumer names them, and one terminating push on close; a consumer the
 * subscription does not match pushes nothing.
 */
class TelemetryPushTest {
    private static final String PREFIX = "org.apache.kafka.consumer.";
    private static EmbeddedKafkaCluster cluster;
    private static Path received;

    @BeforeAll
    static void start() throws Exception {
        received = Files.createTempFile("kflux-telemetry-", ".txt");
        cluster = EmbeddedKafkaCluster.builder()
                .classpath(BrokerVersion.current().classpath() + File.pathSeparator
                        + BrokerPluginClasses.packageOf(RecordingTelemetryReceiver.class))
                .brokerJvmArgs("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
                        "-D" + RecordingTelemetryReceiver.FILE_PROPERTY + "=" + received)
                .brokerProperty("metric.reporters", RecordingTelemetryReceiver.class.getName())
                .start();
        ConfigResource subscription = new ConfigResource(ConfigResource.Type.CLIENT_METRICS, "kflux-telemetry");
        cluster.admin().incrementalAlterConfigs(Map.of(subscription, List.of(
                new AlterConfigOp(new ConfigEntry("metrics", PREFIX), AlterConfigOp.OpType.SET),
                new AlterConfigOp(new ConfigEntry("interval.ms", "1000"), AlterConfigOp.OpType.SET),
                new AlterConfigOp(new ConfigEntry("match", "client_id=tele-match-.*"), AlterConfigOp.OpType.SET))))
                .all().get();
        // the broker answers subscriptions from its metadata: wait until it has this one
        GroupKit.await("the subscription in the broker's metadata", Duration.ofSeconds(30), () -> {
            try {
                return cluster.admin().describeConfigs(List.of(subscription)).all().get().get(subscription)
                        .get("interval.ms") != null;
            } catch (Exception e) {
                return false;
            }
        });
        cluster.createTopic("telemetry", 1, 1);
        SampleData.produce(cluster.bootstrapServers(), "telemetry", 20);
    }

    @AfterAll
    static void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    /** One push as the receiver recorded it. */
    record Push(long atMs, String clientId, String instanceId, boolean terminating, MetricsData data) {
        Set<String> names() {
            return data.getResourceMetricsList().stream().flatMap(r -> r.getScopeMetricsList().stream())
                    .flatMap(s -> s.getMetricsList().stream()).map(Metric::getName).collect(Collectors.toSet());
        }
    }

    private static List<Push> pushes(Predicate<String> clientId) {
        List<String> lines;
        try {
            lines = Files.readAllLines(received);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return lines.stream().map(l -> l.split(" ", 6))
                .filter(f -> f.length == 6 && clientId.test(f[1]))
                .map(f -> new Push(Long.parseLong(f[0]), f[1], f[2], Boolean.parseBoolean(f[3]),
                        decode(Base64.getDecoder().decode(f[5]))))
                .toList();
    }

    /** The broker hands the plugin the payload as the client compressed it or decompressed: read either. */
    private static MetricsData decode(byte[] bytes) {
        try {
            return MetricsData.parseFrom(bytes);
        } catch (IOException notPlain) {
            try {
                if (bytes.length > 1 && bytes[0] == (byte) 0x1f && bytes[1] == (byte) 0x8b) {
                    return MetricsData.parseFrom(new GZIPInputStream(new ByteArrayInputStream(bytes)).readAllBytes());
                }
                return MetricsData.parseFrom(Zstd.decompress(bytes, (int) Zstd.getFrameContentSize(bytes)));
            } catch (IOException e) {
                throw new AssertionError("a push that is no OTLP MetricsData", e);
            }
        }
    }

    private static Map<String, Object> props(String clientId, String group) {
        Map<String, Object> p = new HashMap<>();
        p.put("bootstrap.servers", cluster.bootstrapServers());
        p.put("client.id", clientId);
        p.put("group.id", group);
        p.put("auto.offset.reset", "earliest");
        return p;
    }

    @Test
    void aSubscribedConsumerPushesAtTheIntervalWithTheOfficialNamesAndATerminatingPushOnClose() {
        KafkaFluxConsumer<String, String> matching = KafkaFluxConsumer.create(ConsumerOptions.create(
                props("tele-match-kflux", "tele-g1"), Deserializers.string(), Deserializers.string())
                .subscription(List.of("telemetry")));
        KafkaFluxConsumer<String, String> unmatched = KafkaFluxConsumer.create(ConsumerOptions.create(
                props("tele-other-kflux", "tele-g2"), Deserializers.string(), Deserializers.string())
                .subscription(List.of("telemetry")));
        Disposable a = matching.receive().subscribe(r -> r.acknowledge());
        Disposable b = unmatched.receive().subscribe(r -> r.acknowledge());
        // the official consumer beside it, under the same subscription, for as long: the names kflux pushes are among its
        Map<String, Object> official = props("tele-match-official", "tele-g3");
        official.put("key.deserializer", StringDeserializer.class.getName());
        official.put("value.deserializer", StringDeserializer.class.getName());
        try (KafkaConsumer<String, String> o = new KafkaConsumer<>(official)) {
            o.subscribe(List.of("telemetry"));
            GroupKit.await("three pushes of kflux and two of the official consumer", Duration.ofSeconds(60), () -> {
                o.poll(Duration.ofMillis(100));
                return pushes("tele-match-kflux"::equals).size() >= 3
                        && pushes("tele-match-official"::equals).stream().filter(p -> !p.names().isEmpty()).count() >= 2;
            });
        }
        Set<String> officialNames = pushes("tele-match-official"::equals).stream().flatMap(p -> p.names().stream())
                .collect(Collectors.toSet());
        a.dispose();
        matching.close().block(Duration.ofSeconds(30));
        GroupKit.await("kflux's terminating push", Duration.ofSeconds(30),
                () -> pushes("tele-match-kflux"::equals).stream().anyMatch(Push::terminating));
        b.dispose();
        unmatched.close().block(Duration.ofSeconds(30));

        List<Push> kflux = pushes("tele-match-kflux"::equals);
        assertThat(kflux).extracting(Push::instanceId).as("one client instance id").containsOnly(kflux.get(0).instanceId());
        assertThat(kflux.get(kflux.size() - 1).terminating()).as("the terminating push is the last one").isTrue();
        assertThat(kflux).filteredOn(Push::terminating).hasSize(1);
        for (int i = 1; i < kflux.size() - 1; i++) { // the terminating push goes out at close, not at the interval
            assertThat(kflux.get(i).atMs() - kflux.get(i - 1).atMs()).as("gap before push %d", i).isGreaterThanOrEqualTo(500);
        }
        Set<String> names = kflux.stream().flatMap(p -> p.names().stream()).collect(Collectors.toSet());
        assertThat(names).allMatch(n -> n.startsWith(PREFIX))
                .contains(PREFIX + "fetch.manager.fetch.total", PREFIX + "request.total", PREFIX + "connection.count");
        assertThat(officialNames).as("the official consumer's pushed names").isNotEmpty();
        assertThat(officialNames).containsAll(names.stream().filter(n -> !n.contains(".node.")).toList());
        assertThat(pushes(id -> id.startsWith("tele-other"))).as("a consumer the subscription does not match").isEmpty();
    }

    /**
     * Under {@code group.protocol=consumer} as under classic, and one client instance id across two {@code receive()}
     * calls of one consumer (KIP-714: one id for a client's lifetime; each call ends with its terminating push).
     */
    @Test
    void oneInstanceIdAcrossReceiveCallsUnderTheConsumerProtocol() {
        Map<String, Object> p = props("tele-match-848", "tele-g4");
        p.put("group.protocol", "consumer");
        KafkaFluxConsumer<String, String> consumer = KafkaFluxConsumer.create(ConsumerOptions.create(
                p, Deserializers.string(), Deserializers.string()).subscription(List.of("telemetry")));
        try {
            for (int call = 1; call <= 2; call++) {
                int before = pushes("tele-match-848"::equals).size();
                Disposable d = consumer.receive().subscribe(r -> r.acknowledge());
                GroupKit.await("a push with metrics from receive() call " + call, Duration.ofSeconds(60),
                        () -> pushes("tele-match-848"::equals).stream().skip(before)
                                .anyMatch(push -> !push.terminating() && !push.names().isEmpty()));
                d.dispose();
                GroupKit.await("the terminating push of receive() call " + call, Duration.ofSeconds(30),
                        () -> pushes("tele-match-848"::equals).stream().skip(before).anyMatch(Push::terminating));
            }
        } finally {
            consumer.close().block(Duration.ofSeconds(30));
        }
        List<Push> all = pushes("tele-match-848"::equals);
        assertThat(all).extracting(Push::instanceId).as("one client instance id").containsOnly(all.get(0).instanceId());
        assertThat(all).filteredOn(Push::terminating).as("one terminating push per receive() call").hasSize(2);
        assertThat(all.stream().flatMap(push -> push.names().stream())).allMatch(n -> n.startsWith(PREFIX))
                .contains(PREFIX + "fetch.manager.fetch.total");
    }
}
