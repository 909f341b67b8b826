package io.kflux.compat;

import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.TopicPartition;
import io.kflux.compat.support.ContinuousProducer;
import io.kflux.compat.support.FaultProxy;
import io.kflux.compat.support.GroupKit;
import io.kflux.compat.support.GroupMember;
import io.kflux.compat.support.GroupMember.Emission;
import io.kflux.compat.support.GroupMember.Event;
import io.kflux.test.broker.EmbeddedKafkaCluster;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Issue #15, "the backlog is emitted under an expired session": a member cut off from its coordinator (a
 * {@link FaultProxy} black hole on every one of its connections, longer than the session timeout) while a second
 * member, connected directly, takes its partitions. Once {@code session.timeout.ms} passed without an answer, the cut-off
 * member must stop emitting: nothing of its partitions is emitted any more (neither what it had buffered, nor the
 * backlog once the network is back), no commit of them; {@code onPartitionsLost} is called once the coordinator, back,
 * says the member is gone (or after a second session timeout without an answer, whichever comes first; a member
 * whose coordinator only moved keeps its partitions, see {@code GroupFaultTest}); it rejoins when the coordinator
 * answers again. The records both members consumed stay within about one auto-commit interval of the
 * cut-off member's partitions. Under both group protocols; under {@code consumer} the member is told the broker's
 * session timeout through {@code session.timeout.ms} (KIP-848 does not send it).
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class SessionExpiryTest {
    private static final int PARTITIONS = 4;
    private static final int PER_SECOND = 400;
    private static final int SESSION_MS = 10_000;
    private static final int AUTO_COMMIT_MS = 500;
    /** The member's session check fires at its deadline; this covers scheduling and the listener hop. */
    private static final long MARGIN_MS = 1_000;
    /** How long past the session timeout the member stays cut off: the backlog it must not emit builds up. */
    private static final long CUT_OFF_PAST_SESSION_MS = 6_000;
    /** {@code max.poll.interval.ms}, the rebalance timeout: kflux's JoinGroup times out 5 s after it. */
    private static final int REBALANCE_MS = 30_000;
    private static final int JOIN_GROUP_API_KEY = 11;
    private static final int HEARTBEAT_API_KEY = 12;

    private static FaultProxy proxy;
    private static EmbeddedKafkaCluster kafka;
    private final List<GroupMember> members = new ArrayList<>();

    @BeforeAll
    static void startBrokerBehindProxy() throws IOException {
        proxy = FaultProxy.onFreePort();
        kafka = GroupKit.consumerGroupTimings(proxy.brokerBehind(), SESSION_MS).start();
    }

    @AfterAll
    static void stop() throws IOException {
        FaultProxy.closeBoth(kafka, proxy);
    }

    @AfterEach
    void closeMembers() {
        proxy.heal();
        members.forEach(GroupMember::close);
        members.clear();
    }

    private GroupMember member(String name, String protocol, String bootstrap, String groupId, String topic) {
        return member(name, protocol, "range", bootstrap, groupId, topic);
    }

    private GroupMember member(String name, String protocol, String assignor, String bootstrap, String groupId,
                               String topic, Object... extra) {
        Map<String, Object> props = GroupKit.protocolProps(protocol, bootstrap, groupId, assignor,
                "client.id", name, "session.timeout.ms", SESSION_MS, "auto.commit.interval.ms", AUTO_COMMIT_MS,
                "request.timeout.ms", 5_000, "fetch.max.wait.ms", 500, "reconnect.backoff.ms", 50,
                "reconnect.backoff.max.ms", 1_000, "retry.backoff.ms", 100, "max.poll.interval.ms", REBALANCE_MS);
        for (int i = 0; i < extra.length; i += 2) {
            props.put((String) extra[i], extra[i + 1]);
        }
        GroupMember m = new GroupMember(name, props, topic, GroupMember.Blocking.STOP_REQUESTING).start();
        members.add(m);
        return m;
    }

    @ParameterizedTest(name = "group.protocol={0}")
    @ValueSource(strings = {"classic", "consumer"})
    void aMemberCutOffPastTheSessionTimeoutStopsEmittingItsPartitions(String protocol) throws Exception {
        String topic = "expiry-" + protocol;
        String groupId = "expiry-group-" + protocol;
        kafka.createTopic(topic, PARTITIONS, 1);
        try (ContinuousProducer producer = new ContinuousProducer(kafka.bootstrapServers(), topic, PARTITIONS,
                PER_SECOND, topic + "-")) {
            GroupMember cutOff = member("cut-off", protocol, proxy.address(), groupId, topic);
            GroupKit.await("cut-off owns every partition", Duration.ofSeconds(30),
                    () -> cutOff.assignment().size() == PARTITIONS && cutOff.emitted() > 0);
            GroupMember healthy = member("healthy", protocol, kafka.bootstrapServers(), groupId, topic);
            GroupKit.awaitSteady("two members, two partitions each", Duration.ofSeconds(30), Duration.ofSeconds(2),
                    () -> cutOff.assignment().size() == 2 && healthy.assignment().size() == 2);
            Set<TopicPartition> cutOffOwned = Set.copyOf(cutOff.assignment());

            long cut = System.nanoTime();
            proxy.blackHole(true);
            GroupKit.await("the healthy member takes every partition", Duration.ofSeconds(40),
                    () -> healthy.assignment().size() == PARTITIONS);
            System.out.printf("[%s] healthy member owns everything %d ms after the cut%n", protocol,
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - cut));
            long healAt = cut + TimeUnit.MILLISECONDS.toNanos(SESSION_MS + CUT_OFF_PAST_SESSION_MS);
            Thread.sleep(Math.max(0, TimeUnit.NANOSECONDS.toMillis(healAt - System.nanoTime())));
            proxy.heal();
            long healed = System.nanoTime();
            GroupKit.awaitSteady("the cut-off member rejoined", Duration.ofSeconds(40), Duration.ofSeconds(2),
                    () -> cutOff.assignment().size() == 2 && healthy.assignment().size() == 2);
            System.out.printf("[%s] balanced again %d ms after the network came back%n", protocol,
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - healed));
            Thread.sleep(1_000);
            Set<String> produced = producer.stop();
            assertThat(producer.failed()).as("producer failures (it bypasses the proxy)").isZero();
            GroupKit.await("every produced record consumed", Duration.ofSeconds(30), () -> {
                Set<String> all = new HashSet<>(cutOff.processed());
                all.addAll(healthy.processed());
                return all.containsAll(produced);
            });

            // onPartitionsLost for what it owned: when the coordinator answers again (the heal, at 16 s) or after a
            // second session timeout without an answer (20 s), whichever is first
            List<Event> events = cutOff.events();
            Event lost = events.stream().filter(e -> e.nanos() > cut && e.kind().equals("lost")).findFirst()
                    .orElseThrow(() -> new AssertionError("no onPartitionsLost after the cut: " + events));
            assertThat(lost.partitions()).containsExactlyInAnyOrderElementsOf(cutOffOwned);
            long lostAfterMs = TimeUnit.NANOSECONDS.toMillis(lost.nanos() - cut);
            assertThat(lostAfterMs).as("ms from the cut to onPartitionsLost")
                    .isLessThanOrEqualTo(Math.min(SESSION_MS + CUT_OFF_PAST_SESSION_MS, 2L * SESSION_MS) + 3 * MARGIN_MS);
            assertThat(events).as("nothing revoked (a commit of lost partitions is impossible)")
                    .noneMatch(e -> e.nanos() > cut && e.nanos() < lost.nanos() && e.kind().equals("revoked"));
            Event reassigned = events.stream().filter(e -> e.nanos() > lost.nanos() && e.kind().equals("assigned"))
                    .findFirst().orElseThrow(() -> new AssertionError("not assigned again: " + events));
            assertThat(reassigned.nanos()).as("assigned again only after the network came back").isGreaterThan(healed);

            // The defect: nothing emitted from the session's expiry (plus margin) until the member is assigned again
            long quietFrom = cut + TimeUnit.MILLISECONDS.toNanos(SESSION_MS + MARGIN_MS);
            List<Emission> underExpiredSession = cutOff.emissions().stream()
                    .filter(e -> e.nanos() > quietFrom && e.nanos() < reassigned.nanos()).toList();
            assertThat(underExpiredSession).as("records emitted under the expired session").isEmpty();
            long emittedWhileCut = cutOff.emissions().stream()
                    .filter(e -> e.nanos() > cut && e.nanos() <= lost.nanos()).count();

            // Re-delivery bounded by about one commit interval of the cut-off member's partitions
            Set<String> both = new HashSet<>(cutOff.processed());
            both.retainAll(healthy.processed());
            long bound = (long) PER_SECOND * cutOffOwned.size() / PARTITIONS * (AUTO_COMMIT_MS + 1_000) / 1_000;
            System.out.printf("[%s] onPartitionsLost %d ms after the cut; emitted while cut off (before lost): %d; "
                    + "consumed by both members: %d (bound %d); produced %d%n", protocol, lostAfterMs, emittedWhileCut,
                    both.size(), bound, produced.size());
            assertThat(both.size()).as("records consumed by both members").isLessThanOrEqualTo((int) bound);
            members.forEach(m -> assertThat(m.error()).as(m.name() + " error").isNull());
        }
    }

    /**
     * The JoinGroup's answer lost during a cooperative rebalance: the cut-off member keeps two of four partitions and,
     * cooperative, goes on fetching and emitting them while its JoinGroup is out. An official consumer that rejoins
     * only when the test polls it holds the rebalance open, so the member's JoinGroup waits at the broker while only
     * its coordinator connection is black-holed (its fetch connection keeps working); then the official consumer
     * rejoins, the broker completes the join, and its answer to the member never arrives (the member commits nothing,
     * so nothing else on that connection times out and ends the wait sooner). The broker expires the
     * member a session timeout later and gives its partitions to the others. The member must hold its records back
     * from its own session deadline: it emitted its kept partitions until its JoinGroup timed out (rebalance timeout
     * + 5 s) and, counting that as a confirmation, a session timeout more.
     */
    @Test
    void aJoinGroupAnswerLostInACooperativeRebalanceStopsTheKeptPartitionsAtTheSessionDeadline() throws Exception {
        String topic = "join-lost";
        String groupId = "join-lost-group";
        kafka.createTopic(topic, PARTITIONS, 1);
        try (ContinuousProducer producer = new ContinuousProducer(kafka.bootstrapServers(), topic, PARTITIONS,
                PER_SECOND, topic + "-");
             OfficialPoller official = new OfficialPoller(kafka.bootstrapServers(), groupId, topic)) {
            // No commits from the cut-off member: a commit on the black-holed connection would time out after
            // request.timeout.ms, and kflux then closes that connection, ending the JoinGroup wait early
            GroupMember cutOff = member("cut-off", "classic", "cooperative-sticky", proxy.address(), groupId, topic,
                    "enable.auto.commit", false);
            GroupKit.await("cut-off owns every partition", Duration.ofSeconds(30),
                    () -> cutOff.assignment().size() == PARTITIONS && cutOff.emitted() > 0);
            official.polling(true);
            GroupKit.awaitSteady("cut-off and the official consumer, two partitions each", Duration.ofSeconds(40),
                    Duration.ofSeconds(2), () -> cutOff.assignment().size() == 2 && official.assignment().size() == 2);
            Set<TopicPartition> kept = Set.copyOf(cutOff.assignment());
            FaultProxy.Link coordinatorLink = proxy.links().stream().filter(l -> l.requests(HEARTBEAT_API_KEY) > 0)
                    .findFirst().orElseThrow(() -> new AssertionError("no coordinator connection through the proxy"));
            int joinsBefore = coordinatorLink.requests(JOIN_GROUP_API_KEY);

            official.polling(false); // from now it rejoins only when polled: the broker holds the JoinGroups
            GroupMember joiner = member("joiner", "classic", "cooperative-sticky", kafka.bootstrapServers(), groupId,
                    topic);
            GroupKit.await("the cut-off member's JoinGroup reached the broker", Duration.ofSeconds(15),
                    () -> coordinatorLink.requests(JOIN_GROUP_API_KEY) > joinsBefore);
            coordinatorLink.blackHole(true);
            long cut = System.nanoTime();
            Thread.sleep(500);
            official.polling(true); // the join completes; its answer to the cut-off member stays in the black hole
            GroupKit.await("the others take every partition", Duration.ofSeconds(40),
                    () -> joiner.assignment().size() + official.assignment().size() == PARTITIONS);
            System.out.printf("[join-lost] the others own everything %d ms after the cut%n",
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - cut));
            // keep the answer lost until the member's JoinGroup timed out, then drop that connection
            long joinTimedOut = cut + TimeUnit.MILLISECONDS.toNanos(REBALANCE_MS + 5_000 + 2_000);
            Thread.sleep(Math.max(0, TimeUnit.NANOSECONDS.toMillis(joinTimedOut - System.nanoTime())));
            coordinatorLink.reset();
            GroupKit.awaitSteady("the cut-off member rejoined", Duration.ofSeconds(40), Duration.ofSeconds(2),
                    () -> !cutOff.assignment().isEmpty() && cutOff.assignment().size() + joiner.assignment().size()
                            + official.assignment().size() == PARTITIONS);
            Thread.sleep(1_000);
            Set<String> produced = producer.stop();
            assertThat(producer.failed()).as("producer failures").isZero();
            GroupKit.await("every produced record consumed", Duration.ofSeconds(30), () -> {
                Set<String> all = new HashSet<>(cutOff.processed());
                all.addAll(joiner.processed());
                all.addAll(official.processed());
                return all.containsAll(produced);
            });

            List<Event> events = cutOff.events();
            Event lost = events.stream().filter(e -> e.nanos() > cut && e.kind().equals("lost")).findFirst()
                    .orElseThrow(() -> new AssertionError("no onPartitionsLost after the cut: " + events));
            assertThat(lost.partitions()).containsExactlyInAnyOrderElementsOf(kept);
            Event reassigned = events.stream().filter(e -> e.nanos() > lost.nanos() && e.kind().equals("assigned"))
                    .findFirst().orElseThrow(() -> new AssertionError("not assigned again: " + events));
            // The defect: the kept partitions emitted from the session's deadline (plus margin) on; the member's last
            // confirmation was the Heartbeat before its JoinGroup, before the cut
            long quietFrom = cut + TimeUnit.MILLISECONDS.toNanos(SESSION_MS + MARGIN_MS);
            List<Emission> underExpiredSession = cutOff.emissions().stream()
                    .filter(e -> e.nanos() > quietFrom && e.nanos() < reassigned.nanos()).toList();
            long emittedWhileWaiting = cutOff.emissions().stream()
                    .filter(e -> e.nanos() > cut && e.nanos() <= quietFrom).count();
            System.out.printf("[join-lost] onPartitionsLost %d ms after the cut; emitted in the first session timeout "
                    + "after the cut: %d; after it until reassigned: %d; produced %d%n",
                    TimeUnit.NANOSECONDS.toMillis(lost.nanos() - cut), emittedWhileWaiting,
                    underExpiredSession.size(), produced.size());
            assertThat(underExpiredSession).as("records emitted under the expired session").isEmpty();
            assertThat(cutOff.error()).as("cut-off error").isNull();
            assertThat(joiner.error()).as("joiner error").isNull();
            assertThat(official.error()).as("official consumer error").isNull();
        }
    }

    /**
     * An official consumer (classic, cooperative-sticky) polled on its own thread only while {@link #polling} is on:
     * off, its heartbeat thread keeps its session but it does not rejoin a rebalance, which the broker then holds
     * open for the other members' JoinGroups.
     */
    private static final class OfficialPoller implements AutoCloseable {
        private final Thread thread;
        private final Set<String> processed = ConcurrentHashMap.newKeySet();
        private final AtomicReference<Throwable> error = new AtomicReference<>();
        private volatile Set<org.apache.kafka.common.TopicPartition> assignment = Set.of();
        private volatile boolean polling;
        private volatile boolean closed;

        OfficialPoller(String bootstrap, String groupId, String topic) {
            Properties props = new Properties();
            props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
            props.put(ConsumerConfig.GROUP_ID_CONFIG, groupId);
            props.put(ConsumerConfig.CLIENT_ID_CONFIG, "official");
            props.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "classic");
            props.put(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG,
                    GroupKit.OFFICIAL_ASSIGNORS.get("cooperative-sticky"));
            props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
            props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "true");
            props.put(ConsumerConfig.AUTO_COMMIT_INTERVAL_MS_CONFIG, String.valueOf(AUTO_COMMIT_MS));
            props.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, String.valueOf(SESSION_MS));
            props.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, "500");
            props.put(ConsumerConfig.MAX_POLL_INTERVAL_MS_CONFIG, String.valueOf(REBALANCE_MS));
            this.thread = new Thread(() -> {
                try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props, new StringDeserializer(),
                        new StringDeserializer())) {
                    consumer.subscribe(List.of(topic));
                    while (!closed) {
                        if (!polling) {
                            Thread.sleep(20);
                            continue;
                        }
                        for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(100))) {
                            processed.add(r.value());
                        }
                        assignment = Set.copyOf(consumer.assignment());
                    }
                } catch (Throwable e) {
                    error.set(e);
                }
            }, "official-poller");
            thread.setDaemon(true);
            thread.start();
        }

        void polling(boolean on) {
            polling = on;
        }

        Set<org.apache.kafka.common.TopicPartition> assignment() {
            return assignment;
        }

        Set<String> processed() {
            return processed;
        }

        Throwable error() {
            return error.get();
        }

        @Override
        public void close() {
            closed = true;
            try {
                thread.join(30_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
