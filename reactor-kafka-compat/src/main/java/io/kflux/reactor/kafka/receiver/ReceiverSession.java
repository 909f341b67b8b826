package io.kflux.reactor.kafka.receiver;

import io.kflux.ConsumerOptions;
import io.kflux.KafkaFluxConsumer;
import io.kflux.OffsetAndMetadata;
import io.kflux.kafka.serde.KafkaDeserializerAdapter;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * One subscription of a {@link KafkaReceiver}: the kflux consumer made from the {@link ReceiverOptions}, and the
 * commit behaviour of the receive mode on top of it. kflux already does the periodic commit of acknowledged offsets
 * (auto commit), the commit on revoke and the commit on close; this class adds what reactor-kafka has beyond that:
 * commits every {@code commitBatchSize} acknowledgements, commits before delivery (at most once), and assignment
 * listeners for a manual assignment.
 */
final class ReceiverSession<K, V> {

    private static final Logger log = LoggerFactory.getLogger(ReceiverSession.class);

    /** How offsets get committed. */
    enum Mode {
        /** The application acknowledges (or the receiver does, per batch); acknowledged offsets are committed. */
        ACKNOWLEDGE,
        /** Each record's offset is committed before the record is delivered. */
        AT_MOST_ONCE
    }

    private final ReceiverOptions<K, V> options;
    private final KafkaFluxConsumer<K, V> consumer;
    private final ListenerBridge listeners;
    /** Acknowledgements since the last batch commit ({@code commitBatchSize}). */
    private final AtomicLong acknowledgedSinceCommit = new AtomicLong();
    /** At most once: per partition, the offset committed ahead of delivery (records below it may be delivered). */
    private final Map<io.kflux.TopicPartition, Long> committedAhead = new ConcurrentHashMap<>();
    /**
     * At most once: per partition, the offset of the last record delivered downstream (before the first delivery:
     * the offset before the first record committed ahead, so a take-back goes back to that record).
     */
    private final Map<io.kflux.TopicPartition, Long> delivered = new ConcurrentHashMap<>();
    /**
     * At most once: the commit-ahead in flight per partition. concatMap starts the next record's commit as soon as
     * the previous record is passed on, so a revocation or a stop can meet one in flight: the take-back waits for it,
     * or it would land after the take-back and skip records never delivered.
     */
    private final Map<io.kflux.TopicPartition, Mono<Void>> aheadInFlight = new ConcurrentHashMap<>();
    /** At most once: partitions taken back (revoked, stopping); no further commit-ahead until assigned again. */
    private final java.util.Set<io.kflux.TopicPartition> aheadClosed = ConcurrentHashMap.newKeySet();
    /**
     * At most once: per partition, how many times its commit-ahead was taken back. A record passed its commit but
     * still waiting for downstream demand when its partition is taken back belongs to the old ownership: the
     * take-back went back to it, so delivering it as well would hand it over twice (it is read again).
     */
    private final Map<io.kflux.TopicPartition, Integer> takeBacks = new ConcurrentHashMap<>();
    /** Makes "not closed, so start a commit-ahead and register it" one step against the take-back's "close". */
    private final Object aheadLock = new Object();
    private final Scheduler scheduler;
    private final ConsumerFacade<K, V> facade;

    ReceiverSession(ReceiverOptions<K, V> options, Mode mode) {
        this.options = options;
        this.listeners = new ListenerBridge(options.assignListeners(), options.revokeListeners(), this);
        this.consumer = KafkaFluxConsumer.create(kfluxOptions(options, mode).rebalanceListener(listeners));
        this.scheduler = options.schedulerSupplier() == null ? null : options.schedulerSupplier().get();
        this.facade = new ConsumerFacade<>(consumer, options);
    }

