package io.kflux.compat;

import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.TopicPartition;
import io.kflux.compat.support.ContinuousProducer;
import io.kflux.compat.support.GroupMember;
import io.kflux.compat.support.GroupMember.Blocking;
import io.kflux.compat.support.GroupMember.Emission;
import io.kflux.test.KafkaTest;
import io.kflux.compat.support.Kflux;
import io.kflux.compat.support.LogCapture;
import io.kflux.test.broker.EmbeddedKafkaCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.ObjIntConsumer;
import org.apache.kafka.clients.admin.TopicDescription;
import java.util.Properties;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.common.TopicPartitionInfo;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The broker that is the group coordinator goes away while two kflux consumers of the group consume a replicated
 * topic under continuous production: the members find the new coordinator, keep their partitions (no rebalance),
 * go on fetching the partitions whose leader is alive while they look for it, and nothing is lost.
 */
@KafkaTest(nodes = 3, isolated = true) // stops or kills the coordinator
class ConsumerCoordinatorFailoverTest {

    private static final int PARTITIONS = 6;
    private static final int BACKLOG = 9_000;
    private static final int PACE = 200;
    private static final int PARTITION_FETCH_BYTES = 2_048;
    private static final String PADDING = "x".repeat(100);

    /** How the coordinator's broker goes away. */
    enum Fault {
        /**
         * SIGTERM: controlled shutdown, leadership and the coordinator move at once: the coordinator is unknown too
         * briefly to tell fetching from draining a buffer, so this run does not check fetching in that window.
         */
        STOP(EmbeddedKafkaCluster::stop, false),
        /**
         * SIGKILL: the coordinator is unavailable until the controller fences the node (6 s here), long enough that
         * what the members emit meanwhile must have been fetched meanwhile: checked in every run.
         */
        KILL(EmbeddedKafkaCluster::kill, true);

        final ObjIntConsumer<EmbeddedKafkaCluster> apply;
        /** Whether the coordinator stays unknown long enough (over {@link #TELLING_WINDOW}) to check fetching. */
        final boolean longUnknown;

        Fault(ObjIntConsumer<EmbeddedKafkaCluster> apply, boolean longUnknown) {
            this.apply = apply;
            this.longUnknown = longUnknown;
        }
    }

    /** A coordinator-unknown window longer than this outlasts what a member can have buffered at {@link #PACE}. */
    private static final Duration TELLING_WINDOW = Duration.ofSeconds(2);

