package io.kflux.compat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.kflux.ConsumerOptions;
import io.kflux.Deserializers;
import io.kflux.KafkaFluxConsumer;
import io.kflux.KafkaFluxException;
import io.kflux.KafkaShareConsumer;
import io.kflux.Ordering;
import io.kflux.ProcessedRecord;
import io.kflux.ProcessedRecord.Outcome;
import io.kflux.ProcessingOptions;
import io.kflux.RecordBatch;
import io.kflux.ShareRecord;
import io.kflux.TopicPartition;
import io.kflux.compat.support.BrokerVersion;
import io.kflux.compat.support.GroupKit;
import io.kflux.test.KafkaTest;
import io.kflux.test.broker.EmbeddedKafkaCluster;
import io.kflux.test.broker.SampleData;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.config.ConfigResource;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.reactivestreams.Subscription;
import reactor.core.Disposable;
import reactor.core.publisher.BaseSubscriber;
import reactor.core.publisher.Mono;

/**
 * Session 21's new-user trial, against a real broker: probes written from README.md, docs/guide.md and the public
 * Javadoc only, each asserting what a doc sentence promises (quoted in its Javadoc; findings in the branch's notes).
 * Share groups: a cancel or a close with records in hand (released at once, nothing lost, nothing accepted twice),
 * implicit mode with a subscriber asking one record at a time and with one that fails, a second {@code receive()}
 * after a cancel, two members in one JVM; {@code process()} with one key failing; {@code receiveBatches()} with
 * pause and seek; where a group member stands while it joins.
 */
