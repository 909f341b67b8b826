package io.kflux.commit;

import io.kflux.TopicPartition;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
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
    private Mono<Void> tail = Mono.empty();

    public CommitManager(OffsetCommitter committer, Duration timeout) {
        this.committer = committer;
        this.timeout = timeout;
    }

    public OffsetCommitter committer() {
        return committer;
    }

    /** Starts (or restarts, after a seek) tracking {@code tp} from {@code position}. */
    public void track(TopicPartition tp, long position) {
        trackers.put(tp, new AckTracker(position));
    }

    public void untrack(Collection<TopicPartition> partitions) {
        partitions.forEach(tp -> {
            trackers.remove(tp);
            committed.remove(tp);
        });
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
            Long done = committed.get(tp);
            if (c > 0 && (done == null || c > done)) {
                out.put(tp, new CommitOffset(c, -1, ""));
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

    /** Commits exactly {@code offsets}. */
    public Mono<Void> commit(Map<TopicPartition, CommitOffset> offsets) {
        return enqueue(() -> send(offsets));
    }

    private Mono<Void> send(Map<TopicPartition, CommitOffset> offsets) {
        return committer.commit(offsets, timeout).doOnSuccess(v -> offsets.forEach((tp, o) -> {
            committed.merge(tp, o.offset(), Math::max);
            log.debug("committed {} at {}", tp, o.offset());
        }));
    }

    private Mono<Void> enqueue(Supplier<Mono<Void>> commit) {
        return Mono.defer(() -> {
            Mono<Void> mine;
            synchronized (chainLock) {
                mine = tail.onErrorResume(e -> Mono.empty()).then(Mono.defer(commit)).cache();
                tail = mine;
            }
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
