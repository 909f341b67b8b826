package io.kflux.reactor.kafka.receiver;

import io.kflux.KafkaFluxConsumer;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.regex.Pattern;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.clients.consumer.OffsetCommitCallback;
import org.apache.kafka.clients.consumer.SubscriptionPattern;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.metrics.KafkaMetric;
import reactor.core.publisher.Mono;

/**
 * What {@link KafkaReceiver#doOnConsumer} hands the application: a kafka-clients {@link Consumer} answered by the
 * receiver's kflux consumer. There is no {@code KafkaConsumer} underneath, so it offers what kflux can answer
 * (assignment and subscription, pause, resume and paused, seeks, position, committed offsets, commits, beginning, end
 * and timestamp offsets, lag) and throws {@link UnsupportedOperationException}, naming the method and what to use
 * instead, for the rest (poll, subscribing or assigning, closing: the receiver owns the consumer's life; metrics:
 * kflux's Micrometer meters; partition and topic listings, group metadata, rebalances on demand, telemetry).
 *
 * <p>Calls block the calling thread ({@code doOnConsumer} runs the function on {@code Schedulers.boundedElastic()})
 * for at most the given timeout, else {@code default.api.timeout.ms} (60 s when not set), and throw kflux's
 * {@link io.kflux.KafkaFluxException}s or {@link org.apache.kafka.common.errors.TimeoutException} when it passes, as
 * the official consumer does. {@code commitSync()} and {@code commitAsync()} without offsets commit what was
 * acknowledged (kflux commits acknowledged records, not the positions of a poll).
 */
final class ConsumerFacade<K, V> implements Consumer<K, V> {

    private final KafkaFluxConsumer<K, V> consumer;
    private final ReceiverOptions<K, V> options;
    private final Duration apiTimeout;

    ConsumerFacade(KafkaFluxConsumer<K, V> consumer, ReceiverOptions<K, V> options) {
        this.consumer = consumer;
        this.options = options;
        Object timeout = options.consumerProperty("default.api.timeout.ms");
        this.apiTimeout = Duration.ofMillis(timeout == null ? 60_000
                : timeout instanceof Number n ? n.longValue() : Long.parseLong(timeout.toString().trim()));
    }

    /** The official consumer's bound: kafka-clients' TimeoutException when no answer came within it. */
    private <T> T await(Mono<T> call, Duration timeout) {
        return call.timeout(timeout, Mono.error(() -> new org.apache.kafka.common.errors.TimeoutException(
                "no answer within " + timeout.toMillis() + " ms"))).block();
    }

    private static UnsupportedOperationException unsupported(String method, String instead) {
        return new UnsupportedOperationException("Consumer." + method + " is not offered by kflux's reactor-kafka"
                                                 + " receiver: " + instead);
    }

    private static Map<TopicPartition, Long> kafkaOffsets(Map<io.kflux.TopicPartition, Long> offsets) {
        Map<TopicPartition, Long> out = new HashMap<>();
        offsets.forEach((tp, o) -> out.put(KafkaTypes.kafka(tp), o));
        return out;
    }

    private static Map<io.kflux.TopicPartition, io.kflux.OffsetAndMetadata> kfluxCommits(
            Map<TopicPartition, OffsetAndMetadata> offsets) {
        Map<io.kflux.TopicPartition, io.kflux.OffsetAndMetadata> out = new HashMap<>();
        offsets.forEach((tp, o) -> out.put(KafkaTypes.kflux(tp),
                                           new io.kflux.OffsetAndMetadata(o.offset(), o.metadata(), o.leaderEpoch())));
        return out;
    }

    // ---------------------------------------------------------------- what the receiver decides

    @Override
    public Set<TopicPartition> assignment() {
        Set<TopicPartition> out = new LinkedHashSet<>();
        consumer.assignment().forEach(tp -> out.add(KafkaTypes.kafka(tp)));
        return out;
    }

    /** The subscribed topics; under a pattern the topics of the current assignment; empty for a manual assignment. */
    @Override
    public Set<String> subscription() {
        if (options.subscriptionTopics() != null) {
            return new LinkedHashSet<>(options.subscriptionTopics());
        }
        Set<String> out = new LinkedHashSet<>();
        if (options.subscriptionPattern() != null) {
            consumer.assignment().forEach(tp -> out.add(tp.topic()));
        }
        return out;
    }

    @Override
    public void subscribe(Collection<String> topics) {
        throw unsupported("subscribe", "set the subscription in ReceiverOptions");
    }

    @Override
    public void subscribe(Collection<String> topics, ConsumerRebalanceListener callback) {
        subscribe(topics);
    }

    @Override
    public void assign(Collection<TopicPartition> partitions) {
        throw unsupported("assign", "set the assignment in ReceiverOptions");
    }

    @Override
    public void subscribe(Pattern pattern, ConsumerRebalanceListener callback) {
        subscribe(List.of());
    }

