package io.kflux.compat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.kflux.ConfigException;
import io.kflux.ConsumerOptions;
import io.kflux.ConsumerRecord;
import io.kflux.Deserializer;
import io.kflux.Deserializers;
import io.kflux.KafkaFluxConsumer;
import io.kflux.RecordDeserializationException;
import io.kflux.TopicPartition;
import io.kflux.compat.support.BrokerVersion;
import io.kflux.compat.support.GroupKit;
import io.kflux.compat.support.Kflux;
import io.kflux.compat.support.RecordQueue;
import io.kflux.reactor.kafka.receiver.KafkaReceiver;
import io.kflux.reactor.kafka.receiver.ReceiverOptions;
import io.kflux.reactor.kafka.receiver.ReceiverRecord;
import io.kflux.test.KafkaTest;
import io.kflux.test.KafkaTestCluster;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * Session 19's new-user trial: probes written from README.md, docs/guide.md, docs/migrating-from-reactor-kafka.md
 * and the public Javadoc only, each asserting what those promise (findings: the branch's notes). Misuse and bad
 * input on the native API, where a consumer stands when a rebalance moves a partition away and after a seek, and
 * reactor-kafka semantics of the compatibility module that ReactorKafkaReceiverTest does not check.
 */
@KafkaTest
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class UserTrialS19Test {
    private static final Duration WAIT = Duration.ofSeconds(20);

    private static List<TopicPartition> written(KafkaTestCluster kafka, String topic, int partitions, int each) {
        List<TopicPartition> tps = kafka.createTopic(topic, partitions);
        for (int p = 0; p < partitions; p++) {
            int partition = p;
            kafka.produce(topic, p, IntStream.range(0, each).mapToObj(i -> "p" + partition + "-" + i)
                    .toArray(String[]::new));
        }
        return tps;
    }

    // ---- misuse of the native API (guide: "A first consumer", "Errors"; KafkaFluxConsumer#close Javadoc)

    @Test
    void aSecondSubscriptionIsRefusedAndEverythingButCommitsIsRefusedAfterACloseCalledTwiceAtOnce(
            KafkaTestCluster kafka) throws Exception {
        List<TopicPartition> tps = written(kafka, "u19-misuse", 1, 20);
        KafkaFluxConsumer<String, String> consumer = Kflux.strings(Kflux.props(kafka.bootstrapServers()), tps);
        RecordQueue<String, String> first = RecordQueue.subscribe(consumer.receive(), 5);
        assertThat(first.take(5, WAIT)).hasSize(5);
        // guide: "a second concurrent one gets IllegalStateException"
        assertThatThrownBy(() -> consumer.receive().blockFirst(WAIT)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> consumer.receivePartitioned().blockFirst(WAIT))
                .isInstanceOf(IllegalStateException.class);
        // the first subscription is not disturbed by the refused ones
        first.request(15);
        assertThat(first.take(15, WAIT)).extracting(ConsumerRecord::offset)
                .containsExactlyElementsOf(IntStream.range(5, 20).mapToObj(i -> (long) i).toList());

        // close(): "Idempotent"; two at once and a third later all complete; the active subscription completes
        Mono.when(consumer.close(), consumer.close()).block(WAIT);
        consumer.close().block(WAIT);
        assertThat(first.awaitTermination(WAIT)).isTrue();
        assertThat(first.isCompleted()).as("close() terminates receive() with completion").isTrue();
        // "afterwards every other method fails with IllegalStateException, except the commits"
        assertThatThrownBy(() -> consumer.receive().blockFirst(WAIT)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> consumer.position(tps.get(0)).block(WAIT)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> consumer.seek(tps.get(0), 0).block(WAIT)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> consumer.endOffsets(tps).block(WAIT)).isInstanceOf(IllegalStateException.class);
        assertThat(consumer.assignment()).as("empty after close").isEmpty();
    }

    /** guide, Rebalance listeners: "It is called only with a group subscription"; a manual assignment never calls it. */
    @Test
    void aRebalanceListenerIsNotCalledUnderAManualAssignment(KafkaTestCluster kafka) {
        List<TopicPartition> tps = written(kafka, "u19-listener", 1, 5);
        List<String> calls = new CopyOnWriteArrayList<>();
        io.kflux.RebalanceListener listener = new io.kflux.RebalanceListener() {
            @Override
            public Mono<Void> onPartitionsAssigned(java.util.Collection<TopicPartition> partitions,
                                                   io.kflux.RebalanceContext ctx) {
                return Mono.fromRunnable(() -> calls.add("assigned " + partitions));
            }

            @Override
            public Mono<Void> onPartitionsRevoked(java.util.Collection<TopicPartition> partitions,
                                                  io.kflux.RebalanceContext ctx) {
                return Mono.fromRunnable(() -> calls.add("revoked " + partitions));
            }
        };
        KafkaFluxConsumer<String, String> consumer = KafkaFluxConsumer.create(ConsumerOptions.create(
                        Kflux.props(kafka.bootstrapServers(), "group.id", "u19-listener"), Deserializers.string(),
                        Deserializers.string())
                .assignment(tps).rebalanceListener(listener));
        assertThat(consumer.receive().take(5).count().block(WAIT)).isEqualTo(5);
        consumer.close().block(WAIT);
        assertThat(calls).isEmpty();
    }

    /** guide, Configuration: "Values may be strings or typed values"; a bad one throws ConfigException naming it. */
    @Test
    void propertiesOfTheWrongTypeAreRefusedNamingTheKey(KafkaTestCluster kafka) {
        Map<String, Object> base = Kflux.props(kafka.bootstrapServers());
        record Bad(String key, Object value) { }
        for (Bad bad : List.of(new Bad("max.poll.records", "lots"), new Bad("max.poll.records", 1.5),
                               new Bad("enable.auto.commit", 3), new Bad("fetch.max.bytes", List.of(1, 2)),
                               new Bad("auto.offset.reset", Boolean.TRUE), new Bad("session.timeout.ms", "10s"))) {
            Map<String, Object> props = new HashMap<>(base);
            props.put("group.id", "u19-types");
            props.put(bad.key(), bad.value());
            assertThatThrownBy(() -> ConsumerOptions.create(props, Deserializers.string(), Deserializers.string()))
                    .as("%s=%s (%s)", bad.key(), bad.value(), bad.value().getClass().getSimpleName())
                    .isInstanceOfSatisfying(ConfigException.class, e -> assertThat(e.key()).isEqualTo(bad.key()))
                    .hasMessageContaining(bad.key());
            // withProperty refuses it the same way
            ConsumerOptions<String, String> ok = ConsumerOptions.create(base, Deserializers.string(),
                                                                        Deserializers.string());
            assertThatThrownBy(() -> ok.withProperty(bad.key(), bad.value()))
                    .as("withProperty %s=%s", bad.key(), bad.value())
                    .isInstanceOf(ConfigException.class).hasMessageContaining(bad.key());
        }
        // typed values of the right kind are accepted (Integer for an int, String for a long, Boolean)
        Map<String, Object> typed = new HashMap<>(base);
        typed.put("group.id", "u19-types");
        typed.put("max.poll.records", 7);
        typed.put("fetch.max.bytes", "1048576");
        typed.put("enable.auto.commit", Boolean.FALSE);
        assertThat(ConsumerOptions.create(typed, Deserializers.string(), Deserializers.string())).isNotNull();
    }

    /**
     * KafkaFluxConsumer#receive: RecordDeserializationException "position stays at that record"; guide, Errors: "no
     * record is skipped"; the exception locates the record and carries its bytes.
     */
    @Test
    void aThrowingDeserializerEndsReceiveAtItsRecordWhichStaysThePositionAndIsNamed(KafkaTestCluster kafka) {
        List<TopicPartition> tps = kafka.createTopic("u19-poison", 1);
        TopicPartition tp = tps.get(0);
        kafka.produce("u19-poison", 0, "a0", "a1", "a2", "poison", "a4");
        IllegalArgumentException boom = new IllegalArgumentException("cannot read this one");
        Deserializer<String> value = (topic, headers, data) -> {
            String s = StandardCharsets.UTF_8.decode(data).toString();
            if (s.equals("poison")) {
                throw boom;
            }
            return s;
        };
        KafkaFluxConsumer<String, String> consumer = KafkaFluxConsumer.create(ConsumerOptions.create(
                Kflux.props(kafka.bootstrapServers()), Deserializers.string(), value).assignment(tps));
        try {
            List<String> seen = new CopyOnWriteArrayList<>();
            assertThatThrownBy(() -> consumer.receive().doOnNext(r -> seen.add(r.value())).blockLast(WAIT))
                    .isInstanceOfSatisfying(RecordDeserializationException.class, e -> {
                        assertThat(e.topicPartition()).isEqualTo(tp);
                        assertThat(e.offset()).isEqualTo(3);
                        assertThat(e.origin()).isEqualTo(RecordDeserializationException.Origin.VALUE);
                        assertThat(e.getCause()).isSameAs(boom);
                        assertThat(StandardCharsets.UTF_8.decode(e.valueBuffer()).toString()).isEqualTo("poison");
                        assertThat(e.getMessage()).contains("u19-poison-0").contains("3");
                    });
            assertThat(seen).containsExactly("a0", "a1", "a2");
            assertThat(consumer.position(tp).block(WAIT)).as("position stays at the record").isEqualTo(3);
            // "subscribing again fails again": nothing before it is delivered twice, nothing after it emitted
            List<String> again = new CopyOnWriteArrayList<>();
            assertThatThrownBy(() -> consumer.receive().doOnNext(r -> again.add(r.value())).blockLast(WAIT))
                    .isInstanceOfSatisfying(RecordDeserializationException.class,
                                            e -> assertThat(e.offset()).isEqualTo(3));
            assertThat(again).isEmpty();
            // the documented way on under a manual assignment: seek past it and subscribe again
            consumer.seek(tp, 4).block(WAIT);
            assertThat(consumer.receive().map(ConsumerRecord::value).take(1).collectList().block(WAIT))
                    .containsExactly("a4");
        } finally {
            consumer.close().block(WAIT);
        }
    }

    // ---- where a consumer stands under a group (guide: "Where a consumer stands")

    /**
     * Under a group, while records flow: position is one past the last record emitted, currentLag the end minus it;
     * a seek moves the position and the next record emitted; once a second member takes a partition away, position
     * of it fails with IllegalStateException ("No current assignment for partition") and its lag is empty, while the
     * partition kept still answers.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"classic", "consumer"})
    void positionLagAndSeekWhileRecordsFlowAndAfterARebalanceMovesAPartitionAway(String protocol,
                                                                                 KafkaTestCluster kafka)
            throws Exception {
        assumeTrue(protocol.equals("classic") || BrokerVersion.current().atLeast(4, 0), "KIP-848 needs 4.0+");
        String topic = "u19-standing-" + protocol;
        String group = "u19-standing-" + protocol;
        List<TopicPartition> tps = written(kafka, topic, 2, 50);
        Map<String, Object> props = GroupKit.protocolProps(protocol, kafka.bootstrapServers(), group, "range",
                                                           "fetch.max.wait.ms", 100);
        KafkaFluxConsumer<String, String> a = GroupKit.consumer(props, topic, null);
        KafkaFluxConsumer<String, String> b = GroupKit.consumer(props, topic, null);
        RecordQueue<String, String> qa = RecordQueue.subscribe(a.receive(), 0);
        RecordQueue<String, String> qb = null;
        try {
            GroupKit.await("a owns both partitions", WAIT, () -> a.assignment().containsAll(tps));
            qa.request(30);
            List<ConsumerRecord<String, String>> first = qa.take(30, WAIT);
            first.forEach(ConsumerRecord::acknowledge);
            Map<TopicPartition, Long> emitted = new HashMap<>();
            first.forEach(r -> emitted.merge(r.topicPartition(), r.offset() + 1, Math::max));
            GroupKit.await("a Fetch answer for both partitions", WAIT,
                    () -> tps.stream().allMatch(tp -> a.currentLag(tp).isPresent()));
            for (TopicPartition tp : tps) {
                long position = a.position(tp).block(WAIT);
                assertThat(position).as("position of %s", tp).isEqualTo(emitted.getOrDefault(tp, 0L));
                assertThat(a.currentLag(tp)).as("lag of %s", tp).hasValue(50 - position);
            }
            assertThat(a.beginningOffsets(tps).block(WAIT)).containsOnly(Map.entry(tps.get(0), 0L),
                                                                          Map.entry(tps.get(1), 0L));
            assertThat(a.endOffsets(tps).block(WAIT)).containsOnly(Map.entry(tps.get(0), 50L),
                                                                   Map.entry(tps.get(1), 50L));

            // seek while subscribed: position moves, lag follows, the next record of that partition is the offset
            TopicPartition sought = tps.get(1);
            a.seek(sought, 40).block(WAIT);
            assertThat(a.position(sought).block(WAIT)).as("position after seek").isEqualTo(40);
            qa.request(Long.MAX_VALUE);
            List<ConsumerRecord<String, String>> after = qa.takeUntil(
                    r -> r.topicPartition().equals(sought), WAIT);
            after.forEach(ConsumerRecord::acknowledge);
            assertThat(after.get(after.size() - 1).offset()).as("first record after the seek").isEqualTo(40);
            GroupKit.await("a consumed the rest", WAIT, () -> a.currentLag(sought).orElse(-1) == 0
                    && a.currentLag(tps.get(0)).orElse(-1) == 0);
            qa.drainFor(Duration.ofMillis(300)).forEach(ConsumerRecord::acknowledge);
            assertThat(a.position(sought).block(WAIT)).isEqualTo(50);

            // a second member joins: one partition moves away from a
            qb = RecordQueue.subscribe(b.receive(), Long.MAX_VALUE);
            GroupKit.await("each member owns one partition", Duration.ofSeconds(30),
                    () -> a.assignment().size() == 1 && b.assignment().size() == 1);
            TopicPartition kept = a.assignment().iterator().next();
            TopicPartition moved = b.assignment().iterator().next();
            assertThat(kept).isNotEqualTo(moved);
            assertThatThrownBy(() -> a.position(moved).block(WAIT)).as("position of the partition that moved")
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("No current assignment");
            assertThat(a.currentLag(moved)).as("lag of the partition that moved").isEmpty();
            assertThat(a.position(kept).block(WAIT)).as("position of the partition kept").isEqualTo(50);
            // the member that took it starts from what a committed before the revocation: nothing re-delivered
            GroupKit.await("b has a position for " + moved, WAIT, () -> b.currentLag(moved).isPresent());
            assertThat(b.position(moved).block(WAIT)).isEqualTo(50);
            assertThat(qb.drainFor(Duration.ofMillis(300))).as("nothing re-delivered to b").isEmpty();
        } finally {
            qa.dispose();
            if (qb != null) {
                qb.dispose();
            }
            Mono.when(a.close(), b.close()).block(WAIT);
        }
    }

    // ---- the reactor-kafka compatibility module (docs/migrating-from-reactor-kafka.md, "Route 1")

    private static Map<String, Object> rkProps(KafkaTestCluster kafka, String group) {
        return ReactorKafkaReceiverTest.props(kafka.bootstrapServers(), group);
    }

    private static long committed(KafkaTestCluster kafka, String group, TopicPartition tp) {
        return kafka.committedOffsets(group).getOrDefault(tp, -1L);
    }

    private static List<org.apache.kafka.common.TopicPartition> kafkaTps(List<TopicPartition> tps) {
        return tps.stream().map(tp -> new org.apache.kafka.common.TopicPartition(tp.topic(), tp.partition())).toList();
    }

    private static <T> Mono<T> blocking(java.util.concurrent.Callable<T> call) {
        return Mono.fromCallable(call).subscribeOn(Schedulers.boundedElastic());
    }

    /**
     * "receiverOffset().commit(): acknowledge, then commit every acknowledged offset" (reactor-kafka's semantics,
     * which the module keeps): committing one record of partition 1 also commits what was acknowledged in partition
     * 0, and its Mono completes once the commit was accepted.
     */
    @Test
    void receiverOffsetCommitCommitsEveryAcknowledgedOffset(KafkaTestCluster kafka) {
        List<TopicPartition> tps = written(kafka, "u19-rk-commit", 2, 10);
        String group = "u19-rk-commit";
        ReceiverOptions<String, String> options = ReceiverOptions.<String, String>create(rkProps(kafka, group))
                .commitInterval(Duration.ZERO) // only explicit commits
                .commitBatchSize(0)
                .assignment(kafkaTps(tps));
        Map<TopicPartition, Long> seen = KafkaReceiver.create(options).receive()
                .buffer(20)
                .concatMap(records -> {
                    records.stream().filter(r -> r.partition() == 0).forEach(r -> r.receiverOffset().acknowledge());
                    ReceiverRecord<String, String> p1First = records.stream()
                            .filter(r -> r.partition() == 1 && r.offset() == 0).findFirst().orElseThrow();
                    return p1First.receiverOffset().commit().then(blocking(() -> kafka.committedOffsets(group)));
                })
                .take(1)
                .blockLast(WAIT);
        assertThat(seen).as("committed when commit() completed, receive() still running")
                .containsOnly(Map.entry(tps.get(0), 10L), Map.entry(tps.get(1), 1L));
    }

    /** "acknowledged offsets are committed every commitInterval": while receive() runs, not only at its end. */
    @Test
    void commitIntervalCommitsAcknowledgedOffsetsWhileReceiving(KafkaTestCluster kafka) {
        List<TopicPartition> tps = written(kafka, "u19-rk-interval", 1, 10);
        String group = "u19-rk-interval";
        ReceiverOptions<String, String> options = ReceiverOptions.<String, String>create(rkProps(kafka, group))
                .commitInterval(Duration.ofMillis(200))
                .subscription(List.of("u19-rk-interval"));
        Long committedWhileRunning = KafkaReceiver.create(options).receive()
                .buffer(10)
                .concatMap(records -> {
                    records.forEach(r -> r.receiverOffset().acknowledge());
                    return blocking(() -> {
                        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                        while (committed(kafka, group, tps.get(0)) != 10 && System.nanoTime() < deadline) {
                            Thread.sleep(100);
                        }
                        return committed(kafka, group, tps.get(0));
                    });
                })
                .take(1)
                .blockLast(WAIT);
        assertThat(committedWhileRunning).isEqualTo(10L);
    }

    /**
     * Manual assignment: "Revocation listeners run ... for a manual assignment once when the flux ends, before the
     * final commit of acknowledged offsets"; "Assignment listeners run before the first record of their partitions,
     * also once for a manual assignment".
     */
    @Test
    void aManualAssignmentRunsEachListenerOnceAndTheRevokeListenerBeforeTheFinalCommit(KafkaTestCluster kafka)
            throws Exception {
        List<TopicPartition> tps = written(kafka, "u19-rk-revoke", 1, 10);
        String group = "u19-rk-revoke";
        List<String> events = new CopyOnWriteArrayList<>();
        ReceiverOptions<String, String> options = ReceiverOptions.<String, String>create(rkProps(kafka, group))
                .commitInterval(Duration.ZERO)
                .commitBatchSize(0)
                .addAssignListener(ps -> events.add("assigned " + ps.size()))
                .addRevokeListener(ps -> events.add("revoked " + ps.size() + " committed="
                                                    + committed(kafka, group, tps.get(0))))
                .assignment(kafkaTps(tps));
        List<Long> offsets = KafkaReceiver.create(options).receive()
                .doOnNext(r -> events.add("record " + r.offset()))
                .doOnNext(r -> r.receiverOffset().acknowledge())
                .map(r -> r.offset())
                .take(6).collectList().block(WAIT);
        assertThat(offsets).containsExactly(0L, 1L, 2L, 3L, 4L, 5L);
        GroupKit.await("the revoke listener ran", WAIT, () -> events.stream().anyMatch(e -> e.startsWith("revoked")));
        kafka.awaitCommitted(group, tps.get(0), 6, WAIT);
        Thread.sleep(300); // a second revocation would show here
        assertThat(events).containsExactly("assigned 1", "record 0", "record 1", "record 2", "record 3", "record 4",
                                           "record 5", "revoked 1 committed=-1");
    }

    /**
     * receiveBatch(): "each is one partition's fetched result, at most max.poll.records records"; each record is
     * acknowledged by the application, and the end of the flux commits them.
     */
    @Test
    void receiveBatchHandsOverOnePartitionPerBatchWithinMaxPollRecords(KafkaTestCluster kafka) {
        List<TopicPartition> tps = written(kafka, "u19-rk-batch", 2, 60);
        String group = "u19-rk-batch";
        ReceiverOptions<String, String> options = ReceiverOptions.<String, String>create(rkProps(kafka, group))
                .consumerProperty("max.poll.records", 25)
                .subscription(List.of("u19-rk-batch"));
        List<List<ReceiverRecord<String, String>>> batches = new CopyOnWriteArrayList<>();
        List<ReceiverRecord<String, String>> all = new CopyOnWriteArrayList<>();
        KafkaReceiver.create(options).receiveBatch()
                .concatMap(batch -> batch.doOnNext(r -> r.receiverOffset().acknowledge()).collectList())
                .doOnNext(batches::add)
                .doOnNext(all::addAll)
                .takeUntil(b -> all.size() >= 120)
                .blockLast(WAIT);
        assertThat(all).hasSize(120);
        assertThat(batches).allSatisfy(b -> {
            assertThat(b).hasSizeBetween(1, 25);
            assertThat(b.stream().map(ReceiverRecord::partition).distinct()).hasSize(1);
        });
        for (TopicPartition tp : tps) {
            kafka.awaitCommitted(group, tp, 60, WAIT);
        }
    }

    /**
     * doOnConsumer: "before or after [a receive flux] it fails with IllegalStateException"; during one, position "is
     * the offset of the next record the receive flux will deliver".
     */
    @Test
    void doOnConsumerAnswersOnlyWhileReceivingAndItsPositionIsTheNextRecordDelivered(KafkaTestCluster kafka) {
        List<TopicPartition> tps = written(kafka, "u19-rk-consumer", 1, 30);
        org.apache.kafka.common.TopicPartition tp = kafkaTps(tps).get(0);
        ReceiverOptions<String, String> options = ReceiverOptions.<String, String>create(
                rkProps(kafka, "u19-rk-consumer")).assignment(List.of(tp));
        KafkaReceiver<String, String> receiver = KafkaReceiver.create(options);
        assertThatThrownBy(() -> receiver.doOnConsumer(c -> c.position(tp)).block(WAIT))
                .as("before a receive flux").isInstanceOf(IllegalStateException.class);
        // concatMap asks for one record at a time: when the 7th is in hand, 7 were delivered
        Long position = receiver.receive()
                .concatMap(r -> r.offset() == 6 ? receiver.doOnConsumer(c -> c.position(tp)) : Mono.empty())
                .take(1)
                .blockLast(WAIT);
        assertThat(position).isEqualTo(7L);
        assertThatThrownBy(() -> receiver.doOnConsumer(c -> c.position(tp)).block(WAIT))
                .as("after the receive flux").isInstanceOf(IllegalStateException.class);
    }

    /**
     * receiveAtmostOnce() under a group: "when the flux ends or partitions are revoked, a commit that went past the
     * last record emitted is taken back to the offset after it". A member committing 10 ahead is slow; a second
     * member joins and takes a partition: it starts right after the last record the first one was handed, so no
     * record is lost to the commit-ahead and none is delivered twice.
     */
    @Test
    void atMostOnceCommitAheadIsTakenBackWhenAPartitionMovesToANewMember(KafkaTestCluster kafka) throws Exception {
        List<TopicPartition> tps = written(kafka, "u19-rk-amo", 2, 30);
        String group = "u19-rk-amo";
        ReceiverOptions<String, String> options = ReceiverOptions.<String, String>create(rkProps(kafka, group))
                .atmostOnceCommitAheadSize(10)
                .consumerProperty("heartbeat.interval.ms", 300)
                .consumerProperty("session.timeout.ms", 10_000)
                .consumerProperty("partition.assignment.strategy",
                                  "org.apache.kafka.clients.consumer.RangeAssignor")
                .subscription(List.of("u19-rk-amo"));
        List<String> seenByA = new CopyOnWriteArrayList<>();
        List<String> seenByB = new CopyOnWriteArrayList<>();
        reactor.core.Disposable a = KafkaReceiver.create(options).receiveAtmostOnce()
                .doOnNext(r -> seenByA.add(r.partition() + "@" + r.offset()))
                .concatMap(r -> Mono.delay(Duration.ofMillis(150)).thenReturn(r))
                .subscribe();
        reactor.core.Disposable b = null;
        try {
            GroupKit.await("a is half way through a partition", WAIT, () -> seenByA.size() >= 10);
            b = KafkaReceiver.create(options).receiveAtmostOnce()
                    .doOnNext(r -> seenByB.add(r.partition() + "@" + r.offset()))
                    .subscribe();
            GroupKit.await("every record handed to a or b", Duration.ofSeconds(30),
                    () -> seenByA.size() + seenByB.size() >= 60);
            Thread.sleep(300); // a duplicate would show here
            List<String> all = new ArrayList<>(seenByA);
            all.addAll(seenByB);
            assertThat(seenByB).as("b took a partition while a was running").isNotEmpty();
            assertThat(all).as("each record handed over exactly once (a: %s, b: %s)", seenByA, seenByB)
                    .doesNotHaveDuplicates().hasSize(60);
        } finally {
            a.dispose();
            if (b != null) {
                b.dispose();
            }
        }
    }
}
