package io.kflux.internal;

import io.kflux.network.IoLoops;
import io.kflux.OffsetAndMetadata;
import io.kflux.RebalanceContext;
import io.kflux.RebalanceListener;
import io.kflux.TopicPartition;
import io.kflux.commit.CommitManager;
import io.kflux.commit.CommitOffset;
import io.kflux.fetch.PartitionState;
import io.kflux.group.GroupMember;
import io.kflux.group.GroupListener;
import io.kflux.internal.metrics.ConsumerMetrics.ListenerCallback;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;

/**
 * The consumer's side of a rebalance (called by the group member on the consumer's loop):
 * revoked partitions stop being fetched, the emitter finishes the record it is emitting,
 * acknowledged offsets of those partitions are committed (whatever {@code enable.auto.commit} says:
 * an acknowledged record is processed, and committing it spares its next owner a duplicate), then
 * the application's listener runs;
 * assigned partitions are positioned (the listener's seeks first, then committed offsets, then
 * {@code auto.offset.reset}) before their first fetch. The application's listener is bounded by
 * {@code max.poll.interval.ms}; its errors are logged and the rebalance goes on.
 */
final class GroupRebalanceHandler<K, V> implements GroupListener {
    private static final Logger log = LoggerFactory.getLogger(GroupRebalanceHandler.class);
    private static final long SEEK_TO_BEGINNING = -2L;
    private static final long SEEK_TO_END = -1L;

    private final ConsumerSession<K, V> session;
    private final RebalanceListener listener;
    private final CommitManager commits;
    private final Duration listenerTimeout;
    private final Duration apiTimeout;
    private volatile GroupMember member;

    GroupRebalanceHandler(ConsumerSession<K, V> session, RebalanceListener listener, CommitManager commits,
                          Duration listenerTimeout, Duration apiTimeout) {
        this.session = session;
        this.listener = listener;
        this.commits = commits;
        this.listenerTimeout = listenerTimeout;
        this.apiTimeout = apiTimeout;
    }

    void member(GroupMember member) {
        this.member = member;
    }

    @Override
    public Mono<Void> onPartitionsAssigned(Set<TopicPartition> added, Set<TopicPartition> assignment) {
        session.assignment(assignment);
        Context ctx = new Context(assignment);
        return commits.fetchCommitted(added, apiTimeout)
                .flatMap(offsets -> guarded(ListenerCallback.ASSIGNED, () -> listener.onPartitionsAssigned(added, ctx))
                        // Seeks may be made inside the listener's Mono: read them only once it completed.
                        .then(Mono.defer(() -> resolveListenerSeeks(ctx.seeks)))
                        .map(seeks -> {
                            Map<TopicPartition, CommitOffset> positions = new HashMap<>(offsets);
                            positions.putAll(seeks);
                            return positions;
                        }))
                .flatMap(positions -> session.onLoop(() -> startFetching(added, positions)))
                .onErrorResume(e -> {
                    // Without committed offsets the partitions could only start from auto.offset.reset,
                    // which may skip or repeat records: the consumer stops instead.
                    session.fail(e);
                    return Mono.empty();
                });
    }

    private void startFetching(Set<TopicPartition> added, Map<TopicPartition, CommitOffset> positions) {
        Map<TopicPartition, PartitionState> states = new LinkedHashMap<>();
        for (TopicPartition tp : added) {
            PartitionState ps = new PartitionState(tp);
            ps.paused(session.consumer().initiallyPaused(tp));
            CommitOffset position = positions.get(tp);
            if (position != null) {
                ps.seekUnvalidated(position.offset(), position.leaderEpoch());
            } else {
                ps.requireReset();
            }
            states.put(tp, ps);
        }
        session.startPartitions(states);
        log.debug("fetching newly assigned {}", added); // the member logged the assignment at INFO already
    }

    /**
     * Seeks to the beginning/end asked for inside the listener need a ListOffsets round trip. Only a seek given an
     * OffsetAndMetadata with a leader epoch carries one, to be validated (KIP-320).
     */
    private Mono<Map<TopicPartition, CommitOffset>> resolveListenerSeeks(Map<TopicPartition, CommitOffset> seeks) {
        Map<TopicPartition, CommitOffset> exact = new HashMap<>();
        Map<TopicPartition, Long> listed = new HashMap<>();
        seeks.forEach((tp, position) -> {
            if (position.offset() < 0) {
                listed.put(tp, position.offset());
            } else {
                exact.put(tp, position);
            }
        });
        if (listed.isEmpty()) {
            return Mono.just(exact);
        }
        return session.resources().offsets().list(listed, apiTimeout).map(found -> {
            found.forEach((tp, lo) -> exact.put(tp, new CommitOffset(Math.max(0L, lo.offset()), -1, "")));
            return exact;
        });
    }

