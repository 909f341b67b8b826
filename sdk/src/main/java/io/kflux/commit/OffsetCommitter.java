package io.kflux.commit;

import reactor.core.scheduler.Scheduler;
import io.kflux.network.IoLoops;
import io.kflux.util.ClientMetrics;
import io.kflux.metadata.BrokerErrors;
import io.kflux.CommitFailedException;
import io.kflux.KafkaProtocolException;
import io.kflux.TimeoutException;
import io.kflux.TopicPartition;
import io.kflux.network.NetworkException;
import io.kflux.protocol.Errors;
import io.kflux.protocol.Types;
import io.kflux.protocol.message.OffsetCommitRequest;
import io.kflux.protocol.message.OffsetCommitRequest.OffsetCommitRequestPartition;
import io.kflux.protocol.message.OffsetCommitRequest.OffsetCommitRequestTopic;
import io.kflux.protocol.message.OffsetCommitResponse;
import io.kflux.protocol.message.OffsetCommitResponse.OffsetCommitResponsePartition;
import io.kflux.protocol.message.OffsetCommitResponse.OffsetCommitResponseTopic;
import io.kflux.protocol.message.OffsetFetchRequest;
import io.kflux.protocol.message.OffsetFetchRequest.OffsetFetchRequestGroup;
import io.kflux.protocol.message.OffsetFetchRequest.OffsetFetchRequestTopic;
import io.kflux.protocol.message.OffsetFetchRequest.OffsetFetchRequestTopics;
import io.kflux.protocol.message.OffsetFetchResponse;
import io.kflux.protocol.message.OffsetFetchResponse.OffsetFetchResponseGroup;
import io.kflux.protocol.message.OffsetFetchResponse.OffsetFetchResponsePartition;
import io.kflux.protocol.message.OffsetFetchResponse.OffsetFetchResponsePartitions;
import io.kflux.protocol.message.OffsetFetchResponse.OffsetFetchResponseTopic;
import io.kflux.protocol.message.OffsetFetchResponse.OffsetFetchResponseTopics;
import io.kflux.util.Backoff;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;

/**
 * OffsetCommit and OffsetFetch against the group coordinator, with the official consumer's error
 * handling: coordinator moves and load-in-progress are retried with backoff (bounded by the
 * caller's timeout); REBALANCE_IN_PROGRESS waits for the rejoin and then commits the partitions
 * still owned; a generation or member the coordinator no longer knows fails with
 * {@link CommitFailedException}; anything else fails with {@link KafkaProtocolException}.
 *
 * <p><b>Assignment epochs (KIP-1251, Kafka 4.3).</b> A KIP-848 member's commit carries its member epoch in
 * {@code generationIdOrMemberEpoch} (OffsetCommit v9+, v10 with topic ids), as before: KIP-1251 adds no field. A 4.3+
 * coordinator checks each partition against the epoch at which it was assigned to the member
 * ({@code assignmentEpoch <= memberEpoch <= current member epoch}) instead of requiring the current member epoch, so a
 * commit sent just before a heartbeat raised the epoch is accepted and a zombie's commit of a partition that moved is
 * refused with STALE_MEMBER_EPOCH. kafka-clients 4.4 sends the same request and handles the same errors; so kflux's
 * handling below is unchanged and brokers before 4.3 (strict epoch check) see the same requests: STALE_MEMBER_EPOCH
 * waits for the member's next epoch and commits what it still owns, the rest fails with {@link CommitFailedException}.
 */
public final class OffsetCommitter {
    private static final Logger log = LoggerFactory.getLogger(OffsetCommitter.class);
    private volatile ClientMetrics metrics = ClientMetrics.NONE;

    private final GroupContext group;
    private final Backoff backoff;
    /** Timeouts and retry waits: kflux's timers, virtual time in tests. */
    private final Scheduler timer;
    /** Whether the WARN about refused progress metadata was written (once per consumer). */
    private volatile boolean refusedProgressLogged;

