package io.kflux.reactor.kafka.receiver;

import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.Deserializer;
import reactor.core.scheduler.Scheduler;

/**
 * What a {@link KafkaReceiver} consumes and how it commits: reactor-kafka 1.3's receiver options, on kflux. An
 * interface, as in reactor-kafka, so code that implements, wraps or mocks it compiles; {@link #create()} returns an
 * immutable implementation whose setters return changed copies (reactor-kafka's mutate in place and return
 * {@code this}: code that keeps using the returned value, as reactor-kafka's documentation shows, behaves the same).
 *
 * <p>Properties are the official consumer's names; kflux reads them (see its {@code ConsumerOptions}) when a
 * receive method is subscribed to, so a bad value surfaces there as {@link io.kflux.ConfigException}.
 * {@code enable.auto.commit} is set by the receiver: commits follow {@link #commitInterval(Duration)} and
 * {@link #commitBatchSize(int)}, or precede delivery with {@link KafkaReceiver#receiveAtmostOnce()}.
 *
 * <p>Deserializers: {@link #withKeyDeserializer} / {@link #withValueDeserializer} instances are used as given (not
 * configured, as the official consumer treats instances); otherwise {@code key.deserializer} /
 * {@code value.deserializer} name kafka-clients classes, instantiated and configured for each consumer. Each consumer
 * closes them when it closes.
 *
 * <p>Accepted for source compatibility, with kflux's behaviour: {@link #maxDeferredCommits(int)} (kflux always
 * commits the contiguous acknowledged prefix and fetches only as fast as demand, so nothing needs pausing),
 * {@link #maxCommitAttempts(int)} and {@link #commitRetryInterval(Duration)} (kflux retries retriable commit errors
 * within {@code default.api.timeout.ms}, backing off by {@code retry.backoff.ms}).
 *
 * @param <K> key type
 * @param <V> value type
 */
public interface ReceiverOptions<K, V> {

    // ---------------------------------------------------------------- factories

    /**
     * Options without properties.
     *
     * @param <K> key type
     * @param <V> value type
     * @return empty options
     */
    static <K, V> ReceiverOptions<K, V> create() {
        return new ImmutableReceiverOptions<>();
    }

    /**
     * Options with these consumer properties.
     *
     * @param configProperties the official consumer's property names and values; copied
     * @param <K>              key type
     * @param <V>              value type
     * @return the options
     * @throws NullPointerException if {@code configProperties} or a key in it is {@code null}
     */
    static <K, V> ReceiverOptions<K, V> create(Map<String, Object> configProperties) {
        return ImmutableReceiverOptions.of(configProperties);
    }

    /**
     * Options with these consumer properties.
     *
     * @param configProperties the official consumer's property names and values; copied
     * @param <K>              key type
     * @param <V>              value type
     * @return the options
     * @throws NullPointerException if {@code configProperties} is {@code null}
     */
    static <K, V> ReceiverOptions<K, V> create(Properties configProperties) {
        Map<String, Object> m = new HashMap<>();
        configProperties.forEach((k, v) -> m.put(k.toString(), v));
        return create(m);
    }

    // ---------------------------------------------------------------- setters (copies)

    /**
     * Sets one consumer property.
     *
     * @param name     property name
     * @param newValue value, string or typed
     * @return a copy
     * @throws NullPointerException if {@code name} is {@code null}
     */
    ReceiverOptions<K, V> consumerProperty(String name, Object newValue);

    /**
     * Uses this key deserializer instance (not configured by the receiver).
     *
     * @param keyDeserializer a kafka-clients deserializer
     * @return a copy
     * @throws NullPointerException if {@code keyDeserializer} is {@code null}
     */
    ReceiverOptions<K, V> withKeyDeserializer(Deserializer<K> keyDeserializer);

    /**
     * Uses this value deserializer instance (not configured by the receiver).
     *
     * @param valueDeserializer a kafka-clients deserializer
     * @return a copy
     * @throws NullPointerException if {@code valueDeserializer} is {@code null}
     */
    ReceiverOptions<K, V> withValueDeserializer(Deserializer<V> valueDeserializer);

    /**
     * How long {@link KafkaReceiver#receiveAutoAck()} waits to fill a batch after its first record (kflux has no poll
     * loop; this plays the part of the poll timeout; {@link KafkaReceiver#receiveBatch()} does not wait). Default
     * 100 ms.
     *
     * @param timeout a positive duration
     * @return a copy
     * @throws IllegalArgumentException if {@code timeout} is not positive
     */
    ReceiverOptions<K, V> pollTimeout(Duration timeout);

    /**
     * Bounds how long closing the consumer may take (commit, LeaveGroup). Default: {@code default.api.timeout.ms}.
     *
     * @param timeout a positive duration
     * @return a copy
     * @throws IllegalArgumentException if {@code timeout} is not positive
     */
    ReceiverOptions<K, V> closeTimeout(Duration timeout);