    private static <K, V> ConsumerOptions<K, V> kfluxOptions(ReceiverOptions<K, V> options, Mode mode) {
        Map<String, Object> props = new LinkedHashMap<>(options.consumerProperties());
        // instances are used as given, as the official consumer does; class names are made per consumer
        if (options.keyDeserializer() != null) {
            props.put("key.deserializer", KafkaDeserializerAdapter.of(options.keyDeserializer()));
        }
        if (options.valueDeserializer() != null) {
            props.put("value.deserializer", KafkaDeserializerAdapter.of(options.valueDeserializer()));
        }
        // without group.id there is nowhere to commit (kflux refuses auto commit then)
        boolean periodic = mode == Mode.ACKNOWLEDGE && !options.commitInterval().isZero() && options.groupId() != null;
        props.put("enable.auto.commit", periodic);
        if (periodic) {
            props.put("auto.commit.interval.ms", (int) Math.min(Integer.MAX_VALUE, options.commitInterval().toMillis()));
        }
        ConsumerOptions<K, V> co = ConsumerOptions.fromProperties(props);
        if (options.assignment() != null) {
            return co.assignment(KafkaTypes.kflux(options.assignment()));
        }
        if (options.subscriptionTopics() != null) {
            return co.subscription(options.subscriptionTopics());
        }
        if (options.subscriptionPattern() != null) {
            return co.subscription(options.subscriptionPattern());
        }
        throw new IllegalStateException("no subscription or assignment in the ReceiverOptions: call subscription(...)"
                                        + " or assignment(...)");
    }

    KafkaFluxConsumer<K, V> consumer() {
        return consumer;
    }

    ReceiverOptions<K, V> options() {
        return options;
    }

    /**
     * At most once: what takes back commits made ahead of delivery for these partitions, and forgets them (a seek
     * may move the partitions). On a clean stop or a revocation the records committed ahead but never delivered
     * are thus delivered later instead of lost, as reactor-kafka does. No commit-ahead starts for these partitions
     * afterwards (until {@link #reopenCommitAhead}), and one in flight is waited for first.
     *
     * @return per partition the offset after the last delivered record, where a commit went past it
     */
    Mono<Map<io.kflux.TopicPartition, OffsetAndMetadata>> takeBackCommitAhead(
            Collection<io.kflux.TopicPartition> partitions) {
        List<Mono<Void>> pending = new java.util.ArrayList<>();
        synchronized (aheadLock) {
            for (io.kflux.TopicPartition tp : partitions) {
                aheadClosed.add(tp);
                takeBacks.merge(tp, 1, Integer::sum);
                Mono<Void> inFlight = aheadInFlight.get(tp);
                if (inFlight != null) {
                    // bounded: a commit that hangs (broker gone) must not hold a revocation or a stop forever
                    pending.add(inFlight.timeout(java.time.Duration.ofSeconds(10), Mono.empty())
                            .onErrorResume(e -> Mono.empty()));
                }
            }
        }
        return Mono.when(pending).then(Mono.fromCallable(() -> {
            Map<io.kflux.TopicPartition, OffsetAndMetadata> undo = new HashMap<>();
            for (io.kflux.TopicPartition tp : partitions) {
                Long ahead = committedAhead.remove(tp);
                Long last = delivered.remove(tp);
                if (ahead != null && last != null && ahead > last + 1) {
                    undo.put(tp, new OffsetAndMetadata(last + 1));
                }
            }
            return undo;
        }));
    }

    /** At most once: assigned (again), these partitions get commits ahead of delivery again. */
    void reopenCommitAhead(Collection<io.kflux.TopicPartition> partitions) {
        synchronized (aheadLock) {
            aheadClosed.removeAll(partitions);
        }
    }

    /** A manual assignment has no rebalance, but reactor-kafka calls assignment listeners for it all the same. */
    private Mono<Void> start() {
        if (options.assignment() == null || options.assignListeners().isEmpty()) {
            return Mono.empty();
        }
        return listeners.assignedManually(KafkaTypes.kflux(options.assignment()));
    }

    private <T> Flux<T> deliver(Flux<T> records, Integer prefetch) {
        Flux<T> started = start().thenMany(records);
        if (scheduler != null) {
            return prefetch == null ? started.publishOn(scheduler) : started.publishOn(scheduler, prefetch);
        }
        return prefetch == null ? started : started.limitRate(prefetch);
    }