// share heartbeats at 500 ms as well: the same specification as ShareConsumerTest's, so the classes share one broker
@KafkaTest(nodes = 1, brokerProperties = {"group.consumer.heartbeat.interval.ms=500",
        "group.consumer.min.heartbeat.interval.ms=500", "group.share.heartbeat.interval.ms=500",
        "group.share.min.heartbeat.interval.ms=500"})
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class UserTrialS21Test {
    private static final Duration WAIT = Duration.ofSeconds(60);
    /** The share groups' lock in these probes: records that come back well before it were released, not expired. */
    private static final int LOCK_MS = 60_000;

    private static void await(String what, BooleanSupplier condition) {
        GroupKit.await(what, WAIT, condition);
    }

    private static void assumeShareGroups() {
        Assumptions.assumeTrue(BrokerVersion.current().atLeast(4, 2), "share groups from Kafka 4.2");
    }

    /** A share group reading from the earliest offset, with a 60 s acquisition lock. */
    private static void shareGroup(EmbeddedKafkaCluster kafka, String group) throws Exception {
        kafka.admin().incrementalAlterConfigs(Map.of(new ConfigResource(ConfigResource.Type.GROUP, group), List.of(
                new AlterConfigOp(new ConfigEntry("share.auto.offset.reset", "earliest"), AlterConfigOp.OpType.SET),
                new AlterConfigOp(new ConfigEntry("share.record.lock.duration.ms", String.valueOf(LOCK_MS)),
                        AlterConfigOp.OpType.SET)))).all().get(30, TimeUnit.SECONDS);
    }

    /** {@code job-0} .. {@code job-(count-1)} to partition 0, one producer batch each when {@code separately}. */
    private static List<String> jobs(EmbeddedKafkaCluster kafka, String topic, int count, boolean separately)
            throws Exception {
        List<String> values = IntStream.range(0, count).mapToObj(i -> "job-" + i).toList();
        try (KafkaProducer<String, String> producer = ShareConsumerTest.producer(kafka)) {
            for (String v : values) {
                var sent = producer.send(new ProducerRecord<>(topic, 0, v, v));
                if (separately) {
                    sent.get();
                }
            }
            producer.flush();
        }
        return values;
    }

    private static KafkaShareConsumer<String, String> member(EmbeddedKafkaCluster kafka, String group, String mode,
                                                             String topic) {
        return KafkaShareConsumer.create(ShareConsumerTest.options(kafka, group, mode, topic));
    }

    /** A subscriber that asks for {@code first} records, then only for what the test asks. */
    static final class Holder extends BaseSubscriber<ShareRecord<String, String>> {
        final List<ShareRecord<String, String>> records = new CopyOnWriteArrayList<>();
        final AtomicReference<Throwable> error = new AtomicReference<>();
        private final long first;
        private final int askOneAtATimeUpTo;

        /** @param askOneAtATimeUpTo after each record below this count, ask for the next one from {@code onNext} */
        Holder(long first, int askOneAtATimeUpTo) {
            this.first = first;
            this.askOneAtATimeUpTo = askOneAtATimeUpTo;
        }

        @Override
        protected void hookOnSubscribe(Subscription s) {
            s.request(first);
        }

        @Override
        protected void hookOnNext(ShareRecord<String, String> r) {
            records.add(r);
            if (records.size() < askOneAtATimeUpTo) {
                request(1);
            }
        }

        @Override
        protected void hookOnError(Throwable t) {
            error.set(t);
        }

        void more(long n) {
            request(n);
        }

        List<String> values() {
            return records.stream().map(ShareRecord::value).toList();
        }
    }

    /** A member accepting everything, recording {@code value#deliveryCount} once each acceptance was confirmed. */
    private static Disposable acceptAll(KafkaShareConsumer<String, String> member, List<String> accepted) {
        return member.receive()
                .flatMap(r -> r.accept().then(Mono.fromRunnable(() -> accepted.add(r.value() + "#"
                        + r.deliveryCount()))), 64)
                .subscribe();
    }

    private static List<String> valuesOf(List<String> tagged) {
        return tagged.stream().map(s -> s.substring(0, s.indexOf('#'))).toList();
    }

    // ------------------------------------------------------------------------------------------------ share

    /**
     * Guide, Share groups, Close: "close() (or cancelling receive()) stops acquiring, releases the records acquired
     * but not emitted yet ... In explicit mode, records emitted and not acknowledged when the session closes go back
     * to the group (their delivery count one higher), and an acknowledgement called after that fails with
     * KafkaFluxException ... Nothing accepted and confirmed before a clean close is delivered again." And "Demand
     * decides what is acquired": nothing beyond the subscriber's demand is emitted. One producer batch of 30, so the
     * broker hands most of them to the first ShareFetch; the member asks for one at a time, accepts three, holds the
     * fourth and is cancelled. The next member gets the other 27 long before the 60 s lock would have expired.
     */
    @Test
    void aCancelWithRecordsInHandReleasesThemAtOnceAndLosesNothing(EmbeddedKafkaCluster kafka) throws Exception {
        assumeShareGroups();
        String topic = "u21-share-cancel";
        String group = "g-" + topic;
        kafka.createTopic(topic, 1, 1);
        shareGroup(kafka, group);
        List<String> all = jobs(kafka, topic, 30, false);
        KafkaShareConsumer<String, String> first = member(kafka, group, "explicit", topic);
        KafkaShareConsumer<String, String> next = member(kafka, group, "explicit", topic);
        Holder holder = new Holder(1, 0);
        List<String> acceptedFirst = new ArrayList<>();
        List<String> acceptedNext = new CopyOnWriteArrayList<>();
        Disposable running = null;
        try {
            first.receive().subscribe(holder);
            for (int i = 0; i < 3; i++) {
                int n = i + 1;
                await("record " + n, () -> holder.records.size() >= n);
                ShareRecord<String, String> r = holder.records.get(i);
                r.accept().block(WAIT);
                acceptedFirst.add(r.value());
                holder.more(1);
            }
            await("the fourth record", () -> holder.records.size() >= 4);
            ShareRecord<String, String> held = holder.records.get(3);
            GroupKit.sleep(300);
            assertThat(holder.records).as("emitted beyond demand").hasSize(4);
            holder.dispose();
            first.close().block(WAIT);
            Throwable late = catchThrowable(() -> held.accept().block(WAIT));
            assertThat(late).as("accept after the cancel and close").isInstanceOf(KafkaFluxException.class);

            long start = System.nanoTime();
            running = acceptAll(next, acceptedNext);
            await("the 27 others at the next member: " + acceptedNext, () -> acceptedNext.size() >= 27);
            long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            System.out.println("cancel with records in hand: next member had the 27 others after " + tookMs
                    + " ms: " + acceptedNext);
            assertThat(tookMs).as("released, not expired (lock %d ms)", LOCK_MS).isLessThan(LOCK_MS / 2);
            GroupKit.sleep(1000);
            Set<String> expected = new HashSet<>(all);
            acceptedFirst.forEach(expected::remove);
            assertThat(valuesOf(acceptedNext)).as("each not accepted record once, no accepted one again")
                    .containsExactlyInAnyOrderElementsOf(expected);
            assertThat(acceptedNext).contains(held.value() + "#2");
        } finally {
            holder.dispose();
            if (running != null) {
                running.dispose();
            }
            first.close().block(WAIT);
            next.close().block(WAIT);
        }
    }

    /**
     * Guide, Acknowledgement modes, Implicit: "a record counts as accepted once the subscriber requested the next
     * record after it ... close() accepts the emitted records not yet accepted"; Close: cancelling "accepts in implicit
     * mode the emitted ones". A subscriber that asks for its next record from onNext, five times, then stops asking:
     * after the cancel, the five are never delivered again and the other 25 go to the next member.
     */
    @Test
    void implicitModeOneAtATimeAcceptsExactlyWhatWasEmitted(EmbeddedKafkaCluster kafka) throws Exception {
        long tookMs = implicitThenNext(kafka, "u21-share-implicit", 30, 5, (first, all) -> {
            Holder holder = new Holder(1, 5);
            try {
                first.receive().subscribe(holder);
                await("five records", () -> holder.records.size() >= 5);
                GroupKit.sleep(300);
                assertThat(holder.values()).containsExactlyElementsOf(all.subList(0, 5));
                assertThat(holder.records).allMatch(r -> r.deliveryCount() == 1);
            } finally {
                holder.dispose();
            }
        });
        assertThat(tookMs).as("released, not expired (lock %d ms)", LOCK_MS).isLessThan(LOCK_MS / 2);
    }

    /**
     * Implicit mode and a subscriber that fails on a record (an exception thrown in onNext): Reactor cancels
     * receive(), and by the Close rule ("cancelling receive() ... accepts in implicit mode the emitted ones") the
     * failing record is accepted too: it is not delivered again. The records after it go to the next member.
     */
    @Test
    void implicitModeASubscriberThatFailsHasItsFailedRecordAccepted(EmbeddedKafkaCluster kafka) throws Exception {
        implicitThenNext(kafka, "u21-share-implicit-fail", 10, 3, (first, all) -> {
            List<String> seen = new CopyOnWriteArrayList<>();
            AtomicReference<Throwable> ended = new AtomicReference<>();
            first.receive().limitRate(1).subscribe(r -> {
                seen.add(r.value());
                if (r.value().equals("job-2")) {
                    throw new IllegalStateException("audit log unavailable");
                }
            }, ended::set);
            await("the failure", () -> ended.get() != null);
            assertThat(ended.get()).hasMessage("audit log unavailable");
            assertThat(seen).containsExactly("job-0", "job-1", "job-2");
        });
    }

    /**
     * Implicit mode and take(n), which cancels receive() from within the n-th record's onNext, after passing it on:
     * by the Close rule the n-th record was emitted and is accepted, like the ones before it; the next member gets
     * only the others.
     */
    @Test
    void implicitModeTakeNAcceptsEveryRecordTaken(EmbeddedKafkaCluster kafka) throws Exception {
        implicitThenNext(kafka, "u21-share-implicit-take", 10, 3, (first, all) -> {
            List<String> taken = first.receive().map(ShareRecord::value).take(3).collectList().block(WAIT);
            assertThat(taken).containsExactlyElementsOf(all.subList(0, 3));
        });
    }

    /** What an implicit-mode member does with the jobs before it is closed ({@code all}: every job written). */
    @FunctionalInterface
    private interface FirstMember {
        void read(KafkaShareConsumer<String, String> first, List<String> all) throws Exception;
    }

    /**
     * The implicit-mode scaffold: {@code count} jobs in a new topic and share group, an implicit member that reads
     * some with {@code firstMember} and is then closed, and an explicit member that must get exactly the jobs from
     * {@code nextFrom} on (the first member's are never delivered again).
     *
     * @return ms from the next member's subscription to its last expected job
     */
    private long implicitThenNext(EmbeddedKafkaCluster kafka, String topic, int count, int nextFrom,
                                  FirstMember firstMember) throws Exception {
        assumeShareGroups();
        String group = "g-" + topic;
        kafka.createTopic(topic, 1, 1);
        shareGroup(kafka, group);
        List<String> all = jobs(kafka, topic, count, false);
        KafkaShareConsumer<String, String> first = member(kafka, group, "implicit", topic);
        KafkaShareConsumer<String, String> next = member(kafka, group, "explicit", topic);
        List<String> acceptedNext = new CopyOnWriteArrayList<>();
        Disposable running = null;
        try {
            firstMember.read(first, all);
            first.close().block(WAIT);
            long start = System.nanoTime();
            running = acceptAll(next, acceptedNext);
            await("the others: " + acceptedNext, () -> acceptedNext.size() >= count - nextFrom);
            long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            GroupKit.sleep(1500);
            System.out.println(topic + ": next member got " + acceptedNext + " after " + tookMs + " ms");
            assertThat(valuesOf(acceptedNext)).containsExactlyInAnyOrderElementsOf(all.subList(nextFrom, count));
            return tookMs;
        } finally {
            if (running != null) {
                running.dispose();
            }
            first.close().block(WAIT);
            next.close().block(WAIT);
        }
    }

    /**
     * KafkaShareConsumer#receive: "One active subscription at a time; cancelling it leaves the group as close()
     * does." A user of KafkaFluxConsumer (where a new receive() after a cancel starts again) subscribes a second time
     * on the same share consumer at once after take(3) ended the first: the second subscription joins again and
     * reads on (it was refused with IllegalStateException while the first was still leaving the group; now it waits
     * for that). A third one while the second runs is refused, and the second goes on.
     */
    @Test
    void aSecondReceiveAfterACancelJoinsAgainAndReadsOn(EmbeddedKafkaCluster kafka) throws Exception {
        assumeShareGroups();
        String topic = "u21-share-again";
        String group = "g-" + topic;
        kafka.createTopic(topic, 1, 1);
        shareGroup(kafka, group);
        List<String> all = jobs(kafka, topic, 6, true);
        KafkaShareConsumer<String, String> c = member(kafka, group, "explicit", topic);
        List<String> two = new CopyOnWriteArrayList<>();
        AtomicReference<Throwable> secondEnded = new AtomicReference<>();
        Disposable second = null;
        try {
            List<String> one = c.receive().concatMap(r -> r.accept().thenReturn(r.value())).take(3).collectList()
                    .block(WAIT);
            assertThat(one).hasSize(3);
            // at once, while the first is still leaving the group
            second = c.receive().concatMap(r -> r.accept().thenReturn(r.value()))
                    .subscribe(two::add, secondEnded::set);
            await("the second subscription's records: " + two + ", " + secondEnded.get(),
                    () -> two.size() >= 3 || secondEnded.get() != null);
            System.out.println("second receive() after a cancel: " + one + " then " + two + ", ended: "
                    + secondEnded.get());
            assertThat(secondEnded.get()).as("the second receive() after a cancel").isNull();
            List<String> both = new ArrayList<>(one);
            both.addAll(two);
            assertThat(both).containsExactlyInAnyOrderElementsOf(all);
            // KafkaShareConsumer#receive: one active subscription at a time
            assertThatThrownBy(() -> c.receive().blockFirst(Duration.ofSeconds(10)))
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("one active subscription");
            GroupKit.sleep(300);
            assertThat(secondEnded.get()).as("the refused one leaves the active one alone").isNull();
        } finally {
            if (second != null) {
                second.dispose();
            }
            c.close().block(WAIT);
        }
    }

    /**
     * Two share consumers of one group in one JVM (guide, Share groups: "any number of members read the same
     * partitions, each record is handed to one member at a time"). Member A takes three records and holds them (no
     * acknowledgement, no further demand); member B works through the rest; A is closed: its three come to B with
     * delivery count 2 (Close: "records emitted and not acknowledged when the session closes go back to the group
     * (their delivery count one higher)"), long before the 60 s lock. Every record accepted exactly once.
     */
    @Test
    void twoMembersInOneJvmAndOneClosedHoldingRecords(EmbeddedKafkaCluster kafka) throws Exception {
        assumeShareGroups();
        String topic = "u21-share-two";
        String group = "g-" + topic;
        kafka.createTopic(topic, 1, 1);
        shareGroup(kafka, group);
        List<String> all = jobs(kafka, topic, 40, true);
        KafkaShareConsumer<String, String> a = member(kafka, group, "explicit", topic);
        KafkaShareConsumer<String, String> b = member(kafka, group, "explicit", topic);
        Holder holder = new Holder(3, 0);
        List<String> acceptedB = new CopyOnWriteArrayList<>();
        Disposable running = null;
        try {
            a.receive().subscribe(holder);
            await("A holds three", () -> holder.records.size() >= 3);
            running = b.receive()
                    .flatMap(r -> Mono.delay(Duration.ofMillis(10)).then(r.accept())
                            .then(Mono.fromRunnable(() -> acceptedB.add(r.value() + "#" + r.deliveryCount()))), 4)
                    .subscribe();
            // A may have acquired more than it asked for (whole producer batches); those wait for A's close too
            await("B busy: " + acceptedB.size(), () -> acceptedB.size() >= 20);
            int[] last = {-1};
            GroupKit.awaitSteady("B done with what it can get", WAIT, Duration.ofMillis(1500), () -> {
                int now = acceptedB.size();
                boolean same = now == last[0];
                last[0] = now;
                return same;
            });
            List<String> held = holder.values();
            assertThat(held).hasSize(3);
            assertThat(valuesOf(acceptedB)).as("B got nothing A holds").doesNotContainAnyElementsOf(held);
            System.out.println("two members: B accepted " + acceptedB.size() + " before A's close");
            long start = System.nanoTime();
            a.close().block(WAIT);
            await("A's three at B: " + acceptedB, () -> acceptedB.size() >= 40);
            long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            GroupKit.sleep(1000);
            System.out.println("two members: A held " + held + ", B had them " + tookMs + " ms after A's close");
            assertThat(valuesOf(acceptedB)).containsExactlyInAnyOrderElementsOf(all);
            assertThat(acceptedB).containsAll(held.stream().map(v -> v + "#2").toList());
            assertThat(tookMs).isLessThan(LOCK_MS / 2);
        } finally {
            holder.dispose();
            if (running != null) {
                running.dispose();
            }
            a.close().block(WAIT);
            b.close().block(WAIT);
        }
    }

    // ------------------------------------------------------------------------------------------------ process()

    private static KafkaFluxConsumer<String, String> groupMember(String protocol, EmbeddedKafkaCluster kafka,
                                                                 String topic, String group) {
        return ProcessingTest.member(protocol, kafka, topic, group);
    }

    /** 40 records on one partition, keys k0..k3 round robin, values order-0..39. */
    private static TopicPartition keyed(EmbeddedKafkaCluster kafka, String topic) {
        kafka.createTopic(topic, 1, 1);
        List<ProducerRecord<String, String>> records = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            records.add(new ProducerRecord<>(topic, 0, "k" + (i % 4), "order-" + i));
        }
        SampleData.produce(kafka.bootstrapServers(), records);
        return new TopicPartition(topic, 0);
    }

    /**
     * Guide, Processing, Failures: "by default the stream ends with the handler's error. Then the failed record is never
     * acknowledged, so the committed offset of its partition stays at it; the records above it that completed are
     * kept in the commit's metadata and not run again after a restart." Key k1's record at offset 9 fails (after a
     * while, so the other keys' records above it complete first); the stream ends; close() commits 9; a new member's
     * process() runs exactly what was not done: offset 9 and k1's records behind it.
     */
    @ParameterizedTest
    @ValueSource(strings = {"classic", "consumer"})
    void aFailedKeyEndsTheStreamAndTheNextProcessRunsOnlyWhatWasNotDone(String protocol, EmbeddedKafkaCluster kafka)
            throws Exception {
        String topic = "u21-process-fail-" + protocol;
        String group = "g-" + topic;
        TopicPartition tp = keyed(kafka, topic);
        KafkaFluxConsumer<String, String> first = groupMember(protocol, kafka, topic, group);
        Set<Long> done = java.util.concurrent.ConcurrentHashMap.newKeySet();
        AtomicReference<Throwable> ended = new AtomicReference<>();
        try {
            first.process(ProcessingOptions.<String, String>ordering(Ordering.KEY),
                            r -> r.offset() == 9
                                    ? Mono.delay(Duration.ofMillis(500)).then(Mono.error(
                                            new IllegalStateException("payment service refused order-9")))
                                    : Mono.empty())
                    .subscribe(p -> done.add(p.record().offset()), ended::set);
            await("the stream's end", () -> ended.get() != null);
            assertThat(ended.get()).hasMessage("payment service refused order-9");
        } finally {
            first.close().block(WAIT);
        }
        Set<Long> k1From9 = Set.of(9L, 13L, 17L, 21L, 25L, 29L, 33L, 37L);
        Set<Long> others = IntStream.range(0, 40).mapToObj(i -> (long) i).filter(o -> !k1From9.contains(o))
                .collect(Collectors.toSet());
        assertThat(done).as("every record of the other keys completed before the failure").isEqualTo(
                new HashSet<>(others));
        assertThat(ProcessingTest.committed(kafka, group)).containsEntry(tp, 9L);

        KafkaFluxConsumer<String, String> second = groupMember(protocol, kafka, topic, group);
        List<Long> ran = new CopyOnWriteArrayList<>();
        Disposable d = second.process(ProcessingOptions.<String, String>ordering(Ordering.KEY),
                r -> Mono.fromRunnable(() -> ran.add(r.offset()))).subscribe();
        try {
            await("the records not done: " + ran, () -> ran.size() >= k1From9.size());
            GroupKit.sleep(1500);
            assertThat(ran).as("run again: what was not done, and nothing else").containsExactlyElementsOf(
                    k1From9.stream().sorted().toList());
        } finally {
            d.dispose();
            second.close().block(WAIT);
        }
    }

    /**
     * Guide, Processing: KEY ordering, "retry(n, first) retries up to n times ... After the last attempt: the
     * onFailure handler (e.g. a dead-letter write; the record is acknowledged once its Mono completed)"; other keys go
     * on meanwhile, the failed key's later records start after it, in offset order, and the commit passes all.
     */
    @Test
    void aKeyThatAlwaysFailsGoesToTheDeadLettersOnceAndEverythingElseGoesOn(EmbeddedKafkaCluster kafka)
            throws Exception {
        String topic = "u21-process-dead-letter";
        String group = "g-" + topic;
        TopicPartition tp = keyed(kafka, topic);
        KafkaFluxConsumer<String, String> consumer = groupMember("classic", kafka, topic, group);
        List<String> deadLetters = new CopyOnWriteArrayList<>();
        try {
            List<ProcessedRecord<String, String>> results = consumer.process(
                            ProcessingOptions.<String, String>ordering(Ordering.KEY)
                                    .retry(2, Duration.ofMillis(10))
                                    .onFailure((r, e) -> Mono.fromRunnable(() -> deadLetters.add(r.offset() + " "
                                            + e.getMessage()))),
                            r -> r.offset() == 9 ? Mono.error(new IllegalStateException("bad order"))
                                    : Mono.delay(Duration.ofMillis(2)))
                    .take(40).collectList().block(WAIT);
            assertThat(results).hasSize(40);
            assertThat(deadLetters).containsExactly("9 bad order");
            ProcessedRecord<String, String> failed = results.stream().filter(p -> p.record().offset() == 9)
                    .findFirst().orElseThrow();
            assertThat(failed.outcome()).isEqualTo(Outcome.FAILED_HANDLED);
            assertThat(failed.attempts()).isEqualTo(3);
            assertThat(results).filteredOn(p -> p.record().offset() != 9)
                    .allMatch(p -> p.outcome() == Outcome.PROCESSED && p.attempts() == 1);
            List<Long> k1 = results.stream().filter(p -> p.record().key().equals("k1"))
                    .map(p -> p.record().offset()).toList();
            assertThat(k1).as("k1 in offset order, its later records after the failed one")
                    .containsExactly(1L, 5L, 9L, 13L, 17L, 21L, 25L, 29L, 33L, 37L);
        } finally {
            consumer.close().block(WAIT);
        }
        assertThat(ProcessingTest.committed(kafka, group)).containsEntry(tp, 40L);
    }

    // ------------------------------------------------------------------------------------------ receiveBatches()

    /**
     * Guide, Batches: "at most max.poll.records records ... A pause or a seek that lands while a batch is built ends
     * it there: the records taken before go out, the rest waits for the resume or is replaced by the records from
     * the new position"; Where a consumer stands: position is "the offset of the next record this consumer emits"
     * ("records fetched but not emitted do not count"). Manual assignment, two partitions of 30, batches of 10:
     * partition 0 paused after its first batch gets no batch while partition 1 is read to its end; a seek back to 0
     * and a resume then bring partition 0 from offset 0, in order.
     */
    @Test
    void batchesStopForAPausedPartitionAndStartAgainFromASeek(EmbeddedKafkaCluster kafka) throws Exception {
        String topic = "u21-batches";
        kafka.createTopic(topic, 2, 1);
        for (int p = 0; p < 2; p++) {
            List<ProducerRecord<String, String>> records = new ArrayList<>();
            for (int i = 0; i < 30; i++) {
                records.add(new ProducerRecord<>(topic, p, "k" + i, "p" + p + "-" + i));
            }
            SampleData.produce(kafka.bootstrapServers(), records);
        }
        TopicPartition p0 = new TopicPartition(topic, 0);
        TopicPartition p1 = new TopicPartition(topic, 1);
        Map<String, Object> props = new HashMap<>();
        props.put("bootstrap.servers", kafka.bootstrapServers());
        props.put("auto.offset.reset", "earliest");
        props.put("max.poll.records", 10);
        KafkaFluxConsumer<String, String> consumer = KafkaFluxConsumer.create(ConsumerOptions.create(props,
                Deserializers.string(), Deserializers.string()).assignment(List.of(p0, p1)));
        List<RecordBatch<String, String>> batches = new CopyOnWriteArrayList<>();
        AtomicReference<Throwable> error = new AtomicReference<>();
        // one batch at a time; p0 is paused from within its first batch (as an application whose sink is full would),
        // and the next batch is asked for only once the pause is in effect
        BaseSubscriber<RecordBatch<String, String>> d = new BaseSubscriber<>() {
            @Override
            protected void hookOnSubscribe(Subscription s) {
                s.request(1);
            }

            @Override
            protected void hookOnNext(RecordBatch<String, String> b) {
                batches.add(b);
                if (b.topicPartition().equals(p0) && offsetsOf(batches, p0).size() == b.records().size()) {
                    consumer.pause(List.of(p0)).subscribe(v -> { }, error::set, () -> request(1));
                } else {
                    request(1);
                }
            }

            @Override
            protected void hookOnError(Throwable t) {
                error.set(t);
            }
        };
        consumer.receiveBatches().subscribe(d);
        try {
            await("p1 to its end and p0's first batch: " + batches, () -> offsetsOf(batches, p1).size() >= 30
                    && !offsetsOf(batches, p0).isEmpty());
            GroupKit.sleep(1000);
            List<Long> p0Before = offsetsOf(batches, p0);
            System.out.println("batches before the resume: " + batches);
            assertThat(batches).allMatch(b -> b.records().size() <= 10 && !b.records().isEmpty());
            assertThat(p0Before).as("p0 while paused: its first batch only").containsExactlyElementsOf(
                    LongRange.of(0, p0Before.size()));
            assertThat(p0Before.size()).isBetween(1, 10);
            assertThat(consumer.position(p0).block(WAIT)).as("position: next record to emit")
                    .isEqualTo((long) p0Before.size());
            assertThat(offsetsOf(batches, p1)).containsExactlyElementsOf(LongRange.of(0, 30));

            consumer.seek(p0, 0).block(WAIT);
            assertThat(consumer.position(p0).block(WAIT)).isEqualTo(0L);
            consumer.resume(List.of(p0)).block(WAIT);
            await("p0 from 0 again to its end", () -> offsetsOf(batches, p0).size() >= p0Before.size() + 30);
            List<Long> p0All = offsetsOf(batches, p0);
            assertThat(p0All.subList(p0Before.size(), p0All.size())).containsExactlyElementsOf(LongRange.of(0, 30));
            assertThat(error.get()).isNull();
        } finally {
            d.dispose();
            consumer.close().block(WAIT);
        }
    }

    private static List<Long> offsetsOf(List<RecordBatch<String, String>> batches, TopicPartition tp) {
        return batches.stream().filter(b -> b.topicPartition().equals(tp))
                .flatMap(b -> b.records().stream().map(r -> r.offset())).toList();
    }

    /** Offsets from (inclusive) to (exclusive). */
    private static final class LongRange {
        static List<Long> of(long from, long to) {
            List<Long> out = new ArrayList<>();
            for (long i = from; i < to; i++) {
                out.add(i);
            }
            return out;
        }
    }

    // ---------------------------------------------------------------------------------- where a consumer stands

    /**
     * Guide, Where a consumer stands: "position(tp) of a partition not assigned fails with IllegalStateException ...
     * and currentLag of one is empty"; beginning/endOffsets answer for "any partitions, assigned or not". Called
     * while receive() runs but the member has not been assigned yet (it is joining), then once records flow:
     * position is one past the last emitted record and currentLag the end minus that.
     */
    @ParameterizedTest
    @ValueSource(strings = {"classic", "consumer"})
    void whereAMemberStandsWhileItJoinsAndOnceRecordsFlow(String protocol, EmbeddedKafkaCluster kafka)
            throws Exception {
        String topic = "u21-standing-" + protocol;
        String group = "g-" + topic;
        TopicPartition tp = keyed(kafka, topic);
        KafkaFluxConsumer<String, String> consumer = groupMember(protocol, kafka, topic, group);
        List<Long> emitted = new CopyOnWriteArrayList<>();
        BaseSubscriber<io.kflux.ConsumerRecord<String, String>> sub =
                new BaseSubscriber<>() {
                    @Override
                    protected void hookOnSubscribe(Subscription s) {
                        s.request(10);
                    }

                    @Override
                    protected void hookOnNext(io.kflux.ConsumerRecord<String, String> r) {
                        emitted.add(r.offset());
                        r.acknowledge();
                    }
                };
        try {
            consumer.receive().subscribe(sub);
            Set<TopicPartition> before = consumer.assignment();
            Throwable early = catchThrowable(() -> consumer.position(tp).block(Duration.ofSeconds(5)));
            Set<TopicPartition> after = consumer.assignment();
            System.out.println(protocol + ": while joining, assignment " + before + "/" + after + ", position: "
                    + early + ", lag " + consumer.currentLag(tp));
            if (before.isEmpty() && after.isEmpty()) {
                assertThat(early).as("position of a partition not assigned yet")
                        .isInstanceOf(IllegalStateException.class)
                        .hasMessageNotContaining("Timeout on blocking read");
                assertThat(consumer.currentLag(tp)).isEmpty();
            }
            assertThat(consumer.endOffsets(List.of(tp)).block(WAIT)).containsEntry(tp, 40L);
            assertThat(consumer.beginningOffsets(List.of(tp)).block(WAIT)).containsEntry(tp, 0L);

            await("ten records", () -> emitted.size() >= 10);
            GroupKit.sleep(300);
            assertThat(emitted).containsExactlyElementsOf(LongRange.of(0, 10));
            assertThat(consumer.assignment()).containsExactly(tp);
            assertThat(consumer.position(tp).block(WAIT)).isEqualTo(10L);
            await("lag known", () -> consumer.currentLag(tp).isPresent());
            assertThat(consumer.currentLag(tp).getAsLong()).isEqualTo(30L);
        } finally {
            sub.dispose();
            consumer.close().block(WAIT);
        }
    }
}