    /**
     * Adds a listener called with the partitions assigned, before any of their records is delivered (also for a
     * manual {@link #assignment(Collection)}, once at subscription). It may seek them; it runs on
     * {@code Schedulers.boundedElastic()} and may block.
     *
     * @param onAssign the listener
     * @return a copy
     */
    ReceiverOptions<K, V> addAssignListener(Consumer<Collection<ReceiverPartition>> onAssign);

    /**
     * Adds a listener called with the partitions about to be revoked (or lost), after acknowledged offsets of
     * revoked partitions were committed. With a manual {@link #assignment(Collection)} it is called once when the
     * receive flux terminates, before the final commit of acknowledged offsets, as in reactor-kafka.
     *
     * @param onRevoke the listener
     * @return a copy
     */
    ReceiverOptions<K, V> addRevokeListener(Consumer<Collection<ReceiverPartition>> onRevoke);

    /**
     * Removes every assignment listener.
     *
     * @return a copy
     */
    ReceiverOptions<K, V> clearAssignListeners();

    /**
     * Removes every revocation listener.
     *
     * @return a copy
     */
    ReceiverOptions<K, V> clearRevokeListeners();

    /**
     * Consumes exactly these partitions, without group management; replaces a subscription.
     *
     * @param partitions the partitions
     * @return a copy
     */
    ReceiverOptions<K, V> assignment(Collection<TopicPartition> partitions);

    /**
     * Consumes these topics as a member of {@code group.id}; replaces an assignment or pattern.
     *
     * @param topics topic names
     * @return a copy
     */
    ReceiverOptions<K, V> subscription(Collection<String> topics);

    /**
     * Consumes every topic whose whole name matches, as a member of {@code group.id}; replaces an assignment or
     * topic list.
     *
     * @param pattern regular expression
     * @return a copy
     * @throws NullPointerException if {@code pattern} is {@code null}
     */
    ReceiverOptions<K, V> subscription(Pattern pattern);

    /**
     * How often acknowledged offsets are committed ({@code auto.commit.interval.ms} of the kflux consumer).
     * Default 5 s; zero turns periodic commits off.
     *
     * @param commitInterval zero or positive
     * @return a copy
     * @throws IllegalArgumentException if negative
     */
    ReceiverOptions<K, V> commitInterval(Duration commitInterval);

    /**
     * Commits acknowledged offsets after every {@code commitBatchSize} acknowledgements (counted by the receiver),
     * besides the periodic commits. Default 0: off.
     *
     * @param commitBatchSize zero or positive
     * @return a copy
     * @throws IllegalArgumentException if negative
     */
    ReceiverOptions<K, V> commitBatchSize(int commitBatchSize);

    /**
     * For {@link KafkaReceiver#receiveAtmostOnce()}: how many records past the one being delivered a commit covers.
     * Default 0: every record waits for its own commit.
     *
     * @param commitAheadSize zero or positive
     * @return a copy
     * @throws IllegalArgumentException if negative
     */
    ReceiverOptions<K, V> atmostOnceCommitAheadSize(int commitAheadSize);

    /**
     * Accepted for compatibility; kflux bounds commit retries by {@code default.api.timeout.ms}.
     *
     * @param maxAttempts zero or positive
     * @return a copy
     * @throws IllegalArgumentException if negative
     */
    ReceiverOptions<K, V> maxCommitAttempts(int maxAttempts);

    /**
     * Accepted for compatibility; kflux backs off commit retries by {@code retry.backoff.ms}.
     *
     * @param commitRetryInterval a positive duration
     * @return a copy
     * @throws IllegalArgumentException if not positive
     */
    ReceiverOptions<K, V> commitRetryInterval(Duration commitRetryInterval);

    /**
     * Accepted for compatibility: kflux always commits only the contiguous acknowledged prefix of a partition
     * (which is what a positive value asks of reactor-kafka), and its fetching follows demand, so nothing is paused.
     *
     * @param maxDeferred zero or positive
     * @return a copy
     * @throws IllegalArgumentException if negative
     */
    ReceiverOptions<K, V> maxDeferredCommits(int maxDeferred);

    /**
     * Delivers records on a scheduler made by this supplier (one per subscription). Without it records arrive on
     * the kflux consumer's emit thread: a worker of kflux's shared emit scheduler, whose few threads the consumers of
     * the JVM share (see {@code io.kflux.ConsumerOptions#withEmitScheduler}).
     *
     * @param schedulerSupplier the supplier
     * @return a copy
     * @throws NullPointerException if {@code schedulerSupplier} is {@code null}
     */
    ReceiverOptions<K, V> schedulerSupplier(Supplier<Scheduler> schedulerSupplier);

    // ---------------------------------------------------------------- getters

    /**
     * The consumer properties.
     *
     * @return an unmodifiable map
     */
    Map<String, Object> consumerProperties();

