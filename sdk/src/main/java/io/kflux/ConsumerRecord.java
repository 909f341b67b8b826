package io.kflux;

import io.kflux.internal.AckHandle;
import io.kflux.internal.Records;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import reactor.core.publisher.Mono;

/**
 * One record read from a partition: its position, timestamp, deserialized key and value, headers, and the
 * means to acknowledge or commit it.
 *
 * <p>Immutable and safe to hand to another thread (the headers and key/value objects are whatever the
 * deserializers produced; the built-in ones produce fresh objects per record).
 *
 * @param <K> key type
 * @param <V> value type
 */
public final class ConsumerRecord<K, V> {

    /** Value of {@link #serializedKeySize()} / {@link #serializedValueSize()} for a null key or value. */
    public static final int NULL_SIZE = -1;
    /** Value of {@link #timestamp()} when there is no timestamp. */
    public static final long NO_TIMESTAMP = -1L;
    /** Leader epoch value meaning "unknown" in the constructor (the protocol's -1). */
    public static final int NO_LEADER_EPOCH = -1;

    private final TopicPartition topicPartition;
    private final long offset;
    private final long timestamp;
    private final TimestampType timestampType;
    private final K key;
    private final V value;
    private final Headers headers;
    // kept as int (-1 = unknown) rather than Optional: one object fewer per record on the hot path
    private final int leaderEpoch;
    private final int serializedKeySize;
    private final int serializedValueSize;
    private final AckHandle ackHandle;

    static {
        // the consumer's way to the attaching constructor (io.kflux.internal.Records); not reachable from the API
        Records.register(new Records.Factory() {
            @Override
            public <K, V> ConsumerRecord<K, V> create(TopicPartition tp, long offset, long timestamp,
                                                      TimestampType timestampType, K key, V value, Headers headers,
                                                      int leaderEpoch, int serializedKeySize, int serializedValueSize,
                                                      AckHandle ackHandle) {
                return new ConsumerRecord<>(tp, offset, timestamp, timestampType, key, value, headers, leaderEpoch,
                        serializedKeySize, serializedValueSize, ackHandle);
            }

            @Override
            public Headers headers(int size, byte[] section, Function<byte[], Header[]> decoder) {
                return Headers.decodedWhenRead(size, section, decoder);
            }

            @Override
            public <K, V> RecordBatch<K, V> batch(TopicPartition tp, ConsumerRecord<K, V>[] owned, int size) {
                return new RecordBatch<>(tp, new OwnedRecords<>(owned, size));
            }
        });
    }

    /**
     * Creates a detached record with every field, for tests of application code (the test kit's records are made
     * so): {@link #acknowledge()} does nothing and {@link #commit()} fails, as no consumer is behind it. Consumers
     * create their records otherwise.
     *
     * @param topicPartition      the partition
     * @param offset              the record's offset, {@code >= 0}
     * @param timestamp           ms since the Unix epoch, or {@link #NO_TIMESTAMP}
     * @param timestampType       meaning of the timestamp, never {@code null}
     * @param key                 deserialized key, may be {@code null}
     * @param value               deserialized value, may be {@code null}
     * @param headers             headers, {@code null} is taken as {@link Headers#empty()}
     * @param leaderEpoch         partition leader epoch of the batch (KIP-101/KIP-320), or {@link #NO_LEADER_EPOCH}
     * @param serializedKeySize   key size on the wire in bytes, or {@link #NULL_SIZE} for a null key
     * @param serializedValueSize value size on the wire in bytes, or {@link #NULL_SIZE} for a null value
     * @throws NullPointerException     if {@code topicPartition} or {@code timestampType} is {@code null}
     * @throws IllegalArgumentException if {@code offset} is negative
     */
    public ConsumerRecord(TopicPartition topicPartition, long offset, long timestamp, TimestampType timestampType,
                          K key, V value, Headers headers, int leaderEpoch, int serializedKeySize,
                          int serializedValueSize) {
        this(topicPartition, offset, timestamp, timestampType, key, value, headers, leaderEpoch, serializedKeySize,
                serializedValueSize, null);
    }