    @Override
    public Mono<Void> onPartitionsRevoked(Set<TopicPartition> partitions) {
        // The commit is not conditional on enable.auto.commit (it was, as in the official client): acknowledging
        // is the application's statement that a record is processed, so committing it before the partition moves
        // only spares duplicates, and a failure here is logged and never ends receive().
        // process(): records not started are dropped, those in flight finish (bounded), so the commit below has them.
        // The commit manager hears of the revocation before the assignment view drops the partitions: whoever sees
        // them gone from assignment() then sees a record's own commit() refused too (issue #28).
        return Mono.fromRunnable(() -> commits.revoking(partitions))
                .then(stopFetching(partitions))
                .then(Mono.defer(() -> session.revocationHook().revoked(partitions)))
                .then(commits.commitAcknowledged(partitions).onErrorResume(e -> {
                    session.logContext().run(() -> log.warn("commit before revoking {} failed: {}", partitions,
                            e.toString()));
                    return Mono.empty();
                }))
                .then(guarded(ListenerCallback.REVOKED, () -> listener.onPartitionsRevoked(partitions,
                        new Context(partitions, partitions))))
                .transform(m -> untrackWhenDone(m, partitions));
    }

    /**
     * Untracks before the member hears the callback is done: with doFinally (as before) the member could drop the
     * partitions from its assignment first, and an auto commit in between would then try to commit partitions
     * no longer owned.
     */
    private Mono<Void> untrackWhenDone(Mono<Void> callback, Set<TopicPartition> partitions) {
        return callback.doOnTerminate(() -> commits.untrack(partitions)).doOnCancel(() -> commits.untrack(partitions));
    }

    @Override
    public Mono<Void> onPartitionsLost(Set<TopicPartition> partitions) {
        // Lost partitions cannot be committed any more: untrack them at once so no commit tries.
        return Mono.fromRunnable(() -> commits.untrack(partitions))
                .then(stopFetching(partitions))
                .then(Mono.fromRunnable(() -> session.revocationHook().lost(partitions)))
                .then(guarded(ListenerCallback.LOST, () -> listener.onPartitionsLost(partitions, new Context(partitions))));
    }

    @Override
    public void onSessionInDoubt(boolean inDoubt) {
        session.logContext().run(() -> {
            if (inDoubt) {
                log.warn("the group coordinator has not confirmed this member's session for session.timeout.ms: holding"
                        + " back the records of {} until it does (they are lost if it says the member is gone, or after"
                        + " as long again without an answer)", session.assignment());
            } else {
                log.info("the group coordinator confirmed the session; emitting records again");
            }
        });
        session.emitter().holdBack(inDoubt);
    }

    /** Stops fetching and emitting {@code partitions}; completes once no record of theirs is being emitted. */
    private Mono<Void> stopFetching(Set<TopicPartition> partitions) {
        return session.onLoop(() -> {
            session.stopPartitions(partitions);
            Set<TopicPartition> remaining = new java.util.HashSet<>(session.assignment());
            remaining.removeAll(partitions);
            session.assignment(remaining);
        }).then(session.emitter().barrier());
    }

    /**
     * The member stopped for good (e.g. FENCED_INSTANCE_ID: another consumer took the static identity): what it
     * owned is lost. The application's onPartitionsLost runs first (RebalanceListener: "Lost runs when ownership
     * was already gone (session expired, fenced)"; it was not called at all), then receive() ends with the error.
     */
    @Override
    public void onFatalError(Throwable error) {
        Set<TopicPartition> owned = session.assignment();
        if (owned.isEmpty()) {
            session.fail(error);
            return;
        }
        onPartitionsLost(owned).doFinally(s -> session.fail(error)).subscribe(v -> { }, e -> { });
    }