    /**
     * One consumer property.
     *
     * @param name property name
     * @return its value, or {@code null}
     */
    Object consumerProperty(String name);

    /**
     * The key deserializer instance.
     *
     * @return the instance, or {@code null} when {@code key.deserializer} is used
     */
    Deserializer<K> keyDeserializer();

    /**
     * The value deserializer instance.
     *
     * @return the instance, or {@code null} when {@code value.deserializer} is used
     */
    Deserializer<V> valueDeserializer();

    /** @return the batch wait of {@link KafkaReceiver#receiveAutoAck()} */
    Duration pollTimeout();

    /** @return the close bound, or {@code null} for {@code default.api.timeout.ms} */
    Duration closeTimeout();

    /** @return the assignment listeners, unmodifiable */
    List<Consumer<Collection<ReceiverPartition>>> assignListeners();

    /** @return the revocation listeners, unmodifiable */
    List<Consumer<Collection<ReceiverPartition>>> revokeListeners();

    /** @return the manually assigned partitions, or {@code null} */
    Collection<TopicPartition> assignment();

    /** @return the subscribed topics, or {@code null} */
    Collection<String> subscriptionTopics();

    /** @return the subscription pattern, or {@code null} */
    Pattern subscriptionPattern();

    /** @return the periodic commit interval; zero when off */
    Duration commitInterval();

    /** @return acknowledgements per commit; zero when off */
    int commitBatchSize();

    /** @return the at-most-once commit-ahead size */
    int atmostOnceCommitAheadSize();

    /** @return the accepted, unused maximum of commit attempts */
    int maxCommitAttempts();

    /** @return the accepted, unused commit retry interval */
    Duration commitRetryInterval();

    /** @return the accepted maximum of deferred commits */
    int maxDeferredCommits();

    /** @return the delivery scheduler supplier, or {@code null} */
    Supplier<Scheduler> schedulerSupplier();

    // ---------------------------------------------------------------- derived from the properties

    /** @return {@code group.id}, or {@code null} */
    default String groupId() {
        Object v = consumerProperty("group.id");
        return v == null ? null : v.toString();
    }

    /** @return {@code client.id} as given, or {@code null} when kflux will choose one */
    default String clientId() {
        Object v = consumerProperty("client.id");
        return v == null ? null : v.toString();
    }

    /** @return {@code bootstrap.servers} as given, or {@code null} */
    default String bootstrapServers() {
        Object v = consumerProperty("bootstrap.servers");
        return v == null ? null : v instanceof Collection<?> c ? String.join(",", c.stream().map(String::valueOf).toList())
                : v.toString();
    }

    /**
     * {@code heartbeat.interval.ms} as a duration: the property if set (a number, or a string of digits), else the
     * official consumer's default of 3 s. Under {@code group.protocol=consumer} the broker decides the interval
     * (KIP-848) and this value is not used by the consumer.
     *
     * @return the heartbeat interval
     * @throws io.kflux.ConfigException if the property is set but is not a whole number of milliseconds
     */
    default Duration heartbeatInterval() {
        Object v = consumerProperty("heartbeat.interval.ms");
        if (v == null) {
            return Duration.ofMillis(3000);
        }
        try {
            return Duration.ofMillis(v instanceof Number n ? n.longValue() : Long.parseLong(v.toString().trim()));
        } catch (NumberFormatException e) {
            throw new io.kflux.ConfigException("heartbeat.interval.ms", v, "a whole number of milliseconds");
        }
    }

    /**
     * What subscribes (or assigns) a kafka-clients {@code Consumer} as these options say, calling {@code listener}
     * on its rebalances; for a manual assignment the listener is told the assignment at once, as reactor-kafka
     * does. For applications that drive a kafka-clients consumer of their own with these options: the consumer of
     * {@link KafkaReceiver#doOnConsumer} does not accept it (kflux subscribes when a receive method is subscribed).
     *
     * @param listener the rebalance listener
     * @return the subscribing action
     * @throws NullPointerException  if {@code listener} is {@code null}
     * @throws IllegalStateException if the options have neither a subscription nor an assignment
     */
    default Consumer<org.apache.kafka.clients.consumer.Consumer<K, V>> subscriber(ConsumerRebalanceListener listener) {
        Objects.requireNonNull(listener, "listener");
        Collection<String> topics = subscriptionTopics();
        Pattern pattern = subscriptionPattern();
        Collection<TopicPartition> partitions = assignment();
        if (topics != null) {
            return c -> c.subscribe(topics, listener);
        }
        if (pattern != null) {
            return c -> c.subscribe(pattern, listener);
        }
        if (partitions != null) {
            return c -> {
                c.assign(partitions);
                listener.onPartitionsAssigned(partitions);
            };
        }
        throw new IllegalStateException("no subscription or assignment in the ReceiverOptions: call subscription(...)"
                                        + " or assignment(...)");
    }
}
