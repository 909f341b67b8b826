package io.kflux.compat;

import static io.kflux.compat.ShareConsumerTest.WAIT;
import static io.kflux.compat.ShareConsumerTest.send;
import static io.kflux.compat.ShareConsumerTest.topicWith;
import static io.kflux.compat.ShareConsumerTest.waitFor;
import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.Deserializers;
import io.kflux.KafkaProtocolException;
import io.kflux.KafkaShareConsumer;
import io.kflux.ShareConsumerOptions;
import io.kflux.ShareRecord;
import io.kflux.compat.support.BrokerVersion;
import io.kflux.test.KafkaTest;
import io.kflux.test.broker.EmbeddedKafkaCluster;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.reactivestreams.Subscription;
import reactor.core.Disposable;
import reactor.core.publisher.BaseSubscriber;

/**
 * Acquisition locks against a real broker whose locks last 2 s ({@code group.share.record.lock.duration.ms}, its
 * minimum lowered to allow it) and whose records are archived after 2 deliveries
 * ({@code group.share.delivery.count.limit}): a member that stops acknowledging loses its records to another member
 * (delivery count 2), and its accept of one of them afterwards fails with INVALID_RECORD_STATE while it keeps
 * consuming; a record renewed automatically (KIP-1222) outlives several lock durations without going to anyone else;
 * a record released until the delivery count limit is archived.
 */
