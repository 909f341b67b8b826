package io.kflux.compat;

import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.TopicPartition;
import io.kflux.compat.support.BrokerVersion;
import io.kflux.compat.support.ContinuousProducer;
import io.kflux.compat.support.FaultProxy;
import io.kflux.compat.support.GroupKit;
import io.kflux.compat.support.StampedMember;
import io.kflux.test.broker.EmbeddedKafkaCluster;
import java.io.IOException;
import java.nio.channels.Channels;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A group of three members committing every second while the network or the coordinator misbehaves (issue #15,
 * "Fault injection through a proxy", the group part), run with kflux members and with the official
 * {@code KafkaConsumer}, each under both group protocols (classic with the range assignor, and
 * {@code group.protocol=consumer}, KIP-848), all four under the same ledger: a producer runs throughout (on the
 * broker's own listener, so it is not disturbed by the proxy), the members connect through a {@link FaultProxy}. Each
 * run asserts that every produced record was consumed, that nothing at or below an offset the broker reported
 * committed was consumed again (duplicates only of what the members had consumed but not yet committed), that no
 * member failed ({@code receive()} did not end, {@code poll()} did not throw), and that consumption resumed within a
 * bound once the fault cleared. Each run prints one line (scenario, client, protocol, recovery time, duplicates,
 * records lost) so the clients and protocols can be compared.
 *
 * <p>Faults: the coordinator's broker frozen (SIGSTOP) past {@code session.timeout.ms}, then resumed (on one node the
 * coordinator is the only broker: fetches stall too, and the broker expires every session when it wakes); a black
 * hole longer than {@code request.timeout.ms} (but shorter than the session) on every connection through the proxy;
 * on three nodes, only the coordinator's node frozen past the session timeout (the coordinator and its partitions'
 * leaders move; the others keep flowing).
 *
 * <p>Session 10 s and heartbeat 1 s under both protocols. Classic: the members send them. Consumer protocol: the
 * brokers decide ({@code group.consumer.session.timeout.ms} and {@code group.consumer.heartbeat.interval.ms}, their
 * minimums lowered to allow these values); the official consumer refuses the classic settings under this protocol
 * and gets none, kflux gets {@code session.timeout.ms} equal to the brokers' (its client-side expiry: KIP-848 does
 * not tell clients the session timeout) and no assignor or heartbeat interval.
 *
 * <p>In the default build kflux's members under both protocols, each scenario once (the freeze and the black hole
 * cannot be shorter: they must outlast the session timeout and the request timeout, which is what they test); the
 * official consumer's runs of the same scenarios, for comparison, are tagged {@code faults} and run with
 * {@code -Pfaults} (see README).
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class GroupFaultTest {
    private static final int MEMBERS = 3;
    private static final int PARTITIONS = 6;
    private static final int PER_SECOND = 300;
    private static final int SESSION_MS = 10_000;
    private static final int HEARTBEAT_MS = 1_000;
    private static final int REQUEST_TIMEOUT_MS = 5_000;
    private static final int COMMIT_MS = 1_000;
    private static final long FREEZE_MS = SESSION_MS + 3_000L;
    private static final long BLACK_HOLE_MS = REQUEST_TIMEOUT_MS + 2_000L;
    /**
     * Consumption must resume (the group's first record) this soon after the fault cleared: a
     * reconnect, a rejoin, a fetch. Shorter than a session timeout, so a group that waits for a member id nobody uses
     * any more (kflux joined under a new id after its session ran out while the coordinator was frozen: 10 s) fails.
     */
    private static final Duration RESUME_BOUND = Duration.ofMillis(SESSION_MS - 2_000);
    /** Every member consuming again: looser, one official member once took longer than {@link #RESUME_BOUND}. */
    private static final Duration EVERY_MEMBER_BOUND = Duration.ofMillis(2L * SESSION_MS);
    /**
     * One commit interval (plus its latency) of production: what a member can have consumed and not yet committed
     * when its session is lost, so the most a fault may re-deliver. Asserted for kflux in every scenario (measured:
     * 0 but on one node frozen past the session, where the broker expires every session when it wakes: 209 and 37
     * classic, 119 and 89 consumer, in two runs); the official consumer's runs print their count beside it. Besides the count, nothing at or
     * below a committed offset may be consumed again.
     */
    private static final long ONE_COMMIT_INTERVAL = (long) PER_SECOND * (COMMIT_MS + 1_000) / 1_000;

    /** Which client the group's members are. */
    enum Client { KFLUX, OFFICIAL }

    /** The group protocol the members speak ({@code group.protocol}). */
    enum Protocol {
        CLASSIC, CONSUMER;

        String config() {
            return name().toLowerCase();
        }
    }

    private static FaultProxy proxy;
    private static EmbeddedKafkaCluster kafka;
    /** Three nodes for the coordinator-only freeze, started by the first test that needs them. */
    private static EmbeddedKafkaCluster threeNodes;
    private final List<StampedMember> members = new ArrayList<>();

    /**
     * The single node's controller must not fence its own broker when the node wakes from the freeze. Broker and
     * controller share the stopped JVM, so on waking the controller finds the broker's last heartbeat older than
     * {@code broker.session.timeout.ms} (6 s in the harness) and fences it: every partition loses its leader and the
     * group coordinator unloads and reloads the group, racing the members' rejoins (seen in every run's broker log,
     * "Fencing broker 1 ... because its session has timed out"). Whether that race cost 0.1 s or over 8 s decided this
     * test's outcome (a CI run failed on it) although it is an artefact of one process hosting both roles; a real
     * cluster's controller is elsewhere. The three-node scenario below keeps fencing: there it is what moves the leaders.
     */
    private static final long BROKER_SESSION_MS = FREEZE_MS + 10_000L;

    @BeforeAll
    static void startBrokerBehindProxy() throws IOException {
        proxy = FaultProxy.onFreePort();
        kafka = withConsumerProtocolTimeouts(proxy.brokerBehind())
                .brokerProperty("broker.session.timeout.ms", String.valueOf(BROKER_SESSION_MS)).start();
    }

    /**
     * The consumer protocol's session timeout and heartbeat interval are the brokers' (KIP-848): set to the classic
     * runs' values, with the minimums (45 s and 5 s by default) lowered to them.
     */
    private static EmbeddedKafkaCluster.Builder withConsumerProtocolTimeouts(EmbeddedKafkaCluster.Builder builder) {
        return builder.brokerProperty("group.consumer.session.timeout.ms", String.valueOf(SESSION_MS))
                .brokerProperty("group.consumer.min.session.timeout.ms", String.valueOf(SESSION_MS))
                .brokerProperty("group.consumer.heartbeat.interval.ms", String.valueOf(HEARTBEAT_MS))
                .brokerProperty("group.consumer.min.heartbeat.interval.ms", String.valueOf(HEARTBEAT_MS));
    }

    /**
     * Records consumed more than once, per "scenario protocol" and client, for the comparison below. Both clients run
     * the same scenario in one JVM only with {@code -Pfaults} (the official runs are tagged {@code faults}).
     */
    private static final Map<String, Map<Client, Long>> REDELIVERED = new TreeMap<>();

    /**
     * Issue #29/#31: in every scenario both clients ran, kflux re-delivers no more than the official consumer did in
     * the same scenario on the same brokers (its own bound, one commit interval, is asserted in each run). Where only
     * one client ran (the default build runs kflux's), there is nothing to compare, and the run prints so.
     */
    @AfterAll
    static void kfluxRedeliversNoMoreThanTheOfficialConsumer() {
        List<String> compared = new ArrayList<>();
        REDELIVERED.forEach((scenario, byClient) -> {
            Long ours = byClient.get(Client.KFLUX);
            Long official = byClient.get(Client.OFFICIAL);
            if (ours != null && official != null) {
                compared.add(scenario);
                System.out.printf("[group-faults] %-27s duplicates: kflux %4d, official %4d%n", scenario, ours,
                        official);
                assertThat(ours).as("%s: kflux re-delivered more than the official consumer", scenario)
                        .isLessThanOrEqualTo(official);
            }
        });
        if (compared.isEmpty()) {
            System.out.println("[group-faults] no scenario ran with both clients (the official runs need -Pfaults): "
                    + "nothing compared");
        }
    }

    @AfterAll
    static void stop() throws IOException {
        if (kafka != null) {
            kafka.close();
            kafka = null;
        }
        if (threeNodes != null) {
            threeNodes.close();
            threeNodes = null;
        }
        if (proxy != null) {
            proxy.close();
        }
    }

    @AfterEach
    void stopMembers() {
        proxy.heal();
        for (EmbeddedKafkaCluster cluster : new EmbeddedKafkaCluster[] {kafka, threeNodes}) {
            if (cluster != null) {
                cluster.nodeIds().stream().filter(cluster::isPaused).forEach(cluster::resume);
            }
        }
        members.forEach(StampedMember::stop);
        members.clear();
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Protocol.class)
    void coordinatorFrozenPastTheSessionTimeout(Protocol protocol) throws Exception {
        runScenario("frozen-coordinator", Client.KFLUX, protocol, kafka, proxy.address(), this::freezeCoordinator);
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Protocol.class)
    @Tag("faults")
    void officialConsumerWhenTheCoordinatorIsFrozenPastTheSessionTimeout(Protocol protocol) throws Exception {
        runScenario("frozen-coordinator", Client.OFFICIAL, protocol, kafka, proxy.address(), this::freezeCoordinator);
    }

    private void freezeCoordinator(String groupId) throws InterruptedException {
        int coordinator = kafka.nodeIds().get(0);
        kafka.pause(coordinator);
        try {
            Thread.sleep(FREEZE_MS);
        } finally {
            kafka.resume(coordinator);
        }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Protocol.class)
    void blackHoleLongerThanTheRequestTimeoutOnEveryConnection(Protocol protocol) throws Exception {
        runScenario("black-hole", Client.KFLUX, protocol, kafka, proxy.address(), this::blackHole);
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Protocol.class)
    @Tag("faults")
    void officialConsumerBehindABlackHoleLongerThanTheRequestTimeout(Protocol protocol) throws Exception {
        runScenario("black-hole", Client.OFFICIAL, protocol, kafka, proxy.address(), this::blackHole);
    }

    private void blackHole(String groupId) throws InterruptedException {
        int before = proxy.acceptedConnections();
        proxy.blackHole(true);
        try {
            Thread.sleep(BLACK_HOLE_MS);
        } finally {
            proxy.heal();
        }
        assertThat(proxy.acceptedConnections()).as("reconnects after request.timeout.ms").isGreaterThan(before);
    }

    /**
     * On three nodes only the coordinator's node is frozen: its partition leaders and the group coordinator move to
     * the other two once the controller fences it, while the partitions led elsewhere keep flowing (the official
     * consumer, for comparison with kflux's run below).
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(Protocol.class)
    @Tag("faults")
    void officialConsumerWhenOnlyTheCoordinatorsNodeFreezesOfThree(Protocol protocol) throws Exception {
        runFrozenOfThree("frozen-of-three", Client.OFFICIAL, protocol);
    }

    /**
     * The same for kflux's members, with the ledger's rules and a bound on re-delivery. The official consumer keeps
     * its partitions through this (its new coordinator loads the group with fresh sessions, and its heartbeats are
     * accepted) and re-delivers nothing. kflux finds the new coordinator only about
     * 10.5 s after the freeze (its lookups go to the frozen node first and wait out {@code request.timeout.ms}), past
     * its own session deadline: it holds back its records from the deadline until the new coordinator confirms the
     * session, and keeps its partitions too. Before it did (issue #15) it declared them lost at the deadline and
     * re-delivered everything consumed meanwhile: 1,915 and 2,052 records in two runs (classic), 1,854 and 1,995
     * (consumer), against 0 for the official one. Under both protocols the new coordinator keeps the member.
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(Protocol.class)
    void kfluxRedeliversNoMoreThanACommitIntervalWhenOnlyTheCoordinatorsNodeFreezes(Protocol protocol)
            throws Exception {
        runFrozenOfThree("frozen-of-three", Client.KFLUX, protocol); // the bound: asserted in runScenario
    }

    private long runFrozenOfThree(String scenario, Client client, Protocol protocol) throws Exception {
        if (threeNodes == null) {
            threeNodes = withConsumerProtocolTimeouts(EmbeddedKafkaCluster.builder().nodes(3)
                    .classpath(BrokerVersion.current().classpath())
                    .brokerJvmArgs("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC")).start();
        }
        return runScenario(scenario, client, protocol, threeNodes, threeNodes.bootstrapServers(), groupId -> {
            int coordinator = threeNodes.admin().describeConsumerGroups(List.of(groupId)).all()
                    .get(10, TimeUnit.SECONDS).get(groupId).coordinator().id();
            threeNodes.pause(coordinator);
            try {
                Thread.sleep(FREEZE_MS);
            } finally {
                threeNodes.resume(coordinator);
            }
        });
    }

    /**
     * Starts the group (members bootstrapping from {@code bootstrap}) and the producer (on the cluster's own
     * listener), injects {@code fault} (which clears it before returning), checks the ledger.
     *
     * @return the records consumed more than once
     */
    private long runScenario(String scenario, Client client, Protocol protocol, EmbeddedKafkaCluster cluster,
                             String bootstrap, GroupFault fault) throws Exception {
        // KIP-848 is generally available from Kafka 4.0; a 3.9 broker does not enable it
        Assumptions.assumeTrue(protocol == Protocol.CLASSIC || BrokerVersion.current().atLeast(4, 0),
                "group.protocol=consumer needs a 4.0+ broker, this is " + BrokerVersion.current().full());
        String id = scenario + "-" + client.name().toLowerCase() + "-" + protocol.config();
        cluster.createTopic(id, PARTITIONS, cluster.nodeIds().size());
        try (ContinuousProducer producer = new ContinuousProducer(cluster.bootstrapServers(), id, PARTITIONS,
                PER_SECOND, id + "-")) {
            for (int i = 0; i < MEMBERS; i++) {
                members.add(member(client, protocol, id + "-m" + i, id, bootstrap).start());
            }
            CommittedOffsets commits = new CommittedOffsets(cluster, id);
            GroupKit.awaitBalanced(id, id, PARTITIONS, members, Duration.ofSeconds(2));
            GroupKit.await("every member consuming", Duration.ofSeconds(20), () -> members.stream()
                    .allMatch(m -> m.lastNanos() > 0));
            Thread.sleep(2_000);
            assertNoMemberFailed();

            Map<Integer, Long> brokerLogSizes = brokerLogSizes(cluster);
            long struck = System.nanoTime();
            fault.inject(id);
            long cleared = System.nanoTime();
            try {
                GroupKit.await(id + ": consumption resumed within " + RESUME_BOUND, RESUME_BOUND, () -> {
                    assertNoMemberFailed();
                    return members.stream().anyMatch(m -> m.firstAfter(cleared) > 0);
                });
            } finally {
                printBrokerGroupLog(cluster, brokerLogSizes, id);
            }
            long firstMs = TimeUnit.NANOSECONDS.toMillis(members.stream().mapToLong(m -> m.firstAfter(cleared))
                    .filter(n -> n > 0).min().orElseThrow() - cleared);
            GroupKit.await(id + ": every member consuming again", EVERY_MEMBER_BOUND, () -> {
                assertNoMemberFailed();
                return members.stream().allMatch(m -> m.firstAfter(cleared) > 0);
            });
            long allMs = TimeUnit.NANOSECONDS.toMillis(members.stream().mapToLong(m -> m.firstAfter(cleared))
                    .max().orElseThrow() - cleared);
            GroupKit.awaitBalanced(id, id, PARTITIONS, members, Duration.ofSeconds(2));

            Set<String> produced = producer.stop();
            commits.close();
            assertThat(producer.failed()).as("producer failures").isZero();
            GroupKit.awaitAllConsumed(new ArrayList<>(produced), members, Duration.ofSeconds(30));
            assertNoMemberFailed();
            Set<String> consumed = new HashSet<>();
            members.forEach(m -> consumed.addAll(m.values()));
            Set<String> lost = new HashSet<>(produced);
            lost.removeAll(consumed);
            long duplicates = duplicates(members);
            List<String> beforeFault = consumedAgainBefore(members, struck);
            System.out.printf("[group-faults] %-18s %-8s %-8s recovery %5d ms (first record), %5d ms (every member); "
                    + "longest gap %5d ms; duplicates %4d (one commit interval: %d; before the fault: %d); lost %d of "
                    + "%d produced%n", scenario, client, protocol, firstMs, allMs, longestGapMs(members, struck),
                    duplicates, ONE_COMMIT_INTERVAL, beforeFault.size(), lost.size(), produced.size());
            assertThat(lost).as("produced records no member consumed").isEmpty();
            // the group formed (its members joining one after another) and consumed without a fault: nothing twice
            assertThat(beforeFault).as("records consumed again before the fault struck").isEmpty();
            if (client == Client.KFLUX) {
                assertThat(duplicates).as("records consumed more than once").isLessThanOrEqualTo(ONE_COMMIT_INTERVAL);
            }
            assertThat(commits.rereadBelowACommit(members)).as("records consumed again though a commit covered them")
                    .isEmpty();
            REDELIVERED.computeIfAbsent(scenario + " " + protocol, k -> new EnumMap<>(Client.class))
                    .put(client, duplicates);
            return duplicates;
        }
    }

    private static Map<Integer, Long> brokerLogSizes(EmbeddedKafkaCluster cluster) throws IOException {
        Map<Integer, Long> sizes = new HashMap<>();
        for (int node : cluster.nodeIds()) {
            Path log = cluster.logFile(node);
            sizes.put(node, Files.exists(log) ? Files.size(log) : 0L);
        }
        return sizes;
    }

    /**
     * What the brokers logged about the group and their own fencing since the fault struck: the recovery time alone
     * cannot tell a client waiting for nothing from a broker that fenced itself on waking (its controller saw no
     * broker heartbeat for {@code broker.session.timeout.ms} while the whole JVM was stopped) and moved its leaders.
     */
    private static void printBrokerGroupLog(EmbeddedKafkaCluster cluster, Map<Integer, Long> from, String groupId)
            throws IOException {
        Pattern relevant = Pattern.compile("(?i)fenc|" + Pattern.quote(groupId) + "|session timed out|unload|elect");
        for (int node : cluster.nodeIds()) {
            Path log = cluster.logFile(node);
            if (!Files.exists(log)) {
                continue;
            }
            try (SeekableByteChannel channel = Files.newByteChannel(log)) {
                channel.position(Math.min(from.getOrDefault(node, 0L), channel.size()));
                String since = new String(Channels.newInputStream(channel).readAllBytes(), StandardCharsets.UTF_8);
                since.lines().filter(line -> relevant.matcher(line).find()).limit(60)
                        .forEach(line -> System.out.println("[broker " + node + "] " + line));
            }
        }
    }

    /**
     * The group's committed offsets as the broker reports them, polled every 200 ms on the cluster's own listener
     * (not through the proxy), each rise kept with when it was seen. A record consumed again at {@code t} must lie at
     * or above what was committed for its partition before {@code t}: duplicates only of what no commit covered.
     */
    private static final class CommittedOffsets implements AutoCloseable {
        private record Seen(long nanos, long offset) {
        }

        private final Map<TopicPartition, List<Seen>> seen = new java.util.concurrent.ConcurrentHashMap<>();
        private volatile boolean running = true;
        private final Thread thread;

        CommittedOffsets(EmbeddedKafkaCluster cluster, String groupId) {
            thread = new Thread(() -> {
                while (running) {
                    try {
                        cluster.admin().listConsumerGroupOffsets(groupId).partitionsToOffsetAndMetadata()
                                .get(2, TimeUnit.SECONDS).forEach((tp, om) -> {
                                    if (om == null) {
                                        return;
                                    }
                                    List<Seen> list = seen.computeIfAbsent(new TopicPartition(tp.topic(),
                                            tp.partition()), p -> new java.util.concurrent.CopyOnWriteArrayList<>());
                                    if (list.isEmpty() || list.get(list.size() - 1).offset() < om.offset()) {
                                        list.add(new Seen(System.nanoTime(), om.offset()));
                                    }
                                });
                        Thread.sleep(200);
                    } catch (InterruptedException e) {
                        return;
                    } catch (Exception e) {
                        // the coordinator is frozen or moving: nothing seen this round
                    }
                }
            }, "committed-offsets-" + groupId);
            thread.setDaemon(true);
            thread.start();
        }

        /** Consumptions, after the first of their record, of an offset below a commit seen before them. */
        List<String> rereadBelowACommit(List<StampedMember> members) {
            List<StampedMember.Consumed> all = new ArrayList<>();
            members.forEach(m -> all.addAll(m.consumed()));
            all.sort(java.util.Comparator.comparingLong(StampedMember.Consumed::nanos));
            Map<TopicPartition, Set<Long>> first = new HashMap<>();
            List<String> wrong = new ArrayList<>();
            for (StampedMember.Consumed c : all) {
                if (first.computeIfAbsent(c.partition(), p -> new HashSet<>()).add(c.offset())) {
                    continue;
                }
                long committed = seen.getOrDefault(c.partition(), List.of()).stream()
                        .filter(x -> x.nanos() < c.nanos()).mapToLong(Seen::offset).max().orElse(-1);
                if (c.offset() < committed) {
                    wrong.add(c.partition() + "@" + c.offset() + " (committed " + committed + ")");
                }
            }
            return wrong;
        }

        @Override
        public void close() {
            running = false;
            thread.interrupt();
        }
    }

    /** The longest time from {@code sinceNanos} on in which no member consumed anything, ms. */
    private static long longestGapMs(List<StampedMember> members, long sinceNanos) {
        long[] times = members.stream().flatMap(m -> m.consumed().stream()).mapToLong(StampedMember.Consumed::nanos)
                .filter(n -> n >= sinceNanos).sorted().toArray();
        long longest = times.length == 0 ? 0 : times[0] - sinceNanos;
        for (int i = 1; i < times.length; i++) {
            longest = Math.max(longest, times[i] - times[i - 1]);
        }
        return TimeUnit.NANOSECONDS.toMillis(longest);
    }

    /** Consumptions before {@code nanos} of a (partition, offset) consumed before, over every member. */
    private static List<String> consumedAgainBefore(List<StampedMember> members, long nanos) {
        List<StampedMember.Consumed> all = new ArrayList<>();
        members.forEach(m -> all.addAll(m.consumed()));
        all.sort(java.util.Comparator.comparingLong(StampedMember.Consumed::nanos));
        Map<TopicPartition, Set<Long>> seen = new HashMap<>();
        List<String> again = new ArrayList<>();
        for (StampedMember.Consumed c : all) {
            if (c.nanos() < nanos && !seen.computeIfAbsent(c.partition(), p -> new HashSet<>()).add(c.offset())) {
                again.add(c.partition() + "@" + c.offset());
            }
        }
        return again;
    }

    /** Consumptions beyond the first of each (partition, offset), over every member. */
    private static long duplicates(List<StampedMember> members) {
        Map<TopicPartition, Set<Long>> seen = new HashMap<>();
        long again = 0;
        for (StampedMember m : members) {
            for (StampedMember.Consumed c : m.consumed()) {
                if (!seen.computeIfAbsent(c.partition(), p -> new HashSet<>()).add(c.offset())) {
                    again++;
                }
            }
        }
        return again;
    }

    private void assertNoMemberFailed() {
        members.forEach(m -> assertThat(m.error()).as(m.name() + " failed (receive() ended or poll() threw)")
                .isNull());
    }

    /**
     * A member of {@code client} speaking {@code protocol}. Classic: range assignor, the session and heartbeat sent by
     * the member. Consumer protocol: the broker assigns and sets the heartbeat; kflux gets {@code session.timeout.ms}
     * equal to the brokers' session (its own expiry), the official consumer no session setting (it refuses one).
     */
    private static StampedMember member(Client client, Protocol protocol, String name, String groupId,
                                        String bootstrap) {
        if (client == Client.KFLUX) {
            Object[] common = {"client.id", name, "session.timeout.ms", SESSION_MS,
                "auto.commit.interval.ms", COMMIT_MS, "request.timeout.ms", REQUEST_TIMEOUT_MS,
                "fetch.max.wait.ms", 500, "reconnect.backoff.ms", 50, "reconnect.backoff.max.ms", 1_000,
                "retry.backoff.ms", 100};
            Map<String, Object> props = protocol == Protocol.CONSUMER
                    ? GroupKit.consumerProtocolProps(bootstrap, groupId, common)
                    : GroupKit.props(bootstrap, groupId, "range", common);
            if (protocol == Protocol.CLASSIC) {
                props.put("heartbeat.interval.ms", HEARTBEAT_MS);
            }
            return StampedMember.kflux(name, props, groupId);
        }
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ConsumerConfig.GROUP_ID_CONFIG, groupId);
        props.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, protocol.config());
        if (protocol == Protocol.CLASSIC) {
            props.put(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG, GroupKit.OFFICIAL_ASSIGNORS.get("range"));
            props.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, String.valueOf(SESSION_MS));
            props.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, String.valueOf(HEARTBEAT_MS));
        }
        props.put(ConsumerConfig.CLIENT_ID_CONFIG, name);
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "true");
        props.put(ConsumerConfig.AUTO_COMMIT_INTERVAL_MS_CONFIG, String.valueOf(COMMIT_MS));
        props.put(ConsumerConfig.REQUEST_TIMEOUT_MS_CONFIG, String.valueOf(REQUEST_TIMEOUT_MS));
        props.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, "500");
        props.put(ConsumerConfig.RECONNECT_BACKOFF_MS_CONFIG, "50");
        props.put(ConsumerConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, "1000");
        props.put(ConsumerConfig.RETRY_BACKOFF_MS_CONFIG, "100");
        return StampedMember.official(name, props, groupId);
    }

    /** Injects a fault into the group's surroundings and clears it before returning. */
    @FunctionalInterface
    interface GroupFault {
        void inject(String groupId) throws Exception;
    }
}
