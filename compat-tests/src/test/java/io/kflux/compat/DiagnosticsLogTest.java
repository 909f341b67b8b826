package io.kflux.compat;

import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.ConsumerOptions;
import io.kflux.ConsumerRecord;
import io.kflux.Deserializers;
import io.kflux.KafkaFluxConsumer;
import io.kflux.test.KafkaTest;
import io.kflux.compat.support.Kflux;
import io.kflux.compat.support.LogCapture;
import io.kflux.test.broker.EmbeddedKafkaCluster;
import io.kflux.test.broker.SampleData;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.core.Disposable;

/**
 * What kflux says when something is wrong, asserted on the captured log: an unreachable or unresolvable broker (with
 * the reason and the address as written), a subscribed topic that does not exist, a record that holds commits
 * back, and the client id and group on every line of two consumers in one JVM, each event logged once.
 */
@KafkaTest(nodes = 1)
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class DiagnosticsLogTest {
    private static final Duration WAIT = Duration.ofSeconds(20);

    private static List<LogCapture.Line> await(LogCapture log, Predicate<LogCapture.Line> match, int count)
            throws InterruptedException {
        return log.await(match, count, WAIT);
    }

    private static KafkaFluxConsumer<String, String> subscriber(Map<String, Object> props, String topic) {
        return KafkaFluxConsumer.create(ConsumerOptions.create(props, Deserializers.string(), Deserializers.string())
                .subscription(List.of(topic)));
    }

    @Test
    void aRefusedAndAnUnresolvableBootstrapServerAreReportedWithTheReasonAndTheAddressAsWritten() throws Exception {
        int closedPort;
        try (ServerSocket s = new ServerSocket(0)) {
            closedPort = s.getLocalPort();
        }
        String refused = "127.0.0.1:" + closedPort;
        String unresolvable = "no-such-broker.invalid:9092";
        try (LogCapture log = new LogCapture("io.kflux")) {
            KafkaFluxConsumer<String, String> consumer = subscriber(Kflux.props(refused + "," + unresolvable,
                    "group.id", "diag-unreachable", "client.id", "diag-unreachable-client",
                    "reconnect.backoff.max.ms", 200), "t");
            Disposable receiving = consumer.receive().subscribe(r -> { }, e -> { });
            try {
                LogCapture.Line refusedLine = await(log, l -> l.level().equals("WARN")
                        && l.message().contains(refused), 1).get(0);
                assertThat(refusedLine.message()).contains("connection refused").doesNotContain("<unresolved>");
                assertThat(refusedLine.context()).containsEntry("kflux.client.id", "diag-unreachable-client")
                        .containsEntry("kflux.group.id", "diag-unreachable");
                LogCapture.Line unresolvableLine = await(log, l -> l.level().equals("WARN")
                        && l.message().contains(unresolvable), 1).get(0);
                assertThat(unresolvableLine.message()).contains("does not resolve").doesNotContain("<unresolved>");
                // rate-limited per broker: the backoff allows ~5 attempts a second, far fewer WARNs are written
                Thread.sleep(3000);
                assertThat(log.lines().stream().filter(l -> l.level().equals("WARN")
                        && l.message().contains(refused))).hasSizeLessThanOrEqualTo(2);
            } finally {
                receiving.dispose();
                consumer.close().block(WAIT);
            }
        }
    }

    @Test
    void aSubscribedTopicThatDoesNotExistIsReportedRepeatedly(EmbeddedKafkaCluster kafka) throws Exception {
        try (LogCapture log = new LogCapture("io.kflux")) {
            KafkaFluxConsumer<String, String> consumer = subscriber(Kflux.props(kafka.bootstrapServers(),
                    "group.id", "diag-missing", "allow.auto.create.topics", false), "no-such-topic");
            Disposable receiving = consumer.receive().subscribe(r -> { }, e -> { });
            try {
                List<LogCapture.Line> warned = await(log, l -> l.level().equals("WARN")
                        && l.message().contains("[no-such-topic] do not exist"), 2);
                assertThat(warned.get(0).context()).containsEntry("kflux.group.id", "diag-missing");
            } finally {
                receiving.dispose();
                consumer.close().block(WAIT);
            }
        }
    }

    @Test
    void aRecordNeverAcknowledgedWhileLaterOnesWereIsReportedWithItsPartitionAndOffset(EmbeddedKafkaCluster kafka)
            throws Exception {
        kafka.createTopic("held", 1, 1);
        SampleData.produce(kafka.bootstrapServers(), "held", 20);
        try (LogCapture log = new LogCapture("io.kflux")) {
            KafkaFluxConsumer<String, String> consumer = subscriber(Kflux.props(kafka.bootstrapServers(),
                    "group.id", "diag-held", "max.poll.interval.ms", 1500, "auto.commit.interval.ms", 200), "held");
            // the filter drops offset 5 without acknowledging it: the committed offset cannot pass 5
            Disposable receiving = consumer.receive().filter(r -> r.offset() != 5)
                    .subscribe(ConsumerRecord::acknowledge, e -> { });
            try {
                LogCapture.Line line = await(log, l -> l.level().equals("WARN")
                        && l.message().contains("commits of held-0 are held back at offset 5"), 1).get(0);
                assertThat(line.message()).contains("14 later records");
                assertThat(line.context()).containsEntry("kflux.group.id", "diag-held");
            } finally {
                receiving.dispose();
                consumer.close().block(WAIT);
            }
        }
    }

    @Test
    void everyLineOfTwoConsumersCarriesItsClientIdAndGroupAndTheAssignmentIsLoggedOnce(EmbeddedKafkaCluster kafka)
            throws Exception {
        kafka.createTopic("two", 2, 1);
        SampleData.produce(kafka.bootstrapServers(), "two", 10);
        try (LogCapture log = new LogCapture("io.kflux")) {
            KafkaFluxConsumer<String, String> a = subscriber(Kflux.props(kafka.bootstrapServers(),
                    "group.id", "diag-two", "client.id", "member-a"), "two");
            KafkaFluxConsumer<String, String> b = subscriber(Kflux.props(kafka.bootstrapServers(),
                    "group.id", "diag-two", "client.id", "member-b"), "two");
            Disposable ra = a.receive().subscribe(ConsumerRecord::acknowledge, e -> { });
            await(log, l -> l.message().contains("assigned"), 1);
            Disposable rb = b.receive().subscribe(ConsumerRecord::acknowledge, e -> { });
            try {
                await(log, l -> l.context().getOrDefault("kflux.client.id", "").equals("member-b")
                        && l.message().contains("assigned ["), 1);
                await(log, l -> l.context().getOrDefault("kflux.client.id", "").equals("member-a")
                        && l.message().contains("assigned [") && l.message().contains("generation 2"), 1);
            } finally {
                ra.dispose();
                rb.dispose();
                a.close().block(WAIT);
                b.close().block(WAIT);
            }
            List<LogCapture.Line> lines = log.lines();
            assertThat(lines).isNotEmpty().allSatisfy(l -> {
                assertThat(l.context().get("kflux.client.id")).as("client id of %s", l).isIn("member-a", "member-b");
                assertThat(l.context()).as("group of %s", l).containsEntry("kflux.group.id", "diag-two");
            });
            for (String client : List.of("member-a", "member-b")) {
                List<String> assigned = lines.stream()
                        .filter(l -> l.context().get("kflux.client.id").equals(client) && l.message().contains("assigned"))
                        .map(LogCapture.Line::message).toList();
                assertThat(assigned).as("assignment lines of %s", client).doesNotHaveDuplicates();
                long joins = lines.stream().filter(l -> l.context().get("kflux.client.id").equals(client)
                        && l.message().contains("joined generation")).count();
                assertThat(assigned).as("one assignment line per generation joined").hasSize((int) joins);
            }
        }
    }
}
