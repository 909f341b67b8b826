package io.kflux.commit;

import io.kflux.CommitFailedException;
import io.kflux.TopicPartition;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Acknowledgement tracking and commits for one consumer. Commits run one after another, in the
 * order they were asked for, so an older commit can never overwrite a newer one; each computes
 * what to commit when its turn comes, so it carries the latest acknowledgements.
 */
public final class CommitManager {
    private static final Logger log = LoggerFactory.getLogger(CommitManager.class);

    private final OffsetCommitter committer;
    private final Duration timeout;
    private final Map<TopicPartition, AckTracker> trackers = new ConcurrentHashMap<>();
    private final Map<TopicPartition, Long> committed = new ConcurrentHashMap<>();
    private final Object chainLock = new Object();
    private CompletableFuture<Void> tail = CompletableFuture.completedFuture(null);

    public CommitManager(OffsetCommitter committer, Duration timeout) {
        this.committer = committer;
        this.timeout = timeout;
    }

    public OffsetCommitter committer() {
        return committer;
    }

    /** Starts (or restarts, after a seek) tracking {@code tp} from {@code position}. */
    public void track(TopicPartition tp, long position) {
        track(tp, position, -1);
    }

    /**
     * Starts (or restarts) tracking {@code tp} from {@code position}; {@code epoch} is the leader epoch of the
     * record before it (-1 unknown), committed with {@code position} while nothing past it is acknowledged.
     */
    public void track(TopicPartition tp, long position, int epoch) {
        trackers.put(tp, new AckTracker(position, epoch));
    }

    /** Emission reached a batch of leader epoch {@code epoch} at {@code offset}: commits from there carry it. */
    public void leaderEpoch(TopicPartition tp, long offset, int epoch) {
        AckTracker t = trackers.get(tp);
        if (t != null) {
            t.epochFrom(offset, epoch);
        }
    }

    /**
     * Stops tracking {@code partitions} (revoked or lost): later acknowledgements of their records are ignored.
     * What was committed for them is kept, so {@link #commitRecord} can tell a record covered by the commit made
     * before the revocation from one that can no longer be committed.
     */
    public void untrack(Collection<TopicPartition> partitions) {
        partitions.forEach(trackers::remove);
    }

    public void acknowledge(TopicPartition tp, long offset) {
        AckTracker t = trackers.get(tp);
        if (t != null) {
            t.acknowledge(offset);
        }
    }

    public void skip(TopicPartition tp, long from, long to) {
        AckTracker t = trackers.get(tp);
        if (t != null) {
            t.skip(from, to);
        }
    }

    /** The offsets acknowledged but not yet committed, limited to {@code only} when given. */
    public Map<TopicPartition, CommitOffset> uncommitted(Set<TopicPartition> only) {
        Map<TopicPartition, CommitOffset> out = new HashMap<>();
        trackers.forEach((tp, t) -> {
            if (only != null && !only.contains(tp)) {
                return;
            }
            long c = t.committable();
            if (c > 0 && c > t.lastCommitted()) {
                // the epoch of the last record before the committed offset, as the official consumer commits it
                out.put(tp, new CommitOffset(c, t.epochBefore(c), ""));
            }
        });
        return out;
    }

    /** Commits every acknowledged offset not yet committed (of {@code only}, when given). */
    public Mono<Void> commitAcknowledged(Set<TopicPartition> only) {
        return enqueue(() -> {
            Map<TopicPartition, CommitOffset> offsets = uncommitted(only);
            return offsets.isEmpty() ? Mono.empty() : send(offsets);
        });
    }

    /**
     * {@code ConsumerRecord.commit()}: acknowledges the record, then commits the partition's acknowledged prefix.
     * A record of a partition no longer tracked (revoked or lost) succeeds only when a commit already covered it
     * (the commit before revocation); otherwise it fails with {@link CommitFailedException}, rather than
     * completing as if its offset had been committed.
     */
    public Mono<Void> commitRecord(TopicPartition tp, long offset) {
        return Mono.defer(() -> {
            AckTracker t = trackers.get(tp);
            if (t == null) {
                Long done = committed.get(tp);
                return done != null && done > offset ? Mono.<Void>empty()
                        : Mono.<Void>error(new CommitFailedException("offset " + offset + " of " + tp + " cannot be "
                                + "committed: the partition is no longer assigned to this consumer (revoked or lost "
                                + "before the record was acknowledged); its new owner reads it again"));
            }
            t.acknowledge(offset);
            return commitAcknowledged(Set.of(tp));
        });
    }

    /** Commits exactly {@code offsets}. */
    public Mono<Void> commit(Map<TopicPartition, CommitOffset> offsets) {
        return enqueue(() -> send(offsets));
    }

    private Mono<Void> send(Map<TopicPartition, CommitOffset> offsets) {
        // the trackers current when the offsets were chosen: a tracker restarted meanwhile (seek, truncation) has
        // committed nothing yet, whatever this commit of the old one carried
        Map<TopicPartition, AckTracker> sources = new HashMap<>();
        offsets.keySet().forEach(tp -> {
            AckTracker t = trackers.get(tp);
            if (t != null) {
                sources.put(tp, t);
            }
        });
        return committer.commit(offsets, timeout).doOnSuccess(v -> offsets.forEach((tp, o) -> {
            committed.put(tp, o.offset());
            AckTracker source = sources.get(tp);
            if (source != null && trackers.get(tp) == source) {
                source.committed(o.offset());
            }
            log.debug("committed {} at {}", tp, o.offset());
        }));
    }

    private Mono<Void> enqueue(Supplier<Mono<Void>> commit) {
        return Mono.defer(() -> {
            CompletableFuture<Void> previous;
            CompletableFuture<Void> done = new CompletableFuture<>();
            synchronized (chainLock) {
                previous = tail;
                tail = done;
            }
            // Each commit waits for the previous one's future, not its Mono: chaining the Monos (as before) kept
            // every commit ever made reachable from the latest one, a leak with record.commit() per record.
            Mono<Void> mine = Mono.fromFuture(previous)
                    .then(Mono.defer(commit))
                    .doFinally(s -> done.complete(null))
                    .cache();
            mine.subscribe(v -> { }, e -> { });
            return mine;
        });
    }

    /** Commits acknowledged offsets every {@code interval}; failures are logged, never fatal. */
    public Disposable startAutoCommit(Duration interval) {
        return Flux.interval(interval, interval)
                .onBackpressureDrop()
                .concatMap(t -> commitAcknowledged(null).onErrorResume(e -> {
                    log.warn("auto commit failed: {}", e.toString());
                    return Mono.empty();
                }))
                .subscribe();
    }
}