    /** Where answered OffsetCommit round trips are reported; {@link ClientMetrics#NONE} until set. */
    public void metrics(ClientMetrics clientMetrics) {
        this.metrics = java.util.Objects.requireNonNull(clientMetrics, "clientMetrics");
    }

    public OffsetCommitter(GroupContext group, long retryBackoffMs, long retryBackoffMaxMs) {
        this(group, retryBackoffMs, retryBackoffMaxMs, IoLoops.timers());
    }

    OffsetCommitter(GroupContext group, long retryBackoffMs, long retryBackoffMaxMs, Scheduler timer) {
        this.group = group;
        this.backoff = new Backoff(retryBackoffMs, Math.max(retryBackoffMs, retryBackoffMaxMs));
        this.timer = timer;
    }

    /** The clock of commit timeouts, retry waits and the commit manager's intervals. */
    Scheduler timer() {
        return timer;
    }

    /** Retried internally: the coordinator moved, is loading, or a topic id it was sent is stale. */
    static final class RetriableCommitException extends RuntimeException {
        private static final long serialVersionUID = 1L;
        final boolean coordinatorMoved;
        final boolean topicIdUnknown;

        RetriableCommitException(String message, boolean coordinatorMoved) {
            this(message, coordinatorMoved, false);
        }

        private RetriableCommitException(String message, boolean coordinatorMoved, boolean topicIdUnknown) {
            super(message, null, false, false);
            this.coordinatorMoved = coordinatorMoved;
            this.topicIdUnknown = topicIdUnknown;
        }

        /**
         * UNKNOWN_TOPIC_ID (OffsetCommit/OffsetFetch v10+): the topic was deleted, or deleted and created again
         * under its name; the next attempt looks its id up afresh.
         */
        static RetriableCommitException unknownTopicId(String what) {
            return new RetriableCommitException(what + ": UNKNOWN_TOPIC_ID", false, true);
        }
    }

    /**
     * Names for the topics of a v10+ response, which carries ids only: taken from the ids this request sent, so
     * an answer never depends on metadata that changed since.
     */
    private record IdNames(Map<UUID, String> byId) {
        static IdNames of(Map<String, UUID> ids) {
            Map<UUID, String> byId = new HashMap<>();
            ids.forEach((name, id) -> byId.put(id, name));
            return new IdNames(byId);
        }

        String name(String name, UUID id) {
            if (name != null && !name.isEmpty()) {
                return name;
            }
            String known = byId.get(id);
            return known != null ? known : "<unknown topic id " + id + ">";
        }
    }

    /**
     * OFFSET_METADATA_TOO_LARGE for these partitions (the broker's {@code offset.metadata.max.bytes} is below the
     * metadata sent): see {@link #withoutRefusedProgress}.
     */
    static final class MetadataTooLarge extends RuntimeException {
        private static final long serialVersionUID = 1L;
        final transient Set<TopicPartition> partitions;

        MetadataTooLarge(Set<TopicPartition> partitions) {
            super("offset commit of " + partitions + " failed: OFFSET_METADATA_TOO_LARGE", null, false, false);
            this.partitions = partitions;
        }
    }

    /** Rebalance under way: wait for it, then commit what is still owned. */
    static final class RebalanceInProgress extends RuntimeException {
        private static final long serialVersionUID = 1L;

        RebalanceInProgress() {
            super("rebalance in progress", null, false, false);
        }
    }

    /**
     * Commits {@code offsets}; completes when the coordinator accepted every one.
     *
     * @throws CommitFailedException (as the Mono's error) for partitions this member no longer owns
     * @throws TimeoutException when retries did not succeed within {@code timeout}
     */
    public Mono<Void> commit(Map<TopicPartition, CommitOffset> offsets, Duration timeout) {
        return commit(offsets, timeout, tp -> true);
    }