    @Override
    public void subscribe(Pattern pattern) {
        subscribe(List.of());
    }

    @Override
    public void subscribe(SubscriptionPattern pattern, ConsumerRebalanceListener callback) {
        subscribe(List.of());
    }

    @Override
    public void subscribe(SubscriptionPattern pattern) {
        subscribe(List.of());
    }

    @Override
    public void unsubscribe() {
        throw unsupported("unsubscribe", "cancel the receive flux");
    }

    @Override
    public ConsumerRecords<K, V> poll(Duration timeout) {
        throw unsupported("poll", "records arrive through the receive flux");
    }

    // ---------------------------------------------------------------- commits

    @Override
    public void commitSync() {
        commitSync(apiTimeout);
    }

    @Override
    public void commitSync(Duration timeout) {
        await(consumer.commit(), timeout);
    }

    @Override
    public void commitSync(Map<TopicPartition, OffsetAndMetadata> offsets) {
        commitSync(offsets, apiTimeout);
    }

    @Override
    public void commitSync(Map<TopicPartition, OffsetAndMetadata> offsets, Duration timeout) {
        await(consumer.commit(kfluxCommits(offsets)), timeout);
    }

    @Override
    public void commitAsync() {
        commitAsync((OffsetCommitCallback) null);
    }

    /** The callback gets an empty map: what was acknowledged is committed, and kflux does not list it. */
    @Override
    public void commitAsync(OffsetCommitCallback callback) {
        consumer.commit().subscribe(null, e -> call(callback, Map.of(), e), () -> call(callback, Map.of(), null));
    }

    @Override
    public void commitAsync(Map<TopicPartition, OffsetAndMetadata> offsets, OffsetCommitCallback callback) {
        Map<TopicPartition, OffsetAndMetadata> copy = Map.copyOf(offsets);
        consumer.commit(kfluxCommits(copy)).subscribe(null, e -> call(callback, copy, e), () -> call(callback, copy,
                                                                                                      null));
    }

    private static void call(OffsetCommitCallback callback, Map<TopicPartition, OffsetAndMetadata> offsets,
                             Throwable error) {
        if (callback != null) {
            callback.onComplete(offsets, error == null ? null
                    : error instanceof Exception e ? e : new RuntimeException(error));
        }
    }

    @Override
    public Map<TopicPartition, OffsetAndMetadata> committed(Set<TopicPartition> partitions) {
        return committed(partitions, apiTimeout);
    }

    /** As the official consumer: a partition without a committed offset maps to {@code null}. */
    @Override
    public Map<TopicPartition, OffsetAndMetadata> committed(Set<TopicPartition> partitions, Duration timeout) {
        Set<io.kflux.TopicPartition> asked = new LinkedHashSet<>(KafkaTypes.kflux(partitions));
        Map<io.kflux.TopicPartition, io.kflux.OffsetAndMetadata> found = await(consumer.committed(asked), timeout);
        Map<TopicPartition, OffsetAndMetadata> out = new HashMap<>();
        for (io.kflux.TopicPartition tp : asked) {
            io.kflux.OffsetAndMetadata o = found == null ? null : found.get(tp);
            out.put(KafkaTypes.kafka(tp), o == null ? null : new OffsetAndMetadata(o.offset(), o.leaderEpoch(),
                                                                                   o.metadata()));
        }
        return out;
    }

    // ---------------------------------------------------------------- positions

    @Override
    public void seek(TopicPartition partition, long offset) {
        await(consumer.seek(KafkaTypes.kflux(partition), offset), apiTimeout);
    }

    @Override
    public void seek(TopicPartition partition, OffsetAndMetadata offsetAndMetadata) {
        seek(partition, offsetAndMetadata.offset());
    }

    @Override
    public void seekToBeginning(Collection<TopicPartition> partitions) {
        await(consumer.seekToBeginning(KafkaTypes.kflux(partitions)), apiTimeout);
    }

    @Override
    public void seekToEnd(Collection<TopicPartition> partitions) {
        await(consumer.seekToEnd(KafkaTypes.kflux(partitions)), apiTimeout);
    }

    @Override
    public long position(TopicPartition partition) {
        return position(partition, apiTimeout);
    }

    @Override
    public long position(TopicPartition partition, Duration timeout) {
        Long p = await(consumer.position(KafkaTypes.kflux(partition)), timeout);
        if (p == null) {
            throw new IllegalStateException("no position for " + partition + ": it is not assigned to this receiver");
        }
        return p;
    }

    @Override
    public Set<TopicPartition> paused() {
        Set<TopicPartition> out = new LinkedHashSet<>();
        consumer.paused().forEach(tp -> out.add(KafkaTypes.kafka(tp)));
        return out;
    }

    @Override
    public void pause(Collection<TopicPartition> partitions) {
        await(consumer.pause(KafkaTypes.kflux(partitions)), apiTimeout);
    }

