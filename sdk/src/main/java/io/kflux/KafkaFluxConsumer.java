package io.kflux;

import io.kflux.internal.DefaultKafkaFluxConsumer;
import java.time.Duration;
import java.util.Collection;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * A reactive, non-blocking Kafka consumer. Creating one does no I/O; subscribing to {@link #receive()} (or
 * {@link #receivePartitioned()}) connects, joins the group (or takes the manual assignment) and starts fetching,
 * paced by downstream demand.
 *
 * <p>All methods are thread-safe and non-blocking. Methods returning {@code Mono} are lazy: nothing happens
 * until subscription. Unless stated otherwise, retriable errors (connection loss, leader changes,
 * NOT_COORDINATOR, COORDINATOR_LOAD_IN_PROGRESS, ...) are retried with backoff between
 * {@code retry.backoff.ms} and {@code retry.backoff.max.ms} and are not signalled.
 *
 * <p>Offsets follow Kafka's convention: a committed offset or a position is the <em>next offset to read</em>.
 *
 * @param <K> key type
 * @param <V> value type
 */
public interface KafkaFluxConsumer<K, V> {

    /**
     * Creates a consumer. Does no I/O.
     *
     * @param options the options, with a subscription or an assignment
     * @param <K>     key type
     * @param <V>     value type
     * @return the consumer
     * @throws NullPointerException     if {@code options} is {@code null}
     * @throws IllegalArgumentException if the options have neither a subscription nor an assignment
     * @throws ConfigException          if they subscribe to topics or a pattern without {@code group.id}; if they
     *                                  subscribe to a pattern with {@code group.protocol=consumer} that RE2J (the
     *                                  broker's regular expressions, KIP-848) cannot parse, or with Java flags; if
     *                                  {@code security.protocol} is not {@code PLAINTEXT} (TLS and SASL are not
     *                                  supported yet); if {@code request.timeout.ms} or
     *                                  {@code socket.connection.setup.timeout.ms} is 0
     */
    static <K, V> KafkaFluxConsumer<K, V> create(ConsumerOptions<K, V> options) {
        Objects.requireNonNull(options, "options");
        options.checkConsumable();
        return new DefaultKafkaFluxConsumer<>(options);
    }

    /**
     * Receives records. On subscribe: joins the group (or takes the manual assignment), runs
     * {@link RebalanceListener#onPartitionsAssigned}, positions each partition (seek from the listener, else the
     * committed offset, else {@code auto.offset.reset}) and emits records in offset order per partition. Records are
     * fetched only as demand allows (at most {@link ConsumerOptions#maxBufferedBytes()} bytes are buffered).
     * Cancelling leaves the group (unless {@code group.instance.id} is set) and releases every connection, after
     * committing the acknowledged offsets of the partitions it gives up (with group management, whatever
     * {@code enable.auto.commit} says).
     *
     * <p>Only one subscription at a time: a second concurrent one fails with {@link IllegalStateException}; a new
     * one after the previous terminated starts again from the committed (or acknowledged) positions.
     *
     * @return the records; terminates with an error, after emitting every record before the failing one, on:
     *         {@link RecordDeserializationException} (a deserializer threw; position stays at that record),
     *         {@link CorruptRecordException} (a batch failed its CRC or could not be decoded),
     *         {@link OffsetOutOfRangeException} ({@code auto.offset.reset=none}; {@link LogTruncationException}
     *         when the log was truncated below a position),
     *         {@link FencedInstanceIdException} (another process uses this {@code group.instance.id}),
     *         {@link InvalidTopicException} (Metadata answered INVALID_TOPIC_EXCEPTION for a subscribed topic;
     *         names that break Kafka's naming rules are already refused by
     *         {@link ConsumerOptions#subscription(Collection)} and {@link ConsumerOptions#assignment}),
     *         {@link KafkaProtocolException} (a non-retriable broker error, e.g. TOPIC_AUTHORIZATION_FAILED for a
     *         subscribed topic or in a Fetch, or GROUP_AUTHORIZATION_FAILED),
     *         {@link UnsupportedVersionException} (with a group subscription, a broker lacks an API version the group
     *         member needs), {@link TimeoutException} (with a manual assignment, no bootstrap broker answered within
     *         {@code default.api.timeout.ms}; a broker lacking a needed API version shows up this way there too),
     *         {@link IllegalStateException} (a concurrent subscription, or the consumer was closed).
     *         {@link AuthenticationException} is not raised yet: TLS and SASL are not implemented
     */
    Flux<ConsumerRecord<K, V>> receive();

    /**
     * Receives records grouped by partition: one {@link PartitionFlux} per assigned partition, emitted after
     * {@link RebalanceListener#onPartitionsAssigned} ran for it. Each inner flux emits that partition's records in
     * offset order and completes when the partition is revoked or lost, so partitions can be processed in order
     * and in parallel (e.g. {@code flatMap(p -> p.concatMap(this::process), maxPartitions)}). Revocation waits
     * until the records of revoked partitions that were emitted are handled by the listener; records not yet
     * requested by an inner subscriber are dropped and will be read by the new owner.
     *
     * <p>Same lifecycle and subscription rule as {@link #receive()}; {@code receive()} and
     * {@code receivePartitioned()} may not be subscribed at the same time.
     *
     * @return the partitions; terminates with the errors listed for {@link #receive()}, which are also
     *         signalled to the inner fluxes of the affected partitions
     */
    Flux<PartitionFlux<K, V>> receivePartitioned();

    /**
     * Commits every acknowledged offset not committed yet (see {@link ConsumerRecord#acknowledge()}), with
     * OffsetCommit to the group coordinator. Retriable errors are retried until {@code default.api.timeout.ms}.
     *
     * @return completes when the coordinator accepted the commit (immediately when there is nothing to commit);
     *         errors with {@link CommitFailedException} (the group rebalanced and a partition moved),
     *         {@link FencedInstanceIdException}, {@link TimeoutException} (after {@code default.api.timeout.ms}),
     *         {@link KafkaProtocolException} (non-retriable broker error, e.g. GROUP_AUTHORIZATION_FAILED or
     *         OFFSET_METADATA_TOO_LARGE), {@link ConfigException} without {@code group.id}, or
     *         {@link IllegalStateException} after close
     */
    Mono<Void> commit();

    /**
     * Commits exactly these offsets, regardless of acknowledgements.
     *
     * @param offsets next offset to read, with metadata and optional leader epoch (sent as -1 when absent, KIP-320),
     *                per partition; partitions not assigned to this member are allowed only with a manual
     *                assignment or without group management
     * @return as {@link #commit()}; also errors with {@link IllegalArgumentException} for an empty map, and with
     *         {@link CommitFailedException} naming the partitions a group member does not own (those are not sent;
     *         the owned ones of the same call are committed)
     */
    Mono<Void> commit(Map<TopicPartition, OffsetAndMetadata> offsets);

    /**
     * Reads the committed offsets of these partitions from the group coordinator (OffsetFetch; with
     * {@code isolation.level=read_committed} waits for pending transactional offsets, KIP-447).
     *
     * @param partitions any partitions, assigned or not
     * @return the committed offset, metadata and leader epoch (empty when none was stored) per partition;
     *         partitions without a committed offset are absent.
     *         Errors with {@link TimeoutException} after {@code default.api.timeout.ms},
     *         {@link KafkaProtocolException} for non-retriable broker errors, {@link ConfigException} without
     *         {@code group.id}, and {@link IllegalStateException} after close
     */
    Mono<Map<TopicPartition, OffsetAndMetadata>> committed(Set<TopicPartition> partitions);

    /**
     * Moves the position of an assigned partition: the next record emitted for it is the one at {@code offset}
     * (or the first after it). Records of that partition fetched before but not yet emitted are discarded. An
     * offset outside the log is handled by {@code auto.offset.reset}.
     *
     * @param tp     an assigned partition
     * @param offset next offset to read, {@code >= 0}
     * @return completes once the new position is in effect; errors with {@link IllegalArgumentException} for a
     *         negative offset, {@link IllegalStateException} when the partition is not in the manual assignment
     *         (or, with a subscription, not owned by the member now) or after close. Without an active subscription
     *         the position is where the next one starts.
     */
    Mono<Void> seek(TopicPartition tp, long offset);

    /**
     * As {@link #seek(TopicPartition, long)}, from an offset that may carry the leader epoch of the record before
     * it (e.g. one read with {@link #committed} or kept in an external store). A known epoch is validated as a
     * committed offset is (KIP-320): before the first fetch, OffsetForLeaderEpoch asks the leader where that epoch
     * ends; when the log was truncated below the offset since (an unclean leader election), the position moves
     * back to that end with a WARN, or, with {@code auto.offset.reset=none}, {@code receive()} fails with
     * {@link LogTruncationException}. Without an epoch this is {@code seek(tp, offset.offset())}. The metadata is
     * ignored.
     *
     * @param tp     an assigned partition
     * @param offset next offset to read, with its optional leader epoch
     * @return as {@link #seek(TopicPartition, long)}; also errors with {@link NullPointerException} for a null
     *         argument
     */
    default Mono<Void> seek(TopicPartition tp, OffsetAndMetadata offset) {
        Objects.requireNonNull(offset, "offset");
        return seek(tp, offset.offset());
    }

    /**
     * Moves the position of assigned partitions to their log start offset (ListOffsets with timestamp -2).
     *
     * @param partitions assigned partitions
     * @return completes once the new positions are in effect; errors with {@link IllegalStateException} when a
     *         partition is not assigned, {@link TimeoutException} after {@code default.api.timeout.ms}
     */
    Mono<Void> seekToBeginning(Collection<TopicPartition> partitions);

    /**
     * Moves the position of assigned partitions to their end (ListOffsets with timestamp -1: the high watermark,
     * or the last stable offset with {@code isolation.level=read_committed}), so only new records are read.
     *
     * @param partitions assigned partitions
     * @return as {@link #seekToBeginning(Collection)}
     */
    Mono<Void> seekToEnd(Collection<TopicPartition> partitions);

    /**
     * Looks up, for each partition, the earliest offset whose record timestamp is at or after the given timestamp
     * (ListOffsets, KIP-79). Does not change positions.
     *
     * @param timestamps ms since the Unix epoch per partition, each {@code >= 0}; partitions need not be assigned
     * @return per partition the offset and that record's timestamp; partitions without such a record are absent.
     *         Errors with {@link IllegalArgumentException} for a negative timestamp, {@link TimeoutException} after
     *         {@code default.api.timeout.ms}, {@link UnsupportedVersionException} for brokers without timestamp
     *         lookup, {@link KafkaProtocolException} for non-retriable broker errors
     */
    Mono<Map<TopicPartition, OffsetAndTimestamp>> offsetsForTimes(Map<TopicPartition, Long> timestamps);

    /**
     * Stops fetching these partitions without leaving the group; records already buffered for them are kept and
     * emitted after {@link #resume}. Pausing survives only as long as the partition stays assigned.
     *
     * @param partitions assigned partitions
     * @return completes when no further fetch includes them; errors with {@link IllegalStateException} when a
     *         partition is not assigned
     */
    Mono<Void> pause(Collection<TopicPartition> partitions);

    /**
     * Restarts fetching paused partitions. Resuming a partition that is not paused does nothing.
     *
     * @param partitions assigned partitions
     * @return completes when they are fetched again; errors with {@link IllegalStateException} when a partition
     *         is not assigned
     */
    Mono<Void> resume(Collection<TopicPartition> partitions);

    /**
     * The paused partitions.
     *
     * @return a thread-safe, unmodifiable snapshot
     */
    Set<TopicPartition> paused();

    /**
     * The partitions currently assigned to this consumer.
     *
     * @return a thread-safe, unmodifiable snapshot; empty before subscription and between revocation and the next
     *         assignment
     */
    Set<TopicPartition> assignment();

    /**
     * Closes the consumer with a budget of {@code default.api.timeout.ms}: see {@link #close(Duration)}.
     *
     * @return as {@link #close(Duration)}
     */
    Mono<Void> close();

    /**
     * Closes the consumer: terminates an active receive subscription with completion, commits acknowledged offsets
     * (with a {@code group.id}, whatever {@code enable.auto.commit} says), runs {@link RebalanceListener#onPartitionsRevoked} for the assigned partitions,
     * sends LeaveGroup unless {@code group.instance.id} is set (a static member keeps its partitions until
     * {@code session.timeout.ms} passes, KIP-345), and closes every connection. Idempotent; afterwards every
     * other method fails with {@link IllegalStateException}.
     *
     * @param timeout the time budget for the commit and LeaveGroup; connections are closed when it runs out
     * @return completes when closed, or when the budget ran out (the shutdown then goes on in the background); a
     *         failed final commit is logged at WARN, not signalled
     */
    Mono<Void> close(Duration timeout);
}