    /**
     * As {@link #commit(Map, Duration)}, for offsets taken from what the consumer tracked: before every attempt,
     * {@code current} says whether a partition's offset still belongs to the tracking it was taken from. One whose
     * partition was lost and assigned again meanwhile (the member joined anew, e.g. in a cluster that replaced the old
     * one behind {@code bootstrap.servers}) is not sent: a retry reads the member's identity again, so it would be
     * accepted under the new membership and overwrite the offset the new assignment starts from. The same holds after
     * a seek or a log truncation restarted the tracking. The commit then fails with {@link CommitFailedException}.
     */
    public Mono<Void> commit(Map<TopicPartition, CommitOffset> offsets, Duration timeout,
                             Predicate<TopicPartition> current) {
        if (offsets.isEmpty()) {
            return Mono.empty();
        }
        // Group-managed: partitions this member does not own are refused up front. The classic coordinator
        // checks only the generation, not ownership, so sending them would overwrite the new owner's commits.
        Mono<Void> attempt = Mono.defer(() -> commitOwned(offsets, current));
        return attempt.timeout(timeout, Mono.error(() -> new TimeoutException("offset commit for " + offsets.keySet()
                + " did not complete within " + timeout.toMillis() + " ms")), timer);
    }

    /**
     * One commit with its retries. REBALANCE_IN_PROGRESS is handled outside the retry loop: after the rejoin only
     * the partitions still owned are sent again (re-sending all of them with the new generation would be accepted
     * and could overwrite the new owner's offsets); a further REBALANCE_IN_PROGRESS waits again, all bounded by the
     * caller's timeout. (Before, a second one escaped as the internal exception.)
     */
    private Mono<Void> attempt(Map<TopicPartition, CommitOffset> offsets, Predicate<TopicPartition> current) {
        AtomicBoolean freshIds = new AtomicBoolean();
        return Mono.defer(() -> commitOnce(offsets, freshIds.get(), current))
                .retryWhen(backoff.retry(e -> retriable(e, freshIds), timer))
                .onErrorResume(RebalanceInProgress.class,
                        e -> group.awaitStable().then(Mono.defer(() -> commitOwned(offsets, current))))
                .onErrorResume(MetadataTooLarge.class, e -> withoutRefusedProgress(offsets, e, current));
    }

    /**
     * The broker refused the metadata of some partitions as longer than its {@code offset.metadata.max.bytes}
     * (below the 4,096 default that {@link ProgressMetadata} stays within). Where that metadata is process()'s
     * progress, the commit is made again with {@code ""} there: the committed offset is what matters, the progress
     * is an optimisation (the next owner processes those records again). Metadata the application passed is its
     * own, so then the commit fails with the broker's error, as before.
     */
    private Mono<Void> withoutRefusedProgress(Map<TopicPartition, CommitOffset> offsets, MetadataTooLarge e,
                                              Predicate<TopicPartition> current) {
        Map<TopicPartition, CommitOffset> retry = new LinkedHashMap<>(offsets);
        for (TopicPartition tp : e.partitions) {
            CommitOffset o = offsets.get(tp);
            if (o == null || o.metadata() == null || !o.metadata().startsWith(ProgressMetadata.PREFIX)) {
                return Mono.error(BrokerErrors.of(Errors.OFFSET_METADATA_TOO_LARGE.code(), e.getMessage(),
                        tp.topic(), group.groupId()));
            }
            retry.put(tp, new CommitOffset(o.offset(), o.leaderEpoch(), ""));
        }
        if (!refusedProgressLogged) {
            refusedProgressLogged = true; // once per consumer: every later commit with long progress meets it again
            log.warn("group {}: the broker refused process()'s progress metadata of {} as longer than its"
                    + " offset.metadata.max.bytes (kflux writes up to 4,096 characters, the broker's default);"
                    + " committing the offsets without it: records completed above them are processed again by the"
                    + " next owner. Further refusals are logged at DEBUG.", group.groupId(), e.partitions);
        } else {
            log.debug("group {}: progress metadata of {} refused as too large; committed without it",
                    group.groupId(), e.partitions);
        }
        return attempt(retry, current);
    }

