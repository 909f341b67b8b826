package io.kflux.compat.support;

import io.kflux.KafkaFluxConsumer;
import io.kflux.TopicPartition;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.StringDeserializer;
import reactor.core.Disposable;

/**
 * A group member of either client, kflux or the official {@link KafkaConsumer}, that stamps every record it consumed
 * with when it arrived ({@link System#nanoTime()}), so fault tests can hold both clients to the same ledger and
 * measure how soon consumption resumed. kflux acknowledges each record as it sees it (its auto commit commits
 * them); the official consumer polls on a thread of its own with its own auto commit. Either way the properties say
 * how often offsets are committed.
 */
public abstract sealed class StampedMember implements GroupKit.Member {

    /** One record as the member consumed it. */
    public record Consumed(long nanos, TopicPartition partition, long offset, String value) {
    }

    private final String name;
    private final ConcurrentLinkedQueue<Consumed> consumed = new ConcurrentLinkedQueue<>();
    private final AtomicReference<Throwable> error = new AtomicReference<>();
    private volatile long lastNanos;

    private StampedMember(String name) {
        this.name = name;
    }

    /** A kflux member subscribed to {@code topic}; {@code props} as for {@link GroupKit#consumer}. */
    public static StampedMember kflux(String name, Map<String, Object> props, String topic) {
        return new Kflux(name, GroupKit.consumer(props, topic, null));
    }

    /** An official consumer subscribed to {@code topic}, string deserializers, polling every 100 ms at most. */
    public static StampedMember official(String name, Properties props, String topic) {
        return new Official(name, props, topic);
    }

    /** Subscribes (kflux) or starts the poll thread (official). */
    public abstract StampedMember start();

    final void consumed(TopicPartition partition, long offset, String value) {
        long now = System.nanoTime();
        consumed.add(new Consumed(now, partition, offset, value));
        lastNanos = now;
    }

    final void failed(Throwable t) {
        error.compareAndSet(null, t);
    }

    /** When the last record arrived, 0 before any. */
    public long lastNanos() {
        return lastNanos;
    }

    /** When the first record after {@code sinceNanos} arrived, or -1 if none did yet. */
    public long firstAfter(long sinceNanos) {
        for (Consumed c : consumed) {
            if (c.nanos() > sinceNanos) {
                return c.nanos();
            }
        }
        return -1;
    }

    /** Every record consumed so far, in order. */
    public List<Consumed> consumed() {
        return List.copyOf(consumed);
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public List<String> values() {
        List<String> out = new ArrayList<>();
        consumed.forEach(c -> out.add(c.value()));
        return out;
    }

    @Override
    public Throwable error() {
        return error.get();
    }

    @Override
    public String toString() {
        return name + assignment();
    }

    private static final class Kflux extends StampedMember {
        private final KafkaFluxConsumer<String, String> consumer;
        private Disposable subscription;

        Kflux(String name, KafkaFluxConsumer<String, String> consumer) {
            super(name);
            this.consumer = consumer;
        }

        @Override
        public StampedMember start() {
            subscription = consumer.receive().subscribe(r -> {
                consumed(r.topicPartition(), r.offset(), r.value());
                r.acknowledge();
            }, this::failed, () -> failed(new AssertionError("receive() completed")));
            return this;
        }

        @Override
        public Set<TopicPartition> assignment() {
            return consumer.assignment();
        }

        /** Cancels (the member leaves the group) and closes. */
        @Override
        public void stop() {
            if (subscription != null) {
                subscription.dispose();
            }
            consumer.close(Duration.ofSeconds(10)).block(Duration.ofSeconds(20));
        }
    }

    private static final class Official extends StampedMember {
        private final AtomicBoolean running = new AtomicBoolean(true);
        private final Thread thread;
        private volatile Set<TopicPartition> assignment = Set.of();

        Official(String name, Properties props, String topic) {
            super(name);
            thread = new Thread(() -> {
                try (KafkaConsumer<String, String> c = new KafkaConsumer<>(props, new StringDeserializer(),
                        new StringDeserializer())) {
                    c.subscribe(List.of(topic));
                    while (running.get()) {
                        c.poll(Duration.ofMillis(100)).forEach(r ->
                                consumed(new TopicPartition(r.topic(), r.partition()), r.offset(), r.value()));
                        Set<TopicPartition> now = new HashSet<>();
                        c.assignment().forEach(tp -> now.add(new TopicPartition(tp.topic(), tp.partition())));
                        assignment = Set.copyOf(now);
                    }
                } catch (Throwable t) {
                    failed(t);
                } finally {
                    assignment = Set.of();
                }
            }, "official-" + name);
            thread.setDaemon(true);
        }

        @Override
        public StampedMember start() {
            thread.start();
            return this;
        }

        @Override
        public Set<TopicPartition> assignment() {
            return assignment;
        }

        /** Stops polling and closes (a last commit, LeaveGroup). */
        @Override
        public void stop() {
            running.set(false);
            try {
                thread.join(TimeUnit.SECONDS.toMillis(30));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