    Flux<ReceiverRecord<K, V>> records(Integer prefetch) {
        return deliver(consumer.receive().map(r -> new ReceiverRecord<>(KafkaTypes.kafka(r), new Offset(r))), prefetch);
    }

    /** What stands for the records of one poll: what arrived within the poll timeout, at most max.poll.records. */
    private Flux<List<io.kflux.ConsumerRecord<K, V>>> polls() {
        int maxBatch = maxPollRecords(options.consumerProperty("max.poll.records"));
        return consumer.receive().bufferTimeout(maxBatch, options.pollTimeout(), true);
    }

    Flux<Flux<ConsumerRecord<K, V>>> autoAckBatches(Integer prefetch) {
        return deliver(polls().map(batch ->
                // acknowledged as the batch terminates, before its end is signalled downstream: a pipeline that
                // stops right after a batch (take, takeUntil) then commits the batch when it stops
                Flux.fromIterable(batch).map(KafkaTypes::kafka)
                        .doOnTerminate(() -> batch.forEach(this::acknowledge))), prefetch);
    }

    /** One inner flux per {@link io.kflux.RecordBatch}: a partition's fetched result, handed over whole by kflux. */
    Flux<Flux<ReceiverRecord<K, V>>> batches(Integer prefetch) {
        return deliver(consumer.receiveBatches().map(batch -> Flux.fromIterable(batch.records())
                .map(r -> new ReceiverRecord<>(KafkaTypes.kafka(r), new Offset(r)))), prefetch);
    }

    /** The kafka-clients view {@link KafkaReceiver#doOnConsumer} hands out. */
    org.apache.kafka.clients.consumer.Consumer<K, V> consumerFacade() {
        return facade;
    }

    Flux<ConsumerRecord<K, V>> atmostOnce(Integer prefetch) {
        // a record of a partition taken back is neither committed nor delivered: it is read again after a rejoin
        return deliver(consumer.receive().concatMap(r -> {
                    Mono<Void> commit;
                    int ownership;
                    synchronized (aheadLock) {
                        if (aheadClosed.contains(r.topicPartition())) {
                            return Mono.<Committed<K, V>>empty();
                        }
                        ownership = takeBacks.getOrDefault(r.topicPartition(), 0);
                        commit = commitAhead(r); // registered in aheadInFlight before the lock is let go
                    }
                    return commit.thenReturn(new Committed<>(r, ownership));
                })
                               // concatMap may hold a record until downstream asks for it, and its partition may
                               // be taken back meanwhile: decided as it goes downstream
                               .filter(c -> deliverable(c.record(), c.ownership()))
                               .map(c -> KafkaTypes.kafka(c.record())), prefetch);
    }

    /** At most once: a record whose commit-ahead was made while its partition had been taken back that many times. */
    private record Committed<K, V>(io.kflux.ConsumerRecord<K, V> record, int ownership) { }

    /**
     * At most once: whether {@code r}, committed while its partition had been taken back {@code ownership} times,
     * may still be delivered; if so it counts as delivered, in one step against a take-back reading what was.
     */
    private boolean deliverable(io.kflux.ConsumerRecord<K, V> r, int ownership) {
        synchronized (aheadLock) {
            io.kflux.TopicPartition tp = r.topicPartition();
            if (aheadClosed.contains(tp) || takeBacks.getOrDefault(tp, 0) != ownership) {
                return false; // taken back to it or before it: read again after the rejoin
            }
            delivered.put(tp, r.offset());
            return true;
        }
    }

    private Mono<Void> commitAhead(io.kflux.ConsumerRecord<K, V> r) {
        Long ahead = committedAhead.get(r.topicPartition());
        if (ahead != null && r.offset() < ahead) {
            return Mono.empty(); // an earlier commit already covers this record
        }
        long target = r.offset() + 1 + options.atmostOnceCommitAheadSize();
        // nothing delivered yet from this partition: a take-back goes back to this record, not past it
        delivered.putIfAbsent(r.topicPartition(), r.offset() - 1);
        Mono<Void> commit = consumer.commit(Map.of(r.topicPartition(), new OffsetAndMetadata(target)))
                .doOnSuccess(v -> committedAhead.put(r.topicPartition(), target))
                .doFinally(s -> aheadInFlight.remove(r.topicPartition()))
                .cache();
        aheadInFlight.put(r.topicPartition(), commit);
        return commit;
    }