    private Mono<Void> commitOwned(Map<TopicPartition, CommitOffset> offsets, Predicate<TopicPartition> current) {
        // One reading of the member decides: whether it manages the assignment, what it owns, and the reason.
        Ownership ownership = group.ownership();
        if (!ownership.groupManaged()) {
            return attempt(offsets, current);
        }
        Set<TopicPartition> owned = ownership.owned();
        Map<TopicPartition, CommitOffset> stillOwned = new LinkedHashMap<>();
        List<TopicPartition> lost = new ArrayList<>();
        offsets.forEach((tp, o) -> {
            if (owned.contains(tp)) {
                stillOwned.put(tp, o);
            } else {
                lost.add(tp);
            }
        });
        Mono<Void> commitRest = stillOwned.isEmpty() ? Mono.empty() : attempt(stillOwned, current);
        if (lost.isEmpty()) {
            return commitRest;
        }
        return commitRest.then(Mono.error(() -> new CommitFailedException("offsets of " + lost
                + " cannot be committed: " + ownership.notOwnedReason().get())));
    }

    private boolean retriable(Throwable e, AtomicBoolean freshIds) {
        if (e instanceof RetriableCommitException rce) {
            if (rce.coordinatorMoved) {
                group.coordinatorUnavailable();
            }
            if (rce.topicIdUnknown) {
                freshIds.set(true);
            }
            return true;
        }
        if (e instanceof NetworkException) {
            group.coordinatorUnavailable();
            return true;
        }
        return false;
    }

    /**
     * Topics are named both ways: by name for v2-9 and by id for v10+ (Kafka 4.2+). An id metadata does not know
     * stays zero, and the request then caps itself at v9 ({@link OffsetCommitRequest#maxVersion()}).
     */
    private Mono<Void> commitOnce(Map<TopicPartition, CommitOffset> offsets, boolean freshIds,
                                  Predicate<TopicPartition> current) {
        List<TopicPartition> reassigned = offsets.keySet().stream().filter(current.negate()).toList();
        if (!reassigned.isEmpty()) {
            return Mono.error(new CommitFailedException("offsets of " + reassigned + " cannot be committed: the"
                    + " consumer's position there restarted since they were taken (the partition was lost and assigned"
                    + " again, sought, or its log truncated); it goes on from the new position"));
        }
        Map<String, List<OffsetCommitRequestPartition>> byTopic = new LinkedHashMap<>();
        offsets.forEach((tp, o) -> byTopic.computeIfAbsent(tp.topic(), t -> new ArrayList<>())
                .add(new OffsetCommitRequestPartition(tp.partition(), o.offset(), o.leaderEpoch(),
                        o.metadata() == null ? "" : o.metadata())));
        return group.topicIds(byTopic.keySet(), freshIds).flatMap(ids -> {
            MemberIdentity id = group.identity();
            List<OffsetCommitRequestTopic> topics = new ArrayList<>();
            byTopic.forEach((t, ps) -> topics.add(new OffsetCommitRequestTopic(t, ids.getOrDefault(t, Types.ZERO_UUID), ps)));
            OffsetCommitRequest request = new OffsetCommitRequest(group.groupId(), id.generationId(), id.memberId(),
                    id.groupInstanceId(), -1L, topics);
            return Mono.defer(() -> {
                long sentAt = System.nanoTime();
                return group.exchange(request).flatMap(response -> {
                    metrics.committed(System.nanoTime() - sentAt); // per answered OffsetCommit, as the official client
                    return check(response, id, IdNames.of(ids));
                });
            });
        });
    }