    /** As the public constructor, attached to a consumer through {@code ackHandle} (null: detached). */
    private ConsumerRecord(TopicPartition topicPartition, long offset, long timestamp, TimestampType timestampType,
                           K key, V value, Headers headers, int leaderEpoch, int serializedKeySize,
                           int serializedValueSize, AckHandle ackHandle) {
        this.topicPartition = Objects.requireNonNull(topicPartition, "topicPartition");
        if (offset < 0) {
            throw new IllegalArgumentException("offset must be >= 0, was " + offset);
        }
        this.offset = offset;
        this.timestamp = timestamp;
        this.timestampType = Objects.requireNonNull(timestampType, "timestampType");
        this.key = key;
        this.value = value;
        this.headers = headers == null ? Headers.empty() : headers;
        this.leaderEpoch = leaderEpoch < 0 ? NO_LEADER_EPOCH : leaderEpoch;
        this.serializedKeySize = serializedKeySize;
        this.serializedValueSize = serializedValueSize;
        this.ackHandle = ackHandle;
    }

    /**
     * Creates a detached record for tests of application code: no timestamp, no headers, unknown leader epoch
     * and sizes, and no consumer behind it ({@link #acknowledge()} does nothing, {@link #commit()} fails).
     *
     * @param topic     topic name, never {@code null}
     * @param partition partition index, {@code >= 0}
     * @param offset    offset, {@code >= 0}
     * @param key       key, may be {@code null}
     * @param value     value, may be {@code null}
     * @throws NullPointerException     if {@code topic} is {@code null}
     * @throws IllegalArgumentException if {@code partition} or {@code offset} is negative
     */
    public ConsumerRecord(String topic, int partition, long offset, K key, V value) {
        this(new TopicPartition(topic, partition), offset, NO_TIMESTAMP, TimestampType.NO_TIMESTAMP_TYPE, key, value,
             Headers.empty(), NO_LEADER_EPOCH, NULL_SIZE, NULL_SIZE);
    }

    /**
     * The topic this record was read from.
     *
     * @return the topic name
     */
    public String topic() {
        return topicPartition.topic();
    }

    /**
     * The partition index this record was read from.
     *
     * @return the partition, {@code >= 0}
     */
    public int partition() {
        return topicPartition.partition();
    }

    /**
     * The partition this record was read from.
     *
     * @return the topic partition
     */
    public TopicPartition topicPartition() {
        return topicPartition;
    }

    /**
     * The record's offset in its partition. The position to commit after processing it is {@code offset() + 1}.
     *
     * @return the offset, {@code >= 0}
     */
    public long offset() {
        return offset;
    }

    /**
     * The record's timestamp.
     *
     * @return ms since the Unix epoch, or {@link #NO_TIMESTAMP} (-1) when the record has none
     */
    public long timestamp() {
        return timestamp;
    }

    /**
     * What the timestamp means.
     *
     * @return {@link TimestampType#CREATE_TIME} or {@link TimestampType#LOG_APPEND_TIME} for records read from
     *         Kafka
     */
    public TimestampType timestampType() {
        return timestampType;
    }

    /**
     * The deserialized key.
     *
     * @return the key, {@code null} when the key was null (or the deserializer returned {@code null})
     */
    public K key() {
        return key;
    }

    /**
     * The deserialized value.
     *
     * @return the value, {@code null} for a null value (e.g. a tombstone of a compacted topic)
     */
    public V value() {
        return value;
    }

    /**
     * The record's headers.
     *
     * @return the headers, never {@code null}
     */
    public Headers headers() {
        return headers;
    }

    /**
     * The partition leader epoch stamped on the record's batch by the leader that appended it (KIP-101), used
     * to detect log truncation (KIP-320).
     *
     * @return the epoch, or empty when unknown
     */
    public Optional<Integer> leaderEpoch() {
        return leaderEpoch == NO_LEADER_EPOCH ? Optional.empty() : Optional.of(leaderEpoch);
    }

    /**
     * The size of the key on the wire, before deserialization (after decompression).
     *
     * @return bytes, or {@link #NULL_SIZE} (-1) for a null key
     */
    public int serializedKeySize() {
        return serializedKeySize;
    }

    /**
     * The size of the value on the wire, before deserialization (after decompression).
     *
     * @return bytes, or {@link #NULL_SIZE} (-1) for a null value
     */
    public int serializedValueSize() {
        return serializedValueSize;
    }

