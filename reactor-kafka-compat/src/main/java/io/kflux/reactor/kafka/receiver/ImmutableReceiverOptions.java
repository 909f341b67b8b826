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
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.Deserializer;
import reactor.core.scheduler.Scheduler;

/**
 * The one implementation of {@link ReceiverOptions}: immutable, every setter returns a changed copy. What each
 * option means is documented on the interface.
 *
 * @param <K> key type
 * @param <V> value type
 */
final class ImmutableReceiverOptions<K, V> implements ReceiverOptions<K, V> {

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

    ImmutableReceiverOptions() {
    }

    private ImmutableReceiverOptions<K, V> copy() {
        ImmutableReceiverOptions<K, V> c = new ImmutableReceiverOptions<>();
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

    /** Options with these properties (names may not be null); the map is copied. */
    static <K, V> ImmutableReceiverOptions<K, V> of(Map<String, Object> configProperties) {
        ImmutableReceiverOptions<K, V> o = new ImmutableReceiverOptions<>();
        Map<String, Object> m = new HashMap<>();
        configProperties.forEach((k, v) -> m.put(Objects.requireNonNull(k, "property name"), v));
        o.properties = Collections.unmodifiableMap(m);
        return o;
    }

    // ---------------------------------------------------------------- setters (copies)

    @Override
    public ReceiverOptions<K, V> consumerProperty(String name, Object newValue) {
        ImmutableReceiverOptions<K, V> c = copy();
        Map<String, Object> m = new HashMap<>(properties);
        m.put(Objects.requireNonNull(name, "name"), newValue);
        c.properties = Collections.unmodifiableMap(m);
        return c;
    }

    @Override
    public ReceiverOptions<K, V> withKeyDeserializer(Deserializer<K> keyDeserializer) {
        ImmutableReceiverOptions<K, V> c = copy();
        c.keyDeserializer = Objects.requireNonNull(keyDeserializer, "keyDeserializer");
        return c;
    }

    @Override
    public ReceiverOptions<K, V> withValueDeserializer(Deserializer<V> valueDeserializer) {
        ImmutableReceiverOptions<K, V> c = copy();
        c.valueDeserializer = Objects.requireNonNull(valueDeserializer, "valueDeserializer");
        return c;
    }

    @Override
    public ReceiverOptions<K, V> pollTimeout(Duration timeout) {
        ImmutableReceiverOptions<K, V> c = copy();
        c.pollTimeout = positive(timeout, "pollTimeout");
        return c;
    }

    @Override
    public ReceiverOptions<K, V> closeTimeout(Duration timeout) {
        ImmutableReceiverOptions<K, V> c = copy();
        c.closeTimeout = positive(timeout, "closeTimeout");
        return c;
    }

    @Override
    public ReceiverOptions<K, V> addAssignListener(Consumer<Collection<ReceiverPartition>> onAssign) {
        ImmutableReceiverOptions<K, V> c = copy();
        c.assignListeners = append(assignListeners, onAssign);
        return c;
    }

    @Override
    public ReceiverOptions<K, V> addRevokeListener(Consumer<Collection<ReceiverPartition>> onRevoke) {
        ImmutableReceiverOptions<K, V> c = copy();
        c.revokeListeners = append(revokeListeners, onRevoke);
        return c;
    }

    @Override
    public ReceiverOptions<K, V> clearAssignListeners() {
        ImmutableReceiverOptions<K, V> c = copy();
        c.assignListeners = List.of();
        return c;
    }

    @Override
    public ReceiverOptions<K, V> clearRevokeListeners() {
        ImmutableReceiverOptions<K, V> c = copy();
        c.revokeListeners = List.of();
        return c;
    }

    @Override
    public ReceiverOptions<K, V> assignment(Collection<TopicPartition> partitions) {
        ImmutableReceiverOptions<K, V> c = copy();
        c.assignment = List.copyOf(new LinkedHashSet<>(partitions));
        c.topics = null;
        c.pattern = null;
        return c;
    }

    @Override
    public ReceiverOptions<K, V> subscription(Collection<String> topics) {
        ImmutableReceiverOptions<K, V> c = copy();
        c.topics = List.copyOf(new LinkedHashSet<>(topics));
        c.assignment = null;
        c.pattern = null;
        return c;
    }

    @Override
    public ReceiverOptions<K, V> subscription(Pattern pattern) {
        ImmutableReceiverOptions<K, V> c = copy();
        c.pattern = Objects.requireNonNull(pattern, "pattern");
        c.assignment = null;
        c.topics = null;
        return c;
    }

    @Override
    public ReceiverOptions<K, V> commitInterval(Duration commitInterval) {
        Objects.requireNonNull(commitInterval, "commitInterval");
        if (commitInterval.isNegative()) {
            throw new IllegalArgumentException("commitInterval must not be negative, was " + commitInterval);
        }
        ImmutableReceiverOptions<K, V> c = copy();
        c.commitInterval = commitInterval;
        return c;
    }

    @Override
    public ReceiverOptions<K, V> commitBatchSize(int commitBatchSize) {
        ImmutableReceiverOptions<K, V> c = copy();
        c.commitBatchSize = notNegative(commitBatchSize, "commitBatchSize");
        return c;
    }

    @Override
    public ReceiverOptions<K, V> atmostOnceCommitAheadSize(int commitAheadSize) {
        ImmutableReceiverOptions<K, V> c = copy();
        c.atmostOnceCommitAheadSize = notNegative(commitAheadSize, "atmostOnceCommitAheadSize");
        return c;
    }

    @Override
    public ReceiverOptions<K, V> maxCommitAttempts(int maxAttempts) {
        ImmutableReceiverOptions<K, V> c = copy();
        c.maxCommitAttempts = notNegative(maxAttempts, "maxCommitAttempts");
        return c;
    }

    @Override
    public ReceiverOptions<K, V> commitRetryInterval(Duration commitRetryInterval) {
        ImmutableReceiverOptions<K, V> c = copy();
        c.commitRetryInterval = positive(commitRetryInterval, "commitRetryInterval");
        return c;
    }

    @Override
    public ReceiverOptions<K, V> maxDeferredCommits(int maxDeferred) {
        ImmutableReceiverOptions<K, V> c = copy();
        c.maxDeferredCommits = notNegative(maxDeferred, "maxDeferredCommits");
        return c;
    }

    @Override
    public ReceiverOptions<K, V> schedulerSupplier(Supplier<Scheduler> schedulerSupplier) {
        ImmutableReceiverOptions<K, V> c = copy();
        c.schedulerSupplier = Objects.requireNonNull(schedulerSupplier, "schedulerSupplier");
        return c;
    }

    // ---------------------------------------------------------------- getters

    @Override
    public Map<String, Object> consumerProperties() {
        return properties;
    }

    @Override
    public Object consumerProperty(String name) {
        return properties.get(name);
    }

    @Override
    public Deserializer<K> keyDeserializer() {
        return keyDeserializer;
    }

    @Override
    public Deserializer<V> valueDeserializer() {
        return valueDeserializer;
    }

    @Override
    public Duration pollTimeout() {
        return pollTimeout;
    }

    @Override
    public Duration closeTimeout() {
        return closeTimeout;
    }

    @Override
    public List<Consumer<Collection<ReceiverPartition>>> assignListeners() {
        return assignListeners;
    }

    @Override
    public List<Consumer<Collection<ReceiverPartition>>> revokeListeners() {
        return revokeListeners;
    }

    @Override
    public Collection<TopicPartition> assignment() {
        return assignment;
    }

    @Override
    public Collection<String> subscriptionTopics() {
        return topics;
    }

    @Override
    public Pattern subscriptionPattern() {
        return pattern;
    }

    @Override
    public Duration commitInterval() {
        return commitInterval;
    }

    @Override
    public int commitBatchSize() {
        return commitBatchSize;
    }

    @Override
    public int atmostOnceCommitAheadSize() {
        return atmostOnceCommitAheadSize;
    }

    @Override
    public int maxCommitAttempts() {
        return maxCommitAttempts;
    }

    @Override
    public Duration commitRetryInterval() {
        return commitRetryInterval;
    }

    @Override
    public int maxDeferredCommits() {
        return maxDeferredCommits;
    }

    @Override
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