    private Mono<Void> check(OffsetCommitResponse response, MemberIdentity id, IdNames names) {
        Set<TopicPartition> metadataTooLarge = new java.util.HashSet<>();
        for (OffsetCommitResponseTopic t : response.topics()) {
            String topic = names.name(t.name(), t.topicId());
            for (OffsetCommitResponsePartition p : t.partitions()) {
                Errors error = Errors.forCode(p.errorCode());
                if (error.isNone()) {
                    continue;
                }
                TopicPartition tp = new TopicPartition(topic, p.partitionIndex());
                if (error == Errors.OFFSET_METADATA_TOO_LARGE) {
                    metadataTooLarge.add(tp); // the other partitions of the request were committed
                    continue;
                }
                switch (error) {
                    case COORDINATOR_LOAD_IN_PROGRESS, REQUEST_TIMED_OUT, UNKNOWN_TOPIC_OR_PARTITION:
                        return Mono.error(new RetriableCommitException("commit of " + tp + ": " + error, false));
                    case UNKNOWN_TOPIC_ID:
                        return Mono.error(RetriableCommitException.unknownTopicId("commit of " + tp));
                    case NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE:
                        return Mono.error(new RetriableCommitException("commit of " + tp + ": " + error, true));
                    case REBALANCE_IN_PROGRESS, STALE_MEMBER_EPOCH:
                        // KIP-848: a stale epoch is one the member's next heartbeat replaces; as for a classic
                        // rebalance, wait until it is settled, then commit what it still owns with the new epoch.
                        return Mono.error(new RebalanceInProgress());
                    case ILLEGAL_GENERATION, UNKNOWN_MEMBER_ID, FENCED_INSTANCE_ID:
                        return Mono.error(new CommitFailedException("offset commit of " + tp + " refused: " + error
                                + " (generation " + id.generationId() + ", member '" + id.memberId()
                                + "'): the group rebalanced and this member no longer owns it"));
                    default:
                        return Mono.error(BrokerErrors.of(p.errorCode(), "offset commit of " + tp + " failed: "
                                + Errors.nameOf(p.errorCode()), tp.topic(), group.groupId()));
                }
            }
        }
        return metadataTooLarge.isEmpty() ? Mono.empty() : Mono.error(new MetadataTooLarge(metadataTooLarge));
    }

    /**
     * The committed offsets of {@code partitions} (stable offsets only, KIP-447); partitions with
     * no committed offset are absent from the result.
     */
    public Mono<Map<TopicPartition, CommitOffset>> fetch(Set<TopicPartition> partitions, Duration timeout) {
        if (partitions.isEmpty()) {
            return Mono.just(Map.of());
        }
        AtomicBoolean freshIds = new AtomicBoolean();
        return Mono.defer(() -> fetchOnce(partitions, freshIds.get()))
                .retryWhen(backoff.retry(e -> retriable(e, freshIds), timer))
                .timeout(timeout, Mono.error(() -> new TimeoutException("reading committed offsets of " + partitions
                        + " did not complete within " + timeout.toMillis() + " ms")), timer);
    }

    /** As {@link #commitOnce}: topics named both ways, ids from metadata, v9 at most while an id is unknown. */
    private Mono<Map<TopicPartition, CommitOffset>> fetchOnce(Set<TopicPartition> partitions, boolean freshIds) {
        Map<String, List<Integer>> byTopic = new LinkedHashMap<>();
        partitions.forEach(tp -> byTopic.computeIfAbsent(tp.topic(), t -> new ArrayList<>()).add(tp.partition()));
        return group.topicIds(byTopic.keySet(), freshIds).flatMap(ids -> {
            List<OffsetFetchRequestTopic> topics = new ArrayList<>();
            List<OffsetFetchRequestTopics> groupTopics = new ArrayList<>();
            byTopic.forEach((t, ps) -> {
                topics.add(new OffsetFetchRequestTopic(t, ps));
                groupTopics.add(new OffsetFetchRequestTopics(t, ids.getOrDefault(t, Types.ZERO_UUID), ps));
            });
            // Both shapes are filled: v0-7 carry the group at the top level, v8+ in a groups array; v9+ the member
            // id and epoch of a KIP-848 member (read again at every attempt: a retry after STALE_MEMBER_EPOCH sends
            // the epoch the member has moved to).
            MemberIdentity id = group.offsetFetchIdentity();
            boolean asMember = id.generationId() > 0;
            OffsetFetchRequest request = new OffsetFetchRequest(group.groupId(), topics,
                    List.of(new OffsetFetchRequestGroup(group.groupId(), asMember ? id.memberId() : null,
                            asMember ? id.generationId() : -1, groupTopics)), true);
            return group.exchange(request).flatMap(response -> toOffsets(response, IdNames.of(ids)));
        });
    }