    /**
     * Marks this record as processed. Its position ({@code offset() + 1}) becomes committable once every earlier
     * record of the same partition that was emitted to this subscriber is acknowledged too; auto commit
     * ({@code enable.auto.commit=true}), {@link KafkaFluxConsumer#commit()}, and the commits kflux makes before a
     * partition is revoked and on {@code close()} (whatever {@code enable.auto.commit} says) commit only such
     * positions. Cost: O(1) amortized, in any order.
     *
     * <p>Non-blocking, callable from any thread, idempotent. An acknowledgement belongs to the assignment the record
     * was emitted under: it still counts while that assignment's revocation runs (the commit kflux makes before the
     * partition goes carries it), and is ignored once the partition was revoked or lost, also when the partition was
     * assigned to this consumer again since (that new assignment emits the record again; the stale acknowledgement
     * does not move its commits). Does nothing for a record not created by a consumer.
     */
    public void acknowledge() {
        if (ackHandle != null) {
            ackHandle.acknowledge(topicPartition, offset);
        }
    }

    /**
     * Acknowledges this record, then commits its partition's committable position: the end of the contiguous
     * acknowledged prefix ({@link #acknowledge()}), so {@code offset() + 1} when every earlier record of the
     * partition is acknowledged too, and less (possibly nothing new) when some is not. Other partitions are not
     * committed (use {@link KafkaFluxConsumer#commit()} for those). The commit carries the leader epoch of the
     * last record below the committed offset (KIP-320). Lazy: nothing happens until the returned {@code Mono} is
     * subscribed.
     *
     * <p>Once the revocation of the record's assignment has started ({@link KafkaFluxConsumer#assignment()} no longer
     * lists the partition), or after it ended (also when the partition was assigned to this consumer again since),
     * the call sends nothing: it completes at once when a commit already covered this record, and fails at once with
     * {@link CommitFailedException} otherwise. Its acknowledgement still counts while the revocation runs, so the
     * commit kflux makes before the partition goes may carry the record although this call failed.
     *
     * @return completes when the group coordinator accepted the commit (at once when a commit made before the
     *         partition was revoked already covered this record); errors with {@link CommitFailedException}
     *         (the group rebalanced and the partition moved before this record's offset was committed: the
     *         revocation of the record's assignment had started or ended when the call was subscribed),
     *         {@link FencedInstanceIdException},
     *         {@link TimeoutException} (after {@code default.api.timeout.ms}), {@link KafkaProtocolException}
     *         (non-retriable broker error; {@link GroupAuthorizationException} when the ACLs refuse the group),
     *         {@link AuthenticationException}, {@link ConfigException} when the
     *         consumer has no {@code group.id} (as {@link KafkaFluxConsumer#commit()}), or
     *         {@link IllegalStateException} when the record was not created by a consumer. After the consumer was
     *         closed nothing is sent: it completes when the commit made by {@code close()} covered this record, and
     *         errors with {@link CommitFailedException} otherwise (the record was in flight, not acknowledged, at
     *         close)
     */
    public Mono<Void> commit() {
        if (ackHandle == null) {
            return Mono.error(new IllegalStateException("record " + topicPartition + "@" + offset
                                                        + " is not attached to a consumer; nothing to commit to"));
        }
        return Mono.defer(() -> ackHandle.commit(topicPartition, offset));
    }

    /**
     * Describes the record's position and metadata. Key and value are left out on purpose: they may be large
     * or hold personal data that must not end up in logs.
     *
     * @return e.g. {@code ConsumerRecord(orders-3@42, CreateTime=1700000000000, key 5 bytes, value 120 bytes, 1 headers)}
     */
    @Override
    public String toString() {
        return "ConsumerRecord(" + topicPartition + "@" + offset + ", " + timestampType.displayName() + "=" + timestamp
               + ", key " + size(serializedKeySize) + ", value " + size(serializedValueSize) + ", "
               + headers.size() + " headers)";
    }

    private static String size(int n) {
        return n < 0 ? (n == NULL_SIZE ? "null/unknown" : "unknown") : n + " bytes";
    }
}