    private void acknowledge(io.kflux.ConsumerRecord<K, V> r) {
        r.acknowledge();
        int batch = options.commitBatchSize();
        if (batch > 0 && acknowledgedSinceCommit.incrementAndGet() % batch == 0) {
            consumer.commit().subscribe(null, e -> log.warn("commit after {} acknowledgements failed: {}", batch,
                                                             e.toString()));
        }
    }

    /**
     * A group member's commit-ahead is taken back by its revocation, which the consumer runs while it stops and
     * still owns the partitions; close() must not race it (it did: when close() took the offsets first, its commit
     * came after the member had left and failed, leaving the commit ahead of undelivered records). A manual
     * assignment has no revocation, so close() takes back before the consumer closes, and calls the revoke listeners
     * as reactor-kafka does when the flux ends, before the consumer's final commit of acknowledged offsets (a
     * listener that fails is logged; the close goes on).
     */
    Mono<Void> close() {
        Duration timeout = options.closeTimeout();
        Mono<Void> closeConsumer = timeout == null ? consumer.close() : consumer.close(timeout);
        if (options.assignment() == null) {
            return scheduler == null ? closeConsumer : closeConsumer.doFinally(s -> scheduler.dispose());
        }
        java.util.Set<io.kflux.TopicPartition> open = new java.util.HashSet<>(committedAhead.keySet());
        open.addAll(aheadInFlight.keySet());
        Mono<Void> takeBack = takeBackCommitAhead(open).flatMap(undo -> undo.isEmpty() ? Mono.<Void>empty()
                : consumer.commit(undo).onErrorResume(e -> {
                    log.warn("taking back the at-most-once commit-ahead {} failed: {}", undo, e.toString());
                    return Mono.empty();
                }));
        Mono<Void> revoked = listeners.revokedManually(KafkaTypes.kflux(options.assignment())).onErrorResume(e -> {
            log.warn("a revoke listener failed as the receiver stopped: {}", e.toString());
            return Mono.empty();
        });
        Mono<Void> close = takeBack.then(revoked).then(closeConsumer);
        return scheduler == null ? close : close.doFinally(s -> scheduler.dispose());
    }

    private static int maxPollRecords(Object value) {
        if (value == null) {
            return 500;
        }
        int n = value instanceof Number num ? num.intValue() : Integer.parseInt(value.toString().trim());
        if (n < 1) {
            throw new io.kflux.ConfigException("max.poll.records", value, "at least 1");
        }
        return n;
    }

    /** A record's {@link ReceiverOffset}: acknowledgement counts once, however often it is called. */
    private final class Offset implements ReceiverOffset {
        private final io.kflux.ConsumerRecord<K, V> record;
        private final AtomicBoolean acknowledged = new AtomicBoolean();

        Offset(io.kflux.ConsumerRecord<K, V> record) {
            this.record = record;
        }

        @Override
        public org.apache.kafka.common.TopicPartition topicPartition() {
            return KafkaTypes.kafka(record.topicPartition());
        }

        @Override
        public long offset() {
            return record.offset();
        }

        @Override
        public void acknowledge() {
            if (acknowledged.compareAndSet(false, true)) {
                ReceiverSession.this.acknowledge(record);
            }
        }

        @Override
        public Mono<Void> commit() {
            return Mono.defer(() -> {
                acknowledge();
                return consumer.commit();
            });
        }

        @Override
        public String toString() {
            return record.topic() + "-" + record.partition() + "@" + record.offset();
        }
    }

    @Override
    public String toString() {
        return "ReceiverSession[" + Objects.toString(options) + "]";
    }
}