    private Mono<Map<TopicPartition, CommitOffset>> toOffsets(OffsetFetchResponse response, IdNames names) {
        Map<TopicPartition, CommitOffset> out = new HashMap<>();
        short topError = response.errorCode();
        if (response.groups() != null && !response.groups().isEmpty()) {
            OffsetFetchResponseGroup g = response.groups().get(0);
            topError = g.errorCode();
            if (topError == 0) {
                for (OffsetFetchResponseTopics t : g.topics()) {
                    String topic = names.name(t.name(), t.topicId());
                    for (OffsetFetchResponsePartitions p : t.partitions()) {
                        Mono<Map<TopicPartition, CommitOffset>> err = partitionError(topic, p.partitionIndex(), p.errorCode());
                        if (err != null) {
                            return err;
                        }
                        put(out, topic, p.partitionIndex(), p.committedOffset(), p.committedLeaderEpoch(), p.metadata());
                    }
                }
            }
        } else if (topError == 0 && response.topics() != null) {
            for (OffsetFetchResponseTopic t : response.topics()) {
                for (OffsetFetchResponsePartition p : t.partitions()) {
                    Mono<Map<TopicPartition, CommitOffset>> err = partitionError(t.name(), p.partitionIndex(), p.errorCode());
                    if (err != null) {
                        return err;
                    }
                    put(out, t.name(), p.partitionIndex(), p.committedOffset(), p.committedLeaderEpoch(), p.metadata());
                }
            }
        }
        if (topError != 0) {
            return Mono.error(groupError(topError));
        }
        return Mono.just(out);
    }

    private static void put(Map<TopicPartition, CommitOffset> out, String topic, int partition, long offset, int epoch,
                            String metadata) {
        if (offset >= 0) {
            out.put(new TopicPartition(topic, partition), new CommitOffset(offset, epoch, metadata == null ? "" : metadata));
        }
    }

    private Mono<Map<TopicPartition, CommitOffset>> partitionError(String topic, int partition, short code) {
        if (code == 0) {
            return null;
        }
        Errors error = Errors.forCode(code);
        if (error == Errors.UNSTABLE_OFFSET_COMMIT) {
            log.debug("{}-{} has a pending transactional commit; retrying", topic, partition);
            return Mono.error(new RetriableCommitException("unstable offset commit for " + topic + "-" + partition, false));
        }
        if (error == Errors.UNKNOWN_TOPIC_ID) {
            return Mono.error(RetriableCommitException.unknownTopicId("reading the committed offset of " + topic + "-"
                    + partition));
        }
        return Mono.error(groupError(code));
    }

    private RuntimeException groupError(short code) {
        Errors error = Errors.forCode(code);
        return switch (error) {
            case COORDINATOR_LOAD_IN_PROGRESS -> new RetriableCommitException("coordinator loading", false);
            case UNKNOWN_TOPIC_ID -> RetriableCommitException.unknownTopicId("reading committed offsets");
            // KIP-848: the member's epoch moved on (or it was fenced) between sending and answering; the next attempt
            // reads its identity again (after fencing: none, which the coordinator does not check).
            case STALE_MEMBER_EPOCH, UNKNOWN_MEMBER_ID -> new RetriableCommitException(error.name()
                    + " reading committed offsets", false);
            case NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE -> new RetriableCommitException(error.name(), true);
            default -> BrokerErrors.of(code, "reading committed offsets failed: " + Errors.nameOf(code), null,
                    group.groupId());
        };
    }
}
