package io.kflux.reactor.kafka.receiver;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.Deserializer;
import reactor.core.scheduler.Scheduler;

/**
 * What a {@link KafkaReceiver} consumes and how it commits: reactor-kafka 1.3's receiver options, on kflux.
 * Immutable: every setter returns a changed copy.
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
public final class ReceiverOptions<K, V> {

    private Map<String, Object> properties = Map.of();
    private Deserializer<K> keyDeserializer;
    private Deserializer<V> valueDeserializer;
    private Duration pollTimeout = Duration.ofMillis(100);
    private Duration closeTimeout;
    private List<Consumer<Collection<ReceiverPartition>>> assignListeners = List.of();
    private List<Consumer<Collection<ReceiverPartition>>> revokeListeners = List.of();
    private Collection<TopicPartition> assignment;
    private Collection<String> topics;
    private Pattern pattern;
    private Duration commitInterval = Duration.ofSeconds(5);
    private int commitBatchSize;
    private int atmostOnceCommitAheadSize;
    private int maxCommitAttempts = 100;
    private Duration commitRetryInterval = Duration.ofMillis(500);
    private int maxDeferredCommits;
    private Supplier<Scheduler> schedulerSupplier;

    private ReceiverOptions() {
    }

    private ReceiverOptions<K, V> copy() {
        ReceiverOptions<K, V> c = new ReceiverOptions<>();
        c.properties = properties;
        c.keyDeserializer = keyDeserializer;
        c.valueDeserializer = valueDeserializer;
        c.pollTimeout = pollTimeout;
        c.closeTimeout = closeTimeout;
        c.assignListeners = assignListeners;
        c.revokeListeners = revokeListeners;
        c.assignment = assignment;
        c.topics = topics;
        c.pattern = pattern;
        c.commitInterval = commitInterval;
        c.commitBatchSize = commitBatchSize;
        c.atmostOnceCommitAheadSize = atmostOnceCommitAheadSize;
        c.maxCommitAttempts = maxCommitAttempts;
        c.commitRetryInterval = commitRetryInterval;
        c.maxDeferredCommits = maxDeferredCommits;
        c.schedulerSupplier = schedulerSupplier;
        return c;
    }

    // ---------------------------------------------------------------- factories

    /**
     * Options without properties.
     *
     * @param <K> key type
     * @param <V> value type
     * @return empty options
     */
    public static <K, V> ReceiverOptions<K, V> create() {
        return new ReceiverOptions<>();
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
    public static <K, V> ReceiverOptions<K, V> create(Map<String, Object> configProperties) {
        ReceiverOptions<K, V> o = new ReceiverOptions<>();
        Map<String, Object> m = new HashMap<>();
        configProperties.forEach((k, v) -> m.put(Objects.requireNonNull(k, "property name"), v));
        o.properties = Collections.unmodifiableMap(m);
        return o;
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
    public static <K, V> ReceiverOptions<K, V> create(Properties configProperties) {
        Map<String, Object> m = new HashMap<>();
        configProperties.forEach((k, v) -> m.put(k.toString(), v));
        return create(m);
    }

    // ---------------------------------------------------------------- setters (copies)

    /**
     * Sets one consumer property.
     *
     * @param name  property name
     * @param newValue value, string or typed
     * @return a copy
     */
    public ReceiverOptions<K, V> consumerProperty(String name, Object newValue) {
        ReceiverOptions<K, V> c = copy();
        Map<String, Object> m = new HashMap<>(properties);
        m.put(Objects.requireNonNull(name, "name"), newValue);
        c.properties = Collections.unmodifiableMap(m);
        return c;
    }

    /**
     * Uses this key deserializer instance (not configured by the receiver).
     *
     * @param keyDeserializer a kafka-clients deserializer
     * @return a copy
     */
    public ReceiverOptions<K, V> withKeyDeserializer(Deserializer<K> keyDeserializer) {
        ReceiverOptions<K, V> c = copy();
        c.keyDeserializer = Objects.requireNonNull(keyDeserializer, "keyDeserializer");
        return c;
    }

    /**
     * Uses this value deserializer instance (not configured by the receiver).
     *
     * @param valueDeserializer a kafka-clients deserializer
     * @return a copy
     */
    public ReceiverOptions<K, V> withValueDeserializer(Deserializer<V> valueDeserializer) {
        ReceiverOptions<K, V> c = copy();
        c.valueDeserializer = Objects.requireNonNull(valueDeserializer, "valueDeserializer");
        return c;
    }

    /**
     * How long {@link KafkaReceiver#receiveAutoAck()} waits to fill a batch after its first record (kflux has no
     * poll loop; this plays the part of the poll timeout). Default 100 ms.
     *
     * @param timeout a positive duration
     * @return a copy
     * @throws IllegalArgumentException if {@code timeout} is not positive
     */
    public ReceiverOptions<K, V> pollTimeout(Duration timeout) {
        ReceiverOptions<K, V> c = copy();
        c.pollTimeout = positive(timeout, "pollTimeout");
        return c;
    }

    /**
     * Bounds how long closing the consumer may take (commit, LeaveGroup). Default: {@code default.api.timeout.ms}.
     *
     * @param timeout a positive duration
     * @return a copy
     */
    public ReceiverOptions<K, V> closeTimeout(Duration timeout) {
        ReceiverOptions<K, V> c = copy();
        c.closeTimeout = positive(timeout, "closeTimeout");
        return c;
    }

    /**
     * Adds a listener called with the partitions assigned, before any of their records is delivered (also for a
     * manual {@link #assignment(Collection)}, once at subscription). It may seek them; it runs on
     * {@code Schedulers.boundedElastic()} and may block.
     *
     * @param onAssign the listener
     * @return a copy
     */
    public ReceiverOptions<K, V> addAssignListener(Consumer<Collection<ReceiverPartition>> onAssign) {
        ReceiverOptions<K, V> c = copy();
        c.assignListeners = append(assignListeners, onAssign);
        return c;
    }

    /**
     * Adds a listener called with the partitions about to be revoked (or lost), after acknowledged offsets of
     * revoked partitions were committed.
     *
     * @param onRevoke the listener
     * @return a copy
     */
    public ReceiverOptions<K, V> addRevokeListener(Consumer<Collection<ReceiverPartition>> onRevoke) {
        ReceiverOptions<K, V> c = copy();
        c.revokeListeners = append(revokeListeners, onRevoke);
        return c;
    }

    /**
     * Removes every assignment listener.
     *
     * @return a copy
     */
    public ReceiverOptions<K, V> clearAssignListeners() {
        ReceiverOptions<K, V> c = copy();
        c.assignListeners = List.of();
        return c;
    }

    /**
     * Removes every revocation listener.
     *
     * @return a copy
     */
    public ReceiverOptions<K, V> clearRevokeListeners() {
        ReceiverOptions<K, V> c = copy();
        c.revokeListeners = List.of();
        return c;
    }

    /**
     * Consumes exactly these partitions, without group management; replaces a subscription.
     *
     * @param partitions the partitions
     * @return a copy
     */
    public ReceiverOptions<K, V> assignment(Collection<TopicPartition> partitions) {
        ReceiverOptions<K, V> c = copy();
        c.assignment = List.copyOf(new LinkedHashSet<>(partitions));
        c.topics = null;
        c.pattern = null;
        return c;
    }

    /**
     * Consumes these topics as a member of {@code group.id}; replaces an assignment or pattern.
     *
     * @param topics topic names
     * @return a copy
     */
    public ReceiverOptions<K, V> subscription(Collection<String> topics) {
        ReceiverOptions<K, V> c = copy();
        c.topics = List.copyOf(new LinkedHashSet<>(topics));
        c.assignment = null;
        c.pattern = null;
        return c;
    }

    /**
     * Consumes every topic whose whole name matches, as a member of {@code group.id}; replaces an assignment or
     * topic list.
     *
     * @param pattern regular expression
     * @return a copy
     */
    public ReceiverOptions<K, V> subscription(Pattern pattern) {
        ReceiverOptions<K, V> c = copy();
        c.pattern = Objects.requireNonNull(pattern, "pattern");
        c.assignment = null;
        c.topics = null;
        return c;
    }

    /**
     * How often acknowledged offsets are committed ({@code auto.commit.interval.ms} of the kflux consumer).
     * Default 5 s; zero turns periodic commits off.
     *
     * @param commitInterval zero or positive
     * @return a copy
     * @throws IllegalArgumentException if negative
     */
    public ReceiverOptions<K, V> commitInterval(Duration commitInterval) {
        Objects.requireNonNull(commitInterval, "commitInterval");
        if (commitInterval.isNegative()) {
            throw new IllegalArgumentException("commitInterval must not be negative, was " + commitInterval);
        }
        ReceiverOptions<K, V> c = copy();
        c.commitInterval = commitInterval;
        return c;
    }

    /**
     * Commits acknowledged offsets after every {@code commitBatchSize} acknowledgements (counted by the receiver),
     * besides the periodic commits. Default 0: off.
     *
     * @param commitBatchSize zero or positive
     * @return a copy
     * @throws IllegalArgumentException if negative
     */
    public ReceiverOptions<K, V> commitBatchSize(int commitBatchSize) {
        ReceiverOptions<K, V> c = copy();
        c.commitBatchSize = notNegative(commitBatchSize, "commitBatchSize");
        return c;
    }

    /**
     * For {@link KafkaReceiver#receiveAtmostOnce()}: how many records past the one being delivered a commit covers.
     * Default 0: every record waits for its own commit.
     *
     * @param commitAheadSize zero or positive
     * @return a copy
     * @throws IllegalArgumentException if negative
     */
    public ReceiverOptions<K, V> atmostOnceCommitAheadSize(int commitAheadSize) {
        ReceiverOptions<K, V> c = copy();
        c.atmostOnceCommitAheadSize = notNegative(commitAheadSize, "atmostOnceCommitAheadSize");
        return c;
    }

    /**
     * Accepted for compatibility; kflux bounds commit retries by {@code default.api.timeout.ms}.
     *
     * @param maxAttempts zero or positive
     * @return a copy
     */
    public ReceiverOptions<K, V> maxCommitAttempts(int maxAttempts) {
        ReceiverOptions<K, V> c = copy();
        c.maxCommitAttempts = notNegative(maxAttempts, "maxCommitAttempts");
        return c;
    }

    /**
     * Accepted for compatibility; kflux backs off commit retries by {@code retry.backoff.ms}.
     *
     * @param commitRetryInterval a positive duration
     * @return a copy
     */
    public ReceiverOptions<K, V> commitRetryInterval(Duration commitRetryInterval) {
        ReceiverOptions<K, V> c = copy();
        c.commitRetryInterval = positive(commitRetryInterval, "commitRetryInterval");
        return c;
    }

    /**
     * Accepted for compatibility: kflux always commits only the contiguous acknowledged prefix of a partition
     * (which is what a positive value asks of reactor-kafka), and its fetching follows demand, so nothing is paused.
     *
     * @param maxDeferred zero or positive
     * @return a copy
     */
    public ReceiverOptions<K, V> maxDeferredCommits(int maxDeferred) {
        ReceiverOptions<K, V> c = copy();
        c.maxDeferredCommits = notNegative(maxDeferred, "maxDeferredCommits");
        return c;
    }

    /**
     * Delivers records on a scheduler made by this supplier (one per subscription). Without it records arrive on
     * the kflux consumer's emit thread: a worker of kflux's shared emit scheduler, whose few threads the consumers of
     * the JVM share (see {@code io.kflux.ConsumerOptions#withEmitScheduler}).
     *
     * @param schedulerSupplier the supplier
     * @return a copy
     */
    public ReceiverOptions<K, V> schedulerSupplier(Supplier<Scheduler> schedulerSupplier) {
        ReceiverOptions<K, V> c = copy();
        c.schedulerSupplier = Objects.requireNonNull(schedulerSupplier, "schedulerSupplier");
        return c;
    }

    // ---------------------------------------------------------------- getters

    /**
     * The consumer properties.
     *
     * @return an unmodifiable map
     */
    public Map<String, Object> consumerProperties() {
        return properties;
    }

    /**
     * One consumer property.
     *
     * @param name property name
     * @return its value, or {@code null}
     */
    public Object consumerProperty(String name) {
        return properties.get(name);
    }

    /**
     * The key deserializer instance.
     *
     * @return the instance, or {@code null} when {@code key.deserializer} is used
     */
    public Deserializer<K> keyDeserializer() {
        return keyDeserializer;
    }

    /**
     * The value deserializer instance.
     *
     * @return the instance, or {@code null} when {@code value.deserializer} is used
     */
    public Deserializer<V> valueDeserializer() {
        return valueDeserializer;
    }

    /** @return the batch wait of {@link KafkaReceiver#receiveAutoAck()} */
    public Duration pollTimeout() {
        return pollTimeout;
    }

    /** @return the close bound, or {@code null} for {@code default.api.timeout.ms} */
    public Duration closeTimeout() {
        return closeTimeout;
    }

    /** @return the assignment listeners, unmodifiable */
    public List<Consumer<Collection<ReceiverPartition>>> assignListeners() {
        return assignListeners;
    }

    /** @return the revocation listeners, unmodifiable */
    public List<Consumer<Collection<ReceiverPartition>>> revokeListeners() {
        return revokeListeners;
    }

    /** @return the manually assigned partitions, or {@code null} */
    public Collection<TopicPartition> assignment() {
        return assignment;
    }

    /** @return the subscribed topics, or {@code null} */
    public Collection<String> subscriptionTopics() {
        return topics;
    }

    /** @return the subscription pattern, or {@code null} */
    public Pattern subscriptionPattern() {
        return pattern;
    }

    /** @return {@code group.id}, or {@code null} */
    public String groupId() {
        Object v = properties.get("group.id");
        return v == null ? null : v.toString();
    }

    /** @return {@code bootstrap.servers} as given, or {@code null} */
    public String bootstrapServers() {
        Object v = properties.get("bootstrap.servers");
        return v == null ? null : v instanceof Collection<?> c ? String.join(",", c.stream().map(String::valueOf).toList())
                : v.toString();
    }

    /** @return the periodic commit interval; zero when off */
    public Duration commitInterval() {
        return commitInterval;
    }

    /** @return acknowledgements per commit; zero when off */
    public int commitBatchSize() {
        return commitBatchSize;
    }

    /** @return the at-most-once commit-ahead size */
    public int atmostOnceCommitAheadSize() {
        return atmostOnceCommitAheadSize;
    }

    /** @return the accepted, unused maximum of commit attempts */
    public int maxCommitAttempts() {
        return maxCommitAttempts;
    }

    /** @return the accepted, unused commit retry interval */
    public Duration commitRetryInterval() {
        return commitRetryInterval;
    }

    /** @return the accepted maximum of deferred commits */
    public int maxDeferredCommits() {
        return maxDeferredCommits;
    }

    /** @return the delivery scheduler supplier, or {@code null} */
    public Supplier<Scheduler> schedulerSupplier() {
        return schedulerSupplier;
    }

    private static <T> List<T> append(List<T> list, T element) {
        List<T> out = new ArrayList<>(list);
        out.add(Objects.requireNonNull(element, "listener"));
        return List.copyOf(out);
    }

    private static Duration positive(Duration d, String name) {
        Objects.requireNonNull(d, name);
        if (d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException(name + " must be positive, was " + d);
        }
        return d;
    }

    private static int notNegative(int n, String name) {
        if (n < 0) {
            throw new IllegalArgumentException(name + " must not be negative, was " + n);
        }
        return n;
    }

    @Override
    public String toString() {
        String subscription = assignment != null ? "assignment=" + assignment
                : topics != null ? "topics=" + topics : pattern != null ? "pattern=" + pattern : "none";
        return "ReceiverOptions[" + subscription + ", commitInterval=" + commitInterval + ", commitBatchSize="
               + commitBatchSize + ", atmostOnceCommitAheadSize=" + atmostOnceCommitAheadSize + "]";
    }
}
