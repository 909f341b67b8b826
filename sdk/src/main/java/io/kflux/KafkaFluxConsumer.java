package io.kflux;

import io.kflux.internal.DefaultKafkaFluxConsumer;
import java.time.Duration;
import java.util.Collection;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.Set;
import java.util.function.Function;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * A reactive, non-blocking Kafka consumer. Creating one does no I/O; subscribing to {@link #receive()} (or
 * {@link #receivePartitioned()}, {@link #receiveBatches()}, {@code process}) connects, joins the group (or takes the
 * manual assignment) and starts fetching, paced by downstream demand.
 *
 * <p>All methods are thread-safe and non-blocking. Methods returning {@code Mono} are lazy: nothing happens
 * until subscription. Unless stated otherwise, retriable errors (connection loss, leader changes,
 * NOT_COORDINATOR, COORDINATOR_LOAD_IN_PROGRESS, ...) are retried with backoff between
 * {@code retry.backoff.ms} and {@code retry.backoff.max.ms} and are not signalled.
 *
 * <p>Offsets follow Kafka's convention: a committed offset or a position is the <em>next offset to read</em>.
 *
 * <p><b>Where a consumer stands, and after {@code receive()} ended.</b> {@link #assignment()}, {@link #position} and
 * {@link #currentLag} answer from the same partition states, under a manual assignment and under both group
 * protocols alike: those of the running {@code receive()} (or {@code receivePartitioned()}, {@code receiveBatches()}).
 * Once it ended (completed, failed, or cancelled, e.g. by {@code take(n)}) they give the last known values while its
 * shutdown runs (LeaveGroup, final commit), then:
 * <ul>
 *   <li>with a group subscription the member owns nothing: {@code assignment()} is empty, {@code currentLag} empty,
 *       and {@code position} fails with {@link IllegalStateException} saying that {@code receive()} has ended, until
 *       the next {@code receive()} is assigned partitions;</li>
 *   <li>with a manual assignment the configured partitions stay this consumer's between subscriptions (as the official
 *       consumer's {@code assign()}; {@code seek} and {@code pause} accept them too): {@code assignment()} lists them,
 *       {@code position} is where the next {@code receive()} starts (where the ended one stopped, or a seek since)
 *       and {@code currentLag} is the end of the log the last Fetch answer reported minus that position; a partition
 *       whose start nothing fixed has no lag and its {@code position} fails with {@link IllegalStateException}.</li>
 * </ul>
 * A {@code Mono<Long>} of {@code position} never completes empty.
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
     *                                  the TLS or SASL settings cannot work ({@code security.protocol} {@code SSL},
     *                                  {@code SASL_PLAINTEXT} and {@code SASL_SSL} are supported with the official
     *                                  client's {@code ssl.*} and {@code sasl.*} keys; e.g. a SASL protocol without a
     *                                  usable {@code sasl.jaas.config}, an unknown {@code sasl.mechanism}, a GSSAPI
     *                                  login without {@code sasl.kerberos.service.name}, a key or trust store that
     *                                  cannot be read); if {@code request.timeout.ms} or
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
     *         {@link RecordDeserializationException} (a deserializer threw and the
     *         {@link ConsumerOptions#withDeserializationErrorHandler deserialization error handler} did not skip the
     *         record; position stays at that record),
     *         {@link CorruptRecordException} (a batch failed its CRC or could not be decoded),
     *         {@link OffsetOutOfRangeException} ({@code auto.offset.reset=none}; {@link LogTruncationException}
     *         when the log was truncated below a position),
     *         {@link FencedInstanceIdException} (another process uses this {@code group.instance.id}),
     *         {@link InvalidTopicException} (Metadata answered INVALID_TOPIC_EXCEPTION for a subscribed topic;
     *         names that break Kafka's naming rules are already refused by
     *         {@link ConsumerOptions#subscription(Collection)} and {@link ConsumerOptions#assignment}),
     *         {@link TopicAuthorizationException} (the ACLs refuse a subscribed or assigned topic, error 29),
     *         {@link GroupAuthorizationException} (the ACLs refuse the group, error 30),
     *         {@link KafkaProtocolException} (another non-retriable broker error),
     *         {@link AuthenticationException} (SASL refused: wrong credentials, mechanism not enabled) and its
     *         subclass {@link SslAuthenticationException} (TLS handshake failed: untrusted or expired certificate,
     *         host name mismatch, client certificate refused), at once, whichever connection met it,
     *         {@link UnsupportedVersionException} (with a group subscription, a broker lacks an API version the group
     *         member needs), {@link TimeoutException} (with a manual assignment, no bootstrap broker answered within
     *         {@code default.api.timeout.ms}; a broker lacking a needed API version shows up this way there too),
     *         {@link ConfigException} (no name of {@code bootstrap.servers} resolved within
     *         {@code bootstrap.resolve.timeout.ms}; with {@code group.protocol=consumer}, a
     *         {@code group.remote.assignor} the broker does not offer, or a pattern the broker refuses as
     *         INVALID_REGULAR_EXPRESSION),
     *         {@link IllegalStateException} (a concurrent subscription, or the consumer was closed).
     */
    Flux<ConsumerRecord<K, V>> receive();

    /**
     * Receives records in batches, one {@link RecordBatch} per partition's fetched result: the records that result
     * holds at or after the partition's position, at most {@code max.poll.records} (default 500) of them, in offset
     * order. A result larger than that is handed over as several batches; batches of one partition come in offset
     * order, batches of different partitions interleave as their results arrive. Each unit of demand is one batch
     * (whatever its size), and the whole batch is built in one pass and handed over in one {@code onNext}: the
     * per-record costs of a reactive stream (one {@code onNext}, one unit of demand per record) are not paid. Never
     * emits an empty batch.
     *
     * <p>Otherwise as {@link #receive()}: the same lifecycle, bounded memory (fetched-but-unemitted bytes), pause and
     * resume, seek, commits ({@link RecordBatch#acknowledge()} and {@link RecordBatch#commit()} acknowledge each
     * record of the batch, and only acknowledged records are committed) and rebalances: a revocation waits until the
     * batch in {@code onNext} returned, and a batch whose partition's revocation started while it was being built is
     * dropped unemitted (its records were not acknowledged; the partition's next owner reads them). It is the
     * consumer's one active subscription: {@code receive()}, {@code receivePartitioned()}, {@code process()} and
     * {@code receiveBatches()} may not be subscribed at the same time. Batches are not observed:
     * {@link ConsumerOptions#withObservationRegistry} observes the {@code onNext} of single records only.
     *
     * @return the batches; terminates with the errors listed for {@link #receive()} (a record's deserialization
     *         failure the {@link DeserializationErrorHandler} does not skip ends it with
     *         {@link RecordDeserializationException}, after the batch of the records before it was emitted)
     */
    Flux<RecordBatch<K, V>> receiveBatches();

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
     * Processes records with {@code handler}, concurrently as {@code options} allow: each record is handed to the
     * handler once its turn comes (its {@link Ordering} lane is free and fewer than {@code maxInFlight} records are
     * in flight), acknowledged (see {@link ConsumerRecord#acknowledge()}) when the handler's publisher completes
     * (its elements are ignored), or when the failure handler completed after the last retry, or when it was
     * skipped, and then emitted as a {@link ProcessedRecord}. Commits follow the acknowledgements as for
     * {@code receive()} ({@code enable.auto.commit}, {@code commit()}, on revocation and on close): contiguous per
     * partition, so a record never acknowledged keeps every later record of its partition uncommitted.
     *
     * <p>Same lifecycle and subscription rule as {@link #receive()}: it is the consumer's one active subscription.
     * Memory is bounded by {@code maxInFlight + maxWaiting} records (see {@link ProcessingOptions}).
     * When the group revokes partitions, their records not started are dropped (the new owner processes them) and
     * the revocation waits for their records in flight, up to {@link ProcessingOptions#revokeTimeout(Duration)},
     * before it commits and gives them up. Cancelling the subscription cancels the handlers running (those records
     * are not acknowledged). A later subscription starts, with a group subscription, from the committed offsets; with
     * a manual assignment it continues after the last record this one took (up to {@code maxInFlight + maxWaiting}
     * ahead of its handlers), so seek to the committed offsets first to process those it did not finish.
     * {@code close()} first lets the records in flight finish (within its budget and the
     * revoke timeout) and starts no other, then commits, then completes the stream; records not started are left to
     * the next reader.
     *
     * <p>The handler runs on the thread that lets its record start (kflux's emit thread or the thread that
     * completed an earlier record) and must not block.
     *
     * @param options how to run the handler
     * @param handler called once per attempt; a throw, a {@code null} or an error signal is a failed attempt
     * @return one element per finished record, in completion order; ends with the errors of {@link #receive()},
     *         or with a record's last error when it failed for good without a failure handler or
     *         {@link ProcessingOptions#skipFailures()} (or with the failure handler's own error); never completes
     *         but on {@code close()}
     * @throws NullPointerException for a null argument
     */
    Flux<ProcessedRecord<K, V>> process(ProcessingOptions<K, V> options,
                                        Function<ConsumerRecord<K, V>, ? extends Publisher<?>> handler);

    /**
     * Commits every acknowledged offset not committed yet (see {@link ConsumerRecord#acknowledge()}), with
     * OffsetCommit to the group coordinator. Retriable errors are retried until {@code default.api.timeout.ms}.
     *
     * @return completes when the coordinator accepted the commit (immediately when there is nothing to commit);
     *         errors with {@link CommitFailedException} (the group rebalanced and a partition moved),
     *         {@link FencedInstanceIdException}, {@link TimeoutException} (after {@code default.api.timeout.ms}),
     *         {@link GroupAuthorizationException} / {@link TopicAuthorizationException} (the ACLs refuse),
     *         {@link AuthenticationException} (the coordinator's connection could not authenticate),
     *         {@link KafkaProtocolException} (another non-retriable broker error, e.g. OFFSET_METADATA_TOO_LARGE),
     *         or {@link ConfigException} without {@code group.id}. After {@link #close()} nothing is sent and it
     *         errors with {@link CommitFailedException} (not {@code IllegalStateException}: pipelines still running
     *         at close handle it as any refused commit)
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
     *         {@link GroupAuthorizationException} when the ACLs refuse the group, {@link AuthenticationException}
     *         when the connection could not authenticate, {@link KafkaProtocolException} for other non-retriable
     *         broker errors, {@link ConfigException} without {@code group.id}, and {@link IllegalStateException}
     *         after close
     */
    Mono<Map<TopicPartition, OffsetAndMetadata>> committed(Set<TopicPartition> partitions);

    /**
     * Moves the position of an assigned partition: the next record emitted for it is the one at {@code offset}
     * (or the first after it). Records of that partition fetched before but not yet emitted are discarded, the one
     * being deserialized when the seek lands included (a record whose {@code onNext} has begun was emitted). It may
     * be called from any thread, records flowing or not. An offset outside the log is handled by
     * {@code auto.offset.reset}.
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
     * The offset of the next record this consumer emits for {@code tp} (the official consumer's {@code position}):
     * records fetched but not yet emitted do not count. Waits while the partition is assigned to the running
     * subscription but its start is still being decided (the group's assignment being applied, committed offset
     * being read, {@code auto.offset.reset} or a seek to the beginning or end under way), under a manual assignment
     * and a group subscription of either protocol alike. After {@code receive()} ended, see the rule in this
     * interface's description.
     *
     * @param tp a partition assigned to this consumer
     * @return the offset ({@code >= 0}); never completes empty. Errors with {@link IllegalStateException} when
     *         {@code tp} is not assigned (not in the manual assignment; with a subscription, not owned by the member
     *         now: "No current assignment for partition", as the official consumer), when {@code receive()} ended and
     *         no position is known (see above; the message says so), or after close; with {@link TimeoutException}
     *         when the position is not known within {@code default.api.timeout.ms}; with
     *         {@link NullPointerException} for a null argument
     */
    Mono<Long> position(TopicPartition tp);

    /**
     * The first offset of each partition's log (ListOffsets with timestamp -2, the log start offset). Does not
     * change positions.
     *
     * @param partitions any partitions, assigned or not
     * @return the offset per partition, every partition present. Errors with {@link TimeoutException} after
     *         {@code default.api.timeout.ms} (also for a topic or partition that does not exist: its leader stays
     *         unknown), {@link KafkaProtocolException} for non-retriable broker errors (e.g.
     *         TOPIC_AUTHORIZATION_FAILED), {@link IllegalStateException} after close, {@link NullPointerException}
     *         for a null argument
     */
    Mono<Map<TopicPartition, Long>> beginningOffsets(Collection<TopicPartition> partitions);

    /**
     * The end of each partition's log (ListOffsets with timestamp -1): the high watermark, or with
     * {@code isolation.level=read_committed} the last stable offset, i.e. the offset the next record written will
     * get, or the first offset of the oldest open transaction. Does not change positions.
     *
     * @param partitions any partitions, assigned or not
     * @return as {@link #beginningOffsets(Collection)}
     */
    Mono<Map<TopicPartition, Long>> endOffsets(Collection<TopicPartition> partitions);

    /**
     * How many records of {@code tp} this consumer has not emitted yet, as far as it knows without asking a broker
     * (the official consumer's {@code currentLag}): the end of the log reported by the last Fetch answer for the
     * partition (high watermark, or last stable offset under {@code read_committed}) minus {@link #position}.
     * Records fetched but not yet emitted count as lag. While the subscriber requests nothing, a partition at its end
     * is not fetched, so the figure is as old as the last answer (so is the official consumer's when not polled).
     * For an exact figure, use {@link #endOffsets} and {@link #position}.
     *
     * @param tp any partition
     * @return the lag in records ({@code >= 0}); empty when {@code tp} is not assigned, its position is not known
     *         yet, or no Fetch answer for it has arrived yet (after {@code receive()} ended, see the rule in this
     *         interface's description). Never blocks; thread-safe; after close always empty
     * @throws NullPointerException for a null argument
     */
    OptionalLong currentLag(TopicPartition tp);

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
     * @return a thread-safe, unmodifiable snapshot: with a manual assignment its partitions, from creation to close;
     *         with a subscription what the group member owns now, empty before {@code receive()}, between revocation
     *         and the next assignment, and once an ended {@code receive()} shut down (see this interface's
     *         description); empty after close
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
     * (with a {@code group.id}, whatever {@code enable.auto.commit} says; also when {@code receive()} already ended,
     * with an error or a cancel: what was acknowledged before this call is committed, so closing is how to await the
     * final commit after an error; acknowledgements after this call commit nothing and are logged at DEBUG), runs {@link RebalanceListener#onPartitionsRevoked} for the assigned partitions,
     * sends LeaveGroup unless {@code group.instance.id} is set (a static member keeps its partitions until
     * {@code session.timeout.ms} passes, KIP-345), and closes every connection. Idempotent; afterwards every
     * other method fails with {@link IllegalStateException}, except the commits, which are refused with
     * {@link CommitFailedException} ({@link ConsumerRecord#commit()} of a record whose offset the final commit
     * covered completes normally), so that records still in flight at close meet the error the recipes handle.
     * Under {@link #process}, the records in flight finish first (at most its revoke timeout) and are committed.
     *
     * @param timeout the time budget for the commit and LeaveGroup; connections are closed when it runs out
     * @return completes when closed, after the final commit, or when the budget ran out (the shutdown then goes on in the background); a
     *         failed final commit is logged at WARN, not signalled
     */
    Mono<Void> close(Duration timeout);
}