@KafkaTest(nodes = 1, brokerProperties = {"group.share.heartbeat.interval.ms=500",
        "group.share.min.heartbeat.interval.ms=500", "group.share.min.record.lock.duration.ms=1000",
        "group.share.record.lock.duration.ms=2000", "group.share.delivery.count.limit=2",
        "group.share.min.delivery.count.limit=2"})
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ShareLockTest {
    private static final long LOCK_MS = 2000;

    @BeforeEach
    void shareGroupsNeeded() {
        org.junit.jupiter.api.Assumptions.assumeTrue(BrokerVersion.current().atLeast(4, 2),
                "share groups are production-ready from Kafka 4.2");
    }

    @Test
    void anExpiredLockHandsTheRecordsToAnotherMemberAndALateAcceptFailsTyped(EmbeddedKafkaCluster kafka)
            throws Exception {
        String topic = "lock-expiry";
        String group = "lock-expiry-group";
        topicWith(kafka, topic, group, "a", "b", "c");
        // the first member takes the three records and stops acknowledging (no renewal)
        KafkaShareConsumer<String, String> stalled = KafkaShareConsumer.create(options(kafka, group, 0, topic));
        Holder held = new Holder(3);
        stalled.receive().subscribe(held);
        KafkaShareConsumer<String, String> other = KafkaShareConsumer.create(options(kafka, group, 0, topic));
        List<String> otherSeen = new CopyOnWriteArrayList<>();
        Disposable otherSub = null;
        try {
            waitFor(() -> held.records.size() == 3, "the first member received: %s", held.records);
            assertThat(held.records).extracting(ShareRecord::deliveryCount).containsOnly((short) 1);
            otherSub = other.receive().flatMap(r -> r.accept().thenReturn(r.value() + "#" + r.deliveryCount()))
                    .subscribe(otherSeen::add);
            waitFor(() -> otherSeen.size() == 3, "redelivered to the other member: %s", otherSeen);
            assertThat(otherSeen).containsExactlyInAnyOrder("a#2", "b#2", "c#2");

            ShareRecord<String, String> late = held.records.get(0);
            AtomicReference<Throwable> lateError = new AtomicReference<>();
            late.accept().doOnError(lateError::set).onErrorResume(e -> reactor.core.publisher.Mono.empty())
                    .block(WAIT);
            assertThat(lateError.get()).isInstanceOf(KafkaProtocolException.class)
                    .hasMessageContaining("INVALID_RECORD_STATE");
            assertThat(((KafkaProtocolException) lateError.get()).errorName()).isEqualTo("INVALID_RECORD_STATE");

            // the first member keeps going: once the other left, it gets and accepts the next record
            other.close().block(WAIT);
            otherSub.dispose();
            send(kafka, topic, "after");
            held.more(1);
            waitFor(() -> held.records.size() == 4, "the first member received the next record: %s", held.records);
            ShareRecord<String, String> next = held.records.get(3);
            assertThat(next.value()).isEqualTo("after");
            next.accept().block(WAIT);
            assertThat(held.error).as("the first member's stream").hasValue(null);
        } finally {
            stalled.close().block(WAIT);
            other.close().block(WAIT);
            held.dispose();
            if (otherSub != null) {
                otherSub.dispose();
            }
        }
    }

    @Test
    void renewalKeepsASlowRecordFromOtherMembersPastSeveralLockDurations(EmbeddedKafkaCluster kafka) throws Exception {
        String topic = "lock-renew";
        String group = "lock-renew-group";
        topicWith(kafka, topic, group, "slow");
        KafkaShareConsumer<String, String> worker = KafkaShareConsumer.create(options(kafka, group, 300_000, topic));
        Holder held = new Holder(1);
        worker.receive().subscribe(held);
        KafkaShareConsumer<String, String> other = KafkaShareConsumer.create(options(kafka, group, 0, topic));
        List<String> otherSeen = new CopyOnWriteArrayList<>();
        Disposable otherSub = null;
        try {
            waitFor(() -> held.records.size() == 1, "the worker received: %s", held.records);
            otherSub = other.receive().flatMap(r -> r.accept().thenReturn(r.value() + "#" + r.deliveryCount()))
                    .subscribe(otherSeen::add);
            send(kafka, topic, "warm");
            waitFor(() -> otherSeen.contains("warm#1"), "the other member fetches: %s", otherSeen);
            // the work on the slow record goes on for two more lock durations (the scenario itself, not a wait for a
            // condition) while the other member fetches; without renewals the lock would expire within the first
            reactor.core.publisher.Mono.delay(Duration.ofMillis(2 * LOCK_MS)).block();
            held.records.get(0).accept().block(WAIT);
            send(kafka, topic, "marker");
            waitFor(() -> otherSeen.contains("marker#1"), "the other member still fetches: %s", otherSeen);
            assertThat(otherSeen).as("the slow record never went to the other member")
                    .containsExactly("warm#1", "marker#1");
            assertThat(held.error).hasValue(null);
        } finally {
            worker.close().block(WAIT);
            other.close().block(WAIT);
            held.dispose();
            if (otherSub != null) {
                otherSub.dispose();
            }
        }
    }

    @Test
    void aRecordReleasedUpToTheDeliveryCountLimitIsArchived(EmbeddedKafkaCluster kafka) throws Exception {
        String topic = "lock-limit";
        String group = "lock-limit-group";
        topicWith(kafka, topic, group, "poison");
        KafkaShareConsumer<String, String> c = KafkaShareConsumer.create(options(kafka, group, 300_000, topic));
        List<String> seen = new CopyOnWriteArrayList<>();
        Disposable sub = c.receive().flatMap(r -> {
            seen.add(r.value() + "#" + r.deliveryCount());
            return r.value().equals("poison") ? r.release() : r.accept();
        }).subscribe();
        try {
            waitFor(() -> seen.contains("poison#2"), "the poison record delivered twice: %s", seen);
            send(kafka, topic, "after");
            waitFor(() -> seen.contains("after#1"), "the record after it: %s", seen);
            assertThat(seen).as("archived after 2 deliveries (group.share.delivery.count.limit)")
                    .containsExactly("poison#1", "poison#2", "after#1");
        } finally {
            c.close().block(WAIT);
            sub.dispose();
        }
    }

    private static ShareConsumerOptions<String, String> options(EmbeddedKafkaCluster kafka, String group,
                                                                long renewForMs, String topic) {
        return ShareConsumerOptions.create(Map.of("bootstrap.servers", kafka.bootstrapServers(), "group.id", group,
                        "share.acknowledgement.mode", "explicit", "share.lock.renewal.max.ms", renewForMs),
                Deserializers.string(), Deserializers.string()).subscription(List.of(topic));
    }

    /** Asks for a given number of records and keeps them without acknowledging. */
    private static final class Holder extends BaseSubscriber<ShareRecord<String, String>> {
        final List<ShareRecord<String, String>> records = new CopyOnWriteArrayList<>();
        final AtomicReference<Throwable> error = new AtomicReference<>();
        private final long first;

        Holder(long first) {
            this.first = first;
        }

        @Override
        protected void hookOnSubscribe(Subscription s) {
            s.request(first);
        }

        @Override
        protected void hookOnNext(ShareRecord<String, String> r) {
            records.add(r);
        }

        @Override
        protected void hookOnError(Throwable t) {
            error.set(t);
        }

        void more(long n) {
            request(n);
        }
    }
}