    /**
     * Calls the application's listener only when the rebalance gets to it (not when the sequence
     * is assembled), so code outside its Mono also runs after fetching stopped; a throw, an error
     * or a timeout is logged and the rebalance goes on. The call is timed until its Mono ends, for the
     * {@code partition-*-latency} meters (the official client times its blocking callbacks the same way).
     */
    private Mono<Void> guarded(ListenerCallback callback, java.util.function.Supplier<Mono<Void>> call) {
        String name = switch (callback) {
            case ASSIGNED -> "onPartitionsAssigned";
            case REVOKED -> "onPartitionsRevoked";
            case LOST -> "onPartitionsLost";
        };
        return Mono.defer(() -> {
                    // the call and its Mono's run are timed, not the timeout's own setup around them
                    long calledAt = System.nanoTime();
                    Mono<Void> userMono = call.get();
                    long callNanos = System.nanoTime() - calledAt;
                    long[] subscribedAt = {System.nanoTime()};
                    return (userMono == null ? Mono.<Void>empty() : userMono)
                            .doOnSubscribe(sub -> subscribedAt[0] = System.nanoTime())
                            .doFinally(signal -> session.consumer().metrics().listenerCalled(callback,
                                    callNanos + System.nanoTime() - subscribedAt[0]))
                            .timeout(listenerTimeout, IoLoops.timers());
                })
                .onErrorResume(e -> {
                    session.logContext().run(() -> log.error("RebalanceListener.{} failed; the rebalance goes on",
                            name, e));
                    return Mono.empty();
                });
    }

    /** What a listener callback may do. */
    private final class Context implements RebalanceContext {
        private final Set<TopicPartition> partitions;
        /** Offsets (or SEEK_TO_BEGINNING / SEEK_TO_END) with the leader epoch a seek gave, -1 without. */
        final Map<TopicPartition, CommitOffset> seeks = new ConcurrentHashMap<>();

        /** For onPartitionsRevoked: partitions still reported as assigned (stopFetching already dropped them). */
        private final Set<TopicPartition> stillAssigned;

        Context(Set<TopicPartition> partitions) {
            this(partitions, Set.of());
        }

        Context(Set<TopicPartition> partitions, Set<TopicPartition> stillAssigned) {
            this.partitions = Set.copyOf(partitions);
            this.stillAssigned = Set.copyOf(stillAssigned);
        }

        @Override
        public Set<TopicPartition> assignment() {
            // RebalanceContext: "in onPartitionsRevoked it still includes the revoked ones"; stopFetching has
            // already taken them out of the session's assignment, so they are added back here.
            if (stillAssigned.isEmpty()) {
                return session.assignment();
            }
            Set<TopicPartition> all = new java.util.HashSet<>(session.assignment());
            all.addAll(stillAssigned);
            return Set.copyOf(all);
        }

        @Override
        public int generationId() {
            GroupMember m = member;
            return m == null ? -1 : m.generationId();
        }

        @Override
        public String memberId() {
            GroupMember m = member;
            return m == null ? "" : m.memberId();
        }

        @Override
        public void seek(TopicPartition tp, long offset) {
            if (offset < 0) {
                throw new IllegalArgumentException("offset must be >= 0, was " + offset);
            }
            seeks.put(tp, new CommitOffset(offset, -1, ""));
        }

        @Override
        public void seek(TopicPartition tp, OffsetAndMetadata offset) {
            seek(tp, offset.offset()); // its checks
            seeks.put(tp, CommitOffset.of(offset));
        }

        @Override
        public void seekToBeginning(Collection<TopicPartition> tps) {
            tps.forEach(tp -> seeks.put(tp, new CommitOffset(SEEK_TO_BEGINNING, -1, "")));
        }

        @Override
        public void seekToEnd(Collection<TopicPartition> tps) {
            tps.forEach(tp -> seeks.put(tp, new CommitOffset(SEEK_TO_END, -1, "")));
        }

        @Override
        public Mono<Void> commit() {
            return commits.commitAcknowledged(null);
        }

        @Override
        public Mono<Void> commit(Map<TopicPartition, OffsetAndMetadata> offsets) {
            Map<TopicPartition, CommitOffset> exact = new HashMap<>();
            offsets.forEach((tp, om) -> exact.put(tp, CommitOffset.of(om)));
            return commits.commit(exact);
        }

        @Override
        public String toString() {
            return "RebalanceContext" + partitions;
        }
    }
}
