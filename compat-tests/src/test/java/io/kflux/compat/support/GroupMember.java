package io.kflux.compat.support;

import io.kflux.ConsumerOptions;
import io.kflux.ConsumerRecord;
import io.kflux.Deserializers;
import io.kflux.KafkaFluxConsumer;
import io.kflux.RebalanceContext;
import io.kflux.RebalanceListener;
import io.kflux.TopicPartition;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.reactivestreams.Subscription;
import reactor.core.publisher.BaseSubscriber;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * A kflux consumer in a group, subscribed to one topic, for liveness and failover tests. It records every
 * rebalance callback (with the generation and member id the context gives), every record value it processed
 * (acknowledged, so auto commit commits it), and when records were emitted. Downstream can be blocked two ways:
 * {@link Blocking#STOP_REQUESTING} (the subscriber stops calling {@code request}) and
 * {@link Blocking#STUCK_CONCAT_MAP} (a {@code concatMap} whose inner {@code Mono} does not complete).
 */
public final class GroupMember implements AutoCloseable {

    /** How {@link #block()} stalls downstream. */
    public enum Blocking { STOP_REQUESTING, STUCK_CONCAT_MAP }

    /**
     * One record as kflux emitted it: when ({@link System#nanoTime()}), where from, its key and value size and its
     * timestamp (ms since epoch; the producer's clock with CreateTime).
     */
    public record Emission(long nanos, TopicPartition partition, long offset, int bytes, long timestamp) {
    }

    /** One rebalance callback as the listener saw it. */
    public record Event(long nanos, String kind, Set<TopicPartition> partitions, int generation, String memberId) {
        @Override
        public String toString() {
            return kind + " " + partitions + " (generation " + generation + ")";
        }
    }

    private static final int INITIAL_DEMAND = 16;

    private final String name;
    private final KafkaFluxConsumer<String, String> consumer;
    private final Blocking blocking;
    private final List<Event> events = new CopyOnWriteArrayList<>();
    private final Set<String> processed = ConcurrentHashMap.newKeySet();
    private final Map<TopicPartition, AtomicLong> emittedByPartition = new ConcurrentHashMap<>();
    private final AtomicLong emitted = new AtomicLong();
    private final AtomicLong duplicates = new AtomicLong();
    private final AtomicReference<Sinks.Empty<Void>> gate = new AtomicReference<>();
    private final AtomicReference<Throwable> error = new AtomicReference<>();
    private final java.util.Queue<Emission> timeline = new java.util.concurrent.ConcurrentLinkedQueue<>();
    private volatile long paceNanos;
    private volatile long lastEmittedNanos;
    private volatile long blockedSinceNanos;
    private volatile boolean holding;
    private volatile int lastGeneration = -1;
    private volatile String memberId = "";
    private Driver driver;

    /**
     * @param name     for messages
     * @param props    consumer properties (bootstrap.servers, group.id, timeouts ...)
     * @param topic    the subscription
     * @param blocking how {@link #block()} stalls downstream
     */
    public GroupMember(String name, Map<String, Object> props, String topic, Blocking blocking) {
        this.name = name;
        this.blocking = blocking;
        RebalanceListener listener = new RebalanceListener() {
            @Override
            public Mono<Void> onPartitionsAssigned(Collection<TopicPartition> partitions, RebalanceContext ctx) {
                return record("assigned", partitions, ctx);
            }

            @Override
            public Mono<Void> onPartitionsRevoked(Collection<TopicPartition> partitions, RebalanceContext ctx) {
                return record("revoked", partitions, ctx);
            }

            @Override
            public Mono<Void> onPartitionsLost(Collection<TopicPartition> partitions, RebalanceContext ctx) {
                return record("lost", partitions, ctx);
            }
        };
        this.consumer = KafkaFluxConsumer.create(ConsumerOptions.create(props, Deserializers.string(),
                Deserializers.string()).subscription(List.of(topic)).rebalanceListener(listener));
    }

    private Mono<Void> record(String kind, Collection<TopicPartition> partitions, RebalanceContext ctx) {
        Set<TopicPartition> sorted = new TreeSet<>(java.util.Comparator.comparing(TopicPartition::topic)
                .thenComparingInt(TopicPartition::partition));
        sorted.addAll(partitions);
        events.add(new Event(System.nanoTime(), kind, sorted, ctx.generationId(), ctx.memberId()));
        if (ctx.generationId() >= 0) {
            lastGeneration = ctx.generationId();
            memberId = ctx.memberId();
        }
        return Mono.empty();
    }

    /** Subscribes: the member joins the group and processes records until {@link #block()}. */
    public GroupMember start() {
        Flux<ConsumerRecord<String, String>> records = consumer.receive().doOnNext(r -> {
            emitted.incrementAndGet();
            timeline.add(new Emission(System.nanoTime(), r.topicPartition(), r.offset(),
                    Math.max(0, r.serializedKeySize()) + Math.max(0, r.serializedValueSize()), r.timestamp()));
            emittedByPartition.computeIfAbsent(r.topicPartition(), tp -> new AtomicLong()).incrementAndGet();
            lastEmittedNanos = System.nanoTime();
        });
        if (blocking == Blocking.STUCK_CONCAT_MAP) {
            records = records.concatMap(r -> {
                Sinks.Empty<Void> g = gate.get();
                if (g == null) {
                    return Mono.just(r);
                }
                if (blockedSinceNanos == 0) {
                    blockedSinceNanos = System.nanoTime();
                }
                return g.asMono().thenReturn(r);
            });
        }
        driver = new Driver();
        records.subscribe(driver);
        return this;
    }

    /** Stalls downstream from the next record on (see {@link Blocking}). */
    public void block() {
        if (blocking == Blocking.STUCK_CONCAT_MAP) {
            gate.set(Sinks.empty());
        } else {
            holding = true;
        }
    }

    /** Lets records flow again. */
    public void unblock() {
        blockedSinceNanos = 0;
        if (blocking == Blocking.STUCK_CONCAT_MAP) {
            Sinks.Empty<Void> g = gate.getAndSet(null);
            if (g != null) {
                g.tryEmitEmpty();
            }
        } else {
            holding = false;
            if (driver != null) {
                driver.resume();
            }
        }
    }

    /**
     * Processes at most {@code perSecond} records per second from now on (requests are spaced out, nothing
     * blocks), so that a backlog builds up; 0 for as fast as records come.
     */
    public void pace(int perSecond) {
        paceNanos = perSecond <= 0 ? 0 : 1_000_000_000L / perSecond;
    }

    /** Every record emitted so far, in order. */
    public List<Emission> emissions() {
        return List.copyOf(timeline);
    }

    /**
     * When downstream stalled: the first record held by the stuck {@code concatMap}, or the moment the last
     * outstanding request was used up; 0 while not blocked.
     */
    public long blockedSinceNanos() {
        return blockedSinceNanos;
    }

    private final class Driver extends BaseSubscriber<ConsumerRecord<String, String>> {
        private final AtomicLong outstanding = new AtomicLong();
        private long nextRequestNanos;

        @Override
        protected void hookOnSubscribe(Subscription subscription) {
            outstanding.addAndGet(INITIAL_DEMAND);
            request(INITIAL_DEMAND);
        }

        @Override
        protected void hookOnNext(ConsumerRecord<String, String> r) {
            if (!processed.add(r.value())) {
                duplicates.incrementAndGet();
            }
            r.acknowledge();
            long left = outstanding.decrementAndGet();
            if (!holding) {
                outstanding.incrementAndGet();
                long pace = paceNanos;
                if (pace == 0) {
                    request(1);
                } else {
                    long now = System.nanoTime();
                    nextRequestNanos = Math.max(now, nextRequestNanos) + pace;
                    reactor.core.scheduler.Schedulers.parallel().schedule(() -> request(1),
                            nextRequestNanos - now, java.util.concurrent.TimeUnit.NANOSECONDS);
                }
            } else if (left == 0) {
                blockedSinceNanos = System.nanoTime();
            }
        }

        void resume() {
            long top = INITIAL_DEMAND - outstanding.get();
            if (top > 0) {
                outstanding.addAndGet(top);
                request(top);
            }
        }

        @Override
        protected void hookOnError(Throwable t) {
            error.set(t);
        }
    }

    public String name() {
        return name;
    }

    public KafkaFluxConsumer<String, String> consumer() {
        return consumer;
    }

    public Set<TopicPartition> assignment() {
        return consumer.assignment();
    }

    /** Rebalance callbacks so far, in order. */
    public List<Event> events() {
        return List.copyOf(events);
    }

    /** The generation of the last callback made inside a generation, -1 before any. */
    public int generation() {
        return lastGeneration;
    }

    /** The member id of the last callback made inside a generation. */
    public String memberId() {
        return memberId;
    }

    /** Values processed (and acknowledged). */
    public Set<String> processed() {
        return processed;
    }

    /** Records emitted by kflux so far (before any downstream stage). */
    public long emitted() {
        return emitted.get();
    }

    /** Records of {@code tp} emitted so far. */
    public long emitted(TopicPartition tp) {
        AtomicLong n = emittedByPartition.get(tp);
        return n == null ? 0 : n.get();
    }

    public long duplicates() {
        return duplicates.get();
    }

    public long lastEmittedNanos() {
        return lastEmittedNanos;
    }

    /** The error that ended the flux, or null. */
    public Throwable error() {
        return error.get();
    }

    @Override
    public String toString() {
        return name + "[" + memberId + ", generation " + lastGeneration + ", assignment " + assignment() + "]";
    }

    /** Commits what was acknowledged, then closes (LeaveGroup). */
    @Override
    public void close() {
        unblock();
        try {
            consumer.close().block(Duration.ofSeconds(30));
        } catch (RuntimeException e) {
            System.err.println(name + ": close failed: " + e);
        }
    }
}