    @Override
    public void resume(Collection<TopicPartition> partitions) {
        await(consumer.resume(KafkaTypes.kflux(partitions)), apiTimeout);
    }

    @Override
    public OptionalLong currentLag(TopicPartition topicPartition) {
        return consumer.currentLag(KafkaTypes.kflux(topicPartition));
    }

    // ---------------------------------------------------------------- offsets the broker knows

    @Override
    public Map<TopicPartition, OffsetAndTimestamp> offsetsForTimes(Map<TopicPartition, Long> timestampsToSearch) {
        return offsetsForTimes(timestampsToSearch, apiTimeout);
    }

    /** As the official consumer: a partition without a record at or after the timestamp maps to {@code null}. */
    @Override
    public Map<TopicPartition, OffsetAndTimestamp> offsetsForTimes(Map<TopicPartition, Long> timestampsToSearch,
                                                                   Duration timeout) {
        Map<io.kflux.TopicPartition, Long> asked = new HashMap<>();
        timestampsToSearch.forEach((tp, ts) -> asked.put(KafkaTypes.kflux(tp), ts));
        Map<io.kflux.TopicPartition, io.kflux.OffsetAndTimestamp> found = await(consumer.offsetsForTimes(asked),
                                                                                timeout);
        Map<TopicPartition, OffsetAndTimestamp> out = new HashMap<>();
        for (io.kflux.TopicPartition tp : asked.keySet()) {
            io.kflux.OffsetAndTimestamp o = found == null ? null : found.get(tp);
            out.put(KafkaTypes.kafka(tp), o == null ? null : new OffsetAndTimestamp(o.offset(), o.timestamp(),
                                                                                    Optional.empty()));
        }
        return out;
    }

    @Override
    public Map<TopicPartition, Long> beginningOffsets(Collection<TopicPartition> partitions) {
        return beginningOffsets(partitions, apiTimeout);
    }

    @Override
    public Map<TopicPartition, Long> beginningOffsets(Collection<TopicPartition> partitions, Duration timeout) {
        return kafkaOffsets(await(consumer.beginningOffsets(KafkaTypes.kflux(partitions)), timeout));
    }

    @Override
    public Map<TopicPartition, Long> endOffsets(Collection<TopicPartition> partitions) {
        return endOffsets(partitions, apiTimeout);
    }

    @Override
    public Map<TopicPartition, Long> endOffsets(Collection<TopicPartition> partitions, Duration timeout) {
        return kafkaOffsets(await(consumer.endOffsets(KafkaTypes.kflux(partitions)), timeout));
    }

    // ---------------------------------------------------------------- not offered

    @Override
    public void registerMetricForSubscription(KafkaMetric metric) {
        throw unsupported("registerMetricForSubscription", "kflux pushes its own consumer meters as client telemetry"
                + " (KIP-714) but takes no application metrics into it");
    }

    @Override
    public void unregisterMetricFromSubscription(KafkaMetric metric) {
        throw unsupported("unregisterMetricFromSubscription", "kflux pushes its own consumer meters as client telemetry"
                + " (KIP-714) but takes no application metrics into it");
    }

    @Override
    public Uuid clientInstanceId(Duration timeout) {
        throw unsupported("clientInstanceId", "kflux pushes client telemetry (KIP-714) but does not hand out the client"
                + " instance id the broker gave it");
    }

    @Override
    public Map<MetricName, ? extends Metric> metrics() {
        throw unsupported("metrics", "kflux's meters go to a Micrometer registry (consumer property or"
                                     + " ConsumerOptions.withMeterRegistry), under the official clients' names");
    }

    @Override
    public List<PartitionInfo> partitionsFor(String topic) {
        throw unsupported("partitionsFor", "use the Kafka Admin client");
    }

    @Override
    public List<PartitionInfo> partitionsFor(String topic, Duration timeout) {
        return partitionsFor(topic);
    }

    @Override
    public Map<String, List<PartitionInfo>> listTopics() {
        throw unsupported("listTopics", "use the Kafka Admin client");
    }

    @Override
    public Map<String, List<PartitionInfo>> listTopics(Duration timeout) {
        return listTopics();
    }

    @Override
    public ConsumerGroupMetadata groupMetadata() {
        throw unsupported("groupMetadata", "kflux has no transactional producer to hand it to");
    }

    @Override
    public void enforceRebalance() {
        throw unsupported("enforceRebalance", "kflux rebalances when the group does");
    }

    @Override
    public void enforceRebalance(String reason) {
        enforceRebalance();
    }

    @Override
    public void close() {
        throw unsupported("close", "the receiver closes its consumer when the receive flux ends");
    }

    @Override
    public void close(Duration timeout) {
        close();
    }

    @Override
    public void close(CloseOptions option) {
        close();
    }

    @Override
    public void wakeup() {
        throw unsupported("wakeup", "there is no poll to wake; cancel the receive flux");
    }
}