    @ParameterizedTest
    @EnumSource(Fault.class)
    void consumersRediscoverTheCoordinatorAndLoseNothing(Fault fault, EmbeddedKafkaCluster kafka) throws Exception {
        String topic = "failover-" + fault.name().toLowerCase();
        String group = topic + "-group";
        kafka.createTopic(topic, PARTITIONS, 3);
        // A backlog in small batches, consumed at a limited pace with small fetches: records flow while the coordinator
        // is away even though a crash holds back the high watermarks (a killed follower stays in the ISR until it is
        // fenced), and kflux can buffer only a little of it (at most two fetch results of max.partition.fetch.bytes
        // per partition), so what it emits while the coordinator is unknown must have been fetched meanwhile.
        Set<String> produced = new HashSet<>(backlog(kafka, topic));
        Map<String, Object> props = Kflux.props(kafka.bootstrapServers(),
                "group.id", group,
                "session.timeout.ms", 10_000,
                "heartbeat.interval.ms", 500,
                "auto.commit.interval.ms", 500,
                "max.partition.fetch.bytes", PARTITION_FETCH_BYTES,
                "fetch.max.bytes", 4 * PARTITION_FETCH_BYTES);
        int coordinator = -1;
        try (ContinuousProducer producer = new ContinuousProducer(kafka.bootstrapServers(), topic, PARTITIONS, 100, "c");
             GroupMember a = new GroupMember("a", props, topic, Blocking.STOP_REQUESTING);
             GroupMember b = new GroupMember("b", props, topic, Blocking.STOP_REQUESTING);
             LogCapture logs = new LogCapture("io.kflux")) {
            a.pace(PACE);
            b.pace(PACE);
            a.start();
            b.start();
            await(Duration.ofSeconds(30), "both members to consume 3 partitions each", () -> a.assignment().size() == 3
                    && b.assignment().size() == 3 && a.emitted() > 100 && b.emitted() > 100);
            coordinator = GroupLivenessTest.describe(kafka, group).coordinator().id();
            Map<TopicPartition, Integer> leaders = leaders(kafka, topic);
            int generation = a.generation();
            assertThat(b.generation()).isEqualTo(generation);
            Set<TopicPartition> aOwned = a.assignment();
            Set<TopicPartition> bOwned = b.assignment();
            int aEvents = a.events().size();
            int bEvents = b.events().size();
            String prefix = "[group " + group + "] ";

            long faultAt = System.nanoTime();
            fault.apply.accept(kafka, coordinator);
            long faultDone = System.nanoTime();
            int old = coordinator;
            await(Duration.ofSeconds(60), "both members to find the new coordinator", () -> logs.matching(m ->
                    m.startsWith(prefix + "discovered group coordinator") && !m.contains("(node " + old + ")"))
                    .size() >= 2);
            List<LogCapture.Line> lost = logs.matching(m -> m.startsWith(prefix) && m.contains("is unavailable"));
            List<LogCapture.Line> found = logs.matching(m -> m.startsWith(prefix + "discovered group coordinator")
                    && !m.contains("(node " + old + ")"));
            assertThat(lost).as("coordinator loss seen by the members").isNotEmpty();
            long windowStart = lost.get(0).nanos();
            long windowEnd = found.get(found.size() - 1).nanos();
            int newCoordinator = GroupLivenessTest.describe(kafka, group).coordinator().id();
            assertThat(newCoordinator).isNotEqualTo(coordinator);

            Set<TopicPartition> aliveLed = new HashSet<>();
            leaders.forEach((tp, leader) -> {
                if (leader != old) {
                    aliveLed.add(tp);
                }
            });
            Map<String, Map<TopicPartition, Integer>> inWindow = new HashMap<>();
            for (GroupMember m : List.of(a, b)) {
                Map<TopicPartition, Integer> bytes = new java.util.TreeMap<>(java.util.Comparator.comparingInt(
                        TopicPartition::partition));
                for (Emission e : m.emissions()) {
                    if (e.nanos() >= windowStart && e.nanos() <= windowEnd) {
                        bytes.merge(e.partition(), e.bytes(), Integer::sum);
                    }
                }
                inWindow.put(m.name(), bytes);
            }
            System.out.printf("%s of node %d took %d ms; coordinator unknown for %d ms (%s); key+value "
                            + "bytes emitted meanwhile per partition: %s; partitions led by live nodes: %s%n", fault, old,
                    (faultDone - faultAt) / 1_000_000, (windowEnd - windowStart) / 1_000_000,
                    lost.stream().map(LogCapture.Line::message).toList(), inWindow, aliveLed);
            if (fault.longUnknown) {
                // the scenario makes the window long (fencing takes 6 s); a shorter one fails here, not silently
                assertThat(Duration.ofNanos(windowEnd - windowStart)).as("coordinator unknown after a SIGKILL")
                        .isGreaterThan(TELLING_WINDOW);
                // Long enough to tell: each member emitted more of a partition led by a live node than it can have
                // buffered when the coordinator went away, so it went on fetching it meanwhile.
                for (GroupMember m : List.of(a, b)) {
                    assertThat(inWindow.get(m.name())).as(m.name() + ": key+value bytes emitted per partition while "
                            + "the coordinator was unknown").anySatisfy((tp, bytes) -> {
                                assertThat(aliveLed).contains(tp);
                                assertThat(bytes).isGreaterThan(3 * PARTITION_FETCH_BYTES);
                            });
                }
            }

            // the members kept their generation: no callback, same partitions, commits accepted by the new coordinator
            Thread.sleep(3_000);
            assertThat(a.events()).as("a's rebalance callbacks").hasSize(aEvents);
            assertThat(b.events()).as("b's rebalance callbacks").hasSize(bEvents);
            assertThat(a.assignment()).isEqualTo(aOwned);
            assertThat(b.assignment()).isEqualTo(bOwned);
            a.consumer().commit().block(Duration.ofSeconds(30));
            b.consumer().commit().block(Duration.ofSeconds(30));

            a.pace(0);
            b.pace(0);
            produced.addAll(producer.stop());
            assertThat(producer.failed()).as("failed sends (%s)", producer.firstFailure()).isZero();
            await(Duration.ofSeconds(60), "every produced record to be consumed", () -> {
                Set<String> all = new HashSet<>(a.processed());
                all.addAll(b.processed());
                return all.containsAll(produced);
            });
            assertThat(a.error()).isNull();
            assertThat(b.error()).isNull();
        } finally {
            if (coordinator > 0 && !kafka.isRunning(coordinator)) {
                kafka.start(coordinator);
            }
        }
    }

    private static List<String> backlog(EmbeddedKafkaCluster kafka, String topic) {
        List<String> values = new ArrayList<>();
        Properties props = new Properties();
        props.put("bootstrap.servers", kafka.bootstrapServers());
        props.put("acks", "all");
        props.put("batch.size", "1024"); // small batches: a fetch of max.partition.fetch.bytes holds few records
        props.put("linger.ms", "5");
        // not idempotent, as ContinuousProducer (see there): an idempotent producer's first batch to a just-created
        // partition that meets NOT_LEADER_OR_FOLLOWER can retry OUT_OF_ORDER_SEQUENCE_NUMBER until its delivery
        // timeout (seen here: two minutes, then the backlog's sends failed unnoticed and the test waited for them)
        props.put("enable.idempotence", "false");
        props.put("max.in.flight.requests.per.connection", "1");
        List<java.util.concurrent.Future<?>> sends = new ArrayList<>();
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(props, new StringSerializer(),
                new StringSerializer())) {
            for (int i = 0; i < BACKLOG; i++) {
                String value = "b" + i + "-" + PADDING;
                sends.add(producer.send(new ProducerRecord<>(topic, i % PARTITIONS, "key-" + i, value)));
                values.add(value);
            }
            producer.flush();
            for (java.util.concurrent.Future<?> send : sends) {
                try {
                    send.get(); // a backlog send that failed would make the test wait for a record never written
                } catch (Exception e) {
                    throw new IllegalStateException("a backlog record was not written", e);
                }
            }
        }
        return values;
    }

    private static Map<TopicPartition, Integer> leaders(EmbeddedKafkaCluster kafka, String topic) throws Exception {
        TopicDescription d = kafka.admin().describeTopics(List.of(topic)).allTopicNames().get(10, TimeUnit.SECONDS)
                .get(topic);
        Map<TopicPartition, Integer> out = new HashMap<>();
        for (TopicPartitionInfo p : d.partitions()) {
            out.put(new TopicPartition(topic, p.partition()), p.leader().id());
        }
        return out;
    }

    private static void await(Duration timeout, String what, BooleanSupplier condition) throws InterruptedException {
        GroupLivenessTest.await(timeout, what, condition);
    }
}
