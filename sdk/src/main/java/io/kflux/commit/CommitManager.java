package io.kflux.commit;

import io.kflux.CommitFailedException;
import io.kflux.TopicPartition;
import io.kflux.util.LogContext;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
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
 *
 * <p>Also the owner of each partition's assignment as commits see it ({@link PartitionAssignment}): records carry
 * theirs, and whether a record may still be committed is decided here alone. Past 500 lines because the
 * acknowledgement tracking, the progress kept for process() and the commit chain share the per-partition state
 * (trackers, assignments, what was committed) and change it together.
 */
public final class CommitManager {
    private static final Logger log = LoggerFactory.getLogger(CommitManager.class);

    private final OffsetCommitter committer;
    private final Duration timeout;
    private final Map<TopicPartition, AckTracker> trackers = new ConcurrentHashMap<>();
    /**
     * The current assignment of each tracked partition: the identity records carry, and the one place that knows
     * whether a revocation started ({@link AssignmentState}). Changed together with {@link #trackers} under the
     * partition's entry here ({@code compute}), so the two never disagree about which assignment is current.
     */
    private final Map<TopicPartition, PartitionAssignment> assignments = new ConcurrentHashMap<>();
    private final AtomicLong assignmentCount = new AtomicLong();
    private final Map<TopicPartition, Long> committed = new ConcurrentHashMap<>();
    private final Object chainLock = new Object();
    private CompletableFuture<Void> tail = CompletableFuture.completedFuture(null);
    private final LogContext logContext;
    private volatile int batchSize;
    private final java.util.concurrent.atomic.AtomicLong acknowledgedSinceBatch = new java.util.concurrent.atomic.AtomicLong();
    /** Partitions whose commits an unacknowledged record holds back: the blocking offset, since when, next WARN. */
    private final Map<TopicPartition, HeldBack> heldBack = new ConcurrentHashMap<>();

    /**
     * process() is active: commits carry the completed offsets above the committed one ({@link ProgressMetadata}),
     * and the progress read with committed offsets is restored when the partition starts there.
     */
    private volatile boolean keepProgress;
    /** Progress read with the committed offsets, until its partition starts: the committed offset and the runs. */
    private final Map<TopicPartition, CommitOffset> fetchedProgress = new ConcurrentHashMap<>();
    /** Offsets an earlier owner completed above where the partition started: tracking start and relative runs. */
    private final Map<TopicPartition, Restored> restored = new ConcurrentHashMap<>();

    private record Restored(long base, long[] runs) {
        boolean contains(long offset) {
            long relative = offset - base;
            if (relative < 1) {
                return false;
            }
            // runs are few (they fit in the metadata): a binary search over the starts
            int lo = 0;
            int hi = runs.length / 2 - 1;
            while (lo <= hi) {
                int mid = (lo + hi) >>> 1;
                if (runs[2 * mid] > relative) {
                    hi = mid - 1;
                } else if (runs[2 * mid + 1] <= relative) {
                    lo = mid + 1;
                } else {
                    return true;
                }
            }
            return false;
        }
    }

    /** process()'s commits ahead of the periodic one, every so many acknowledgements ({@link #commitAhead}). */
    private volatile CommitPace pace = CommitPace.OFF;

    /** Partitions whose ignored acknowledgements were reported (see {@link #ignored}). */
    private final Set<TopicPartition> ignoredReported = ConcurrentHashMap.newKeySet();

    private record HeldBack(long offset, long sinceNanos, long warnAfterNanos) {
    }

    public CommitManager(OffsetCommitter committer, Duration timeout) {
        this(committer, timeout, LogContext.NONE);
    }

    /** @param logContext put in the MDC around the log lines written off the consumer's loop */
    public CommitManager(OffsetCommitter committer, Duration timeout, LogContext logContext) {
        this.committer = committer;
        this.timeout = timeout;
        this.logContext = logContext;
    }

    public OffsetCommitter committer() {
        return committer;
    }

    /**
     * Offsets of {@code tp} acknowledged but not committed yet ({@link AckTracker#uncommitted()}), for a gauge;
     * -1 while {@code tp} is not tracked.
     */
    public long uncommitted(TopicPartition tp) {
        AckTracker t = trackers.get(tp);
        return t == null ? -1L : t.uncommitted();
    }

    /** Starts (or restarts, after a seek) tracking {@code tp} from {@code position}. */
    public PartitionAssignment track(TopicPartition tp, long position) {
        return track(tp, position, -1);
    }

    /**
     * Starts (or restarts) tracking {@code tp} from {@code position}; {@code epoch} is the leader epoch of the
     * record before it (-1 unknown), committed with {@code position} while nothing past it is acknowledged.
     *
     * @return the assignment the records emitted from {@code position} belong to: a new one when {@code tp} was not
     *         tracked (assigned, or assigned again after a revocation), else the current one (a seek, a truncation)
     */
    public PartitionAssignment track(TopicPartition tp, long position, int epoch) {
        AckTracker tracker = new AckTracker(position, epoch);
        CommitOffset fetched = fetchedProgress.remove(tp);
        restored.remove(tp);
        if (fetched != null && fetched.offset() == position && keepProgress) {
            long[] runs = decodeProgress(tp, fetched);
            if (runs.length > 0) {
                for (int i = 0; i < runs.length; i += 2) {
                    for (long o = runs[i]; o < runs[i + 1]; o++) {
                        tracker.acknowledge(position + o);
                    }
                }
                restored.put(tp, new Restored(position, runs));
                logContext.run(() -> log.debug("{} starts at {} with {} later offset(s) completed by its previous"
                        + " owner (commit metadata): they are not processed again", tp, position, count(runs)));
            }
        }
        PartitionAssignment assignment = assignments.compute(tp, (k, current) -> {
            trackers.put(tp, tracker);
            if (current == null) {
                return new PartitionAssignment(tp, assignmentCount.incrementAndGet(), tracker);
            }
            current.tracker(tracker);
            return current;
        });
        ignoredReported.remove(tp);
        return assignment;
    }

    /**
     * The revocation of {@code partitions} starts: from now on a record's own commit ({@link #commitRecord}) fails at
     * once unless a commit already covered it, while acknowledgements still count until {@link #untrack} (the commit
     * made before the revocation completes carries them). Must be called before anything else can see the
     * revocation (the consumer's assignment view), so that whoever sees the partition gone sees this too.
     */
    public void revoking(Collection<TopicPartition> partitions) {
        for (TopicPartition tp : partitions) {
            // under the entry, as untrack ends it: an assignment that ended is never told its revocation started
            assignments.computeIfPresent(tp, (k, a) -> {
                a.revoking();
                return a;
            });
        }
    }

    private long[] decodeProgress(TopicPartition tp, CommitOffset fetched) {
        try {
            return ProgressMetadata.decode(fetched.metadata());
        } catch (IllegalArgumentException e) {
            logContext.run(() -> log.debug("{}: the commit metadata at {} is not readable kflux progress, every record"
                    + " from there is processed: {}", tp, fetched.offset(), e.getMessage()));
            return new long[0];
        }
    }

    private static long count(long[] runs) {
        long n = 0;
        for (int i = 0; i < runs.length; i += 2) {
            n += runs[i + 1] - runs[i];
        }
        return n;
    }

    /**
     * Turns progress keeping on (process() subscribed) or off (receive() and the others): on, the commits made from
     * acknowledgements carry the completed offsets above the committed one in their metadata, and
     * {@link #fetchCommitted} remembers what such metadata says; off, that metadata is {@code ""} as before.
     */
    public void keepProgress(boolean on) {
        keepProgress = on;
        if (!on) {
            fetchedProgress.clear();
            restored.clear();
        }
    }

    /**
     * The committed offsets of {@code partitions} ({@link OffsetCommitter#fetch}), where partitions start; with
     * progress kept, the completed offsets in their metadata are restored when the partition starts at that offset.
     */
    public Mono<Map<TopicPartition, CommitOffset>> fetchCommitted(Set<TopicPartition> partitions, Duration timeout) {
        return committer.fetch(partitions, timeout).doOnNext(this::rememberProgress);
    }

    /** With progress kept: committed offsets read whose metadata is kflux progress, for {@link #track}. */
    void rememberProgress(Map<TopicPartition, CommitOffset> committedOffsets) {
        if (keepProgress) {
            committedOffsets.forEach((tp, o) -> {
                if (o.metadata() != null && o.metadata().startsWith(ProgressMetadata.PREFIX)) {
                    fetchedProgress.put(tp, o);
                }
            });
        }
    }

    /**
     * Whether an earlier owner of {@code tp} completed the record at {@code offset} (read from the commit metadata
     * where the partition started); such a record is acknowledged already and process() does not run it again.
     */
    public boolean completedEarlier(TopicPartition tp, long offset) {
        Restored r = restored.get(tp);
        return r != null && r.contains(offset);
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
        for (TopicPartition tp : partitions) {
            // a tracker exists only with its assignment (track puts both under the entry), so it goes with it
            assignments.computeIfPresent(tp, (k, a) -> {
                a.end();
                trackers.remove(tp);
                return null;
            });
            restored.remove(tp);
        }
    }

    /** Acknowledges {@code offset} of {@code tp}'s current assignment (a record's own goes through its assignment). */
    public void acknowledge(TopicPartition tp, long offset) {
        PartitionAssignment a = assignments.get(tp);
        if (a == null) {
            ignored(tp, offset, NOT_ASSIGNED);
        } else {
            acknowledge(a, offset);
        }
    }

    /**
     * Acknowledges the record at {@code offset} emitted under {@code assignment}: counted while the assignment is
     * current (also during its revocation), ignored once it ended, even when the partition was assigned to this
     * consumer again meanwhile (the record belongs to the earlier assignment; the new one emits it again).
     */
    public void acknowledge(PartitionAssignment assignment, long offset) {
        TopicPartition tp = assignment.topicPartition();
        AckTracker t = assignment.tracker();
        if (assignment.state() == AssignmentState.ENDED) {
            // even if it ended just after this check, t is a tracker nothing commits any more
            ignored(tp, offset, NOT_ASSIGNED);
        } else {
            t.acknowledge(offset);
            if (batchSize > 0 && acknowledgedSinceBatch.incrementAndGet() % batchSize == 0) {
                commitAcknowledged(null).subscribe(v -> { }, e -> logContext.run(() ->
                        log.warn("batch commit after {} acknowledgements failed: {}", batchSize, e.toString())));
            }
            CommitPace p = pace;
            if (p.acknowledged(System::nanoTime)) {
                commitAcknowledged(null).doFinally(s -> p.ended()).subscribe(v -> { }, e -> logContext.run(() ->
                        log.warn("process()'s commit ahead of the periodic one failed: {}", e.toString())));
            }
        }
    }

    /**
     * process() with automatic commits: a commit of every partition also starts once {@code records}
     * acknowledgements were counted since the last one started, at most one such commit at a time and none sooner
     * than {@code floor} after the last one started ({@link CommitPace}); 0 turns it off (receive() and the others).
     */
    public void commitAhead(int records, Duration floor) {
        pace = records > 0 ? new CommitPace(records, floor.toNanos(), System.nanoTime()) : CommitPace.OFF;
    }

    /**
     * An acknowledgement after {@code close()}: the final commit was made, nothing is committed any more. Logged at
     * DEBUG as {@link #acknowledge} logs one of a partition no longer tracked.
     */
    public void ignoredAfterClose(TopicPartition tp, long offset) {
        ignored(tp, offset, "the consumer is closed (close() committed what was acknowledged before it)");
    }

    /**
     * An acknowledgement that commits nothing, at DEBUG: once per partition until it is tracked again (a pipeline
     * draining after a revoke or close acknowledges every record in flight; one line says what happens to them).
     */
    private void ignored(TopicPartition tp, long offset, String why) {
        if (log.isDebugEnabled() && ignoredReported.add(tp)) {
            logContext.run(() -> log.debug("acknowledgement of {} at offset {} ignored (so are later ones of the"
                    + " partition until it is assigned again): {}", tp, offset, why));
        }
    }

    /**
     * Commits once {@code acknowledgements} records were acknowledged since the last such commit (reactor-kafka's
     * {@code commitBatchSize}); 0 turns it off. Counting is lock-free: the acknowledgement that reaches a multiple
     * of the size starts the commit, which the commit chain orders after any under way.
     */
    public void commitBatchSize(int acknowledgements) {
        this.batchSize = acknowledgements;
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
            String metadata = keepProgress ? progress(tp, t, c) : "";
            if (c > 0 && c > t.lastCommitted() || !metadata.isEmpty() && !metadata.equals(t.lastMetadata())) {
                // the epoch of the last record before the committed offset, as the official consumer commits it
                out.put(tp, new CommitOffset(c, t.epochBefore(c), metadata));
            }
        });
        return out;
    }

    /**
     * The metadata for committing {@code tp} at {@code committable}: the offsets completed above it, {@code ""} when
     * none are; when they do not all fit in {@link ProgressMetadata#MAX_CHARS}, as many of the lowest as fit (said at
     * DEBUG: the next owner processes the others again).
     */
    private String progress(TopicPartition tp, AckTracker t, long committable) {
        int maxRuns = ProgressMetadata.maxRuns();
        long[] runs = t.completedRuns(maxRuns);
        ProgressMetadata.Encoded encoded = ProgressMetadata.encode(runs);
        if (!encoded.complete() || runs.length == 2 * maxRuns) {
            logContext.run(() -> log.debug("{}: the {} offset(s) completed above {} do not all fit in the commit"
                    + " metadata ({} chars at most): committed with the lowest that fit, its next owner processes the"
                    + " others again", tp, t.acknowledgedAbove(), committable, ProgressMetadata.MAX_CHARS));
        }
        return encoded.metadata();
    }

    /** Commits every acknowledged offset not yet committed (of {@code only}, when given). */
    public Mono<Void> commitAcknowledged(Set<TopicPartition> only) {
        return enqueue(() -> {
            if (only == null) {
                pace.commitStarted(System.nanoTime());
            }
            Map<TopicPartition, CommitOffset> offsets = uncommitted(only);
            return offsets.isEmpty() ? Mono.empty() : send(offsets);
        });
    }

    /**
     * {@code ConsumerRecord.commit()} of the record at {@code offset} emitted under {@code assignment}: acknowledges
     * it ({@link #acknowledge(PartitionAssignment, long)}), then, while the assignment is ACTIVE, commits the
     * partition's acknowledged prefix. Once its revocation started, or after it ended (also when the partition was
     * assigned to this consumer again since), the call sends nothing: it succeeds only when a commit already covered
     * the record, else fails at once with {@link CommitFailedException}, rather than completing as if its offset had
     * been committed by it.
     */
    public Mono<Void> commitRecord(PartitionAssignment assignment, long offset) {
        return Mono.defer(() -> {
            TopicPartition tp = assignment.topicPartition();
            acknowledge(assignment, offset);
            // read after the acknowledgement: a revocation that started before it was counted is seen here
            return switch (assignment.state()) {
                case ACTIVE -> commitAcknowledged(Set.of(tp));
                case REVOKING -> alreadyCommitted(tp, offset, "the partition's revocation started before the record"
                        + " was committed (assignment() no longer lists it); its acknowledgement counts for the commit"
                        + " made before the partition goes, which this call cannot wait for");
                case ENDED -> alreadyCommitted(tp, offset, "the partition is no longer assigned to this consumer under"
                        + " the assignment the record came from (revoked or lost before the record was acknowledged);"
                        + " its new owner, or a new assignment of it, reads it again");
            };
        });
    }

    /** {@code ConsumerRecord.commit()} of a record whose assignment is unknown: its partition's current one. */
    public Mono<Void> commitRecord(TopicPartition tp, long offset) {
        return Mono.defer(() -> {
            PartitionAssignment a = assignments.get(tp);
            return a != null ? commitRecord(a, offset) : alreadyCommitted(tp, offset, NOT_ASSIGNED);
        });
    }

    private static final String NOT_ASSIGNED = "the partition is not assigned to this consumer any more (revoked or"
            + " lost; its new owner reads the record again)";

    /**
     * {@code ConsumerRecord.commit()} after the consumer was closed: nothing is sent any more. It succeeds when a
     * commit (the one {@code close()} makes) already covered the record, else fails with
     * {@link CommitFailedException}, the error the recipes handle for a record whose offset cannot be committed.
     */
    public Mono<Void> commitRecordAfterClose(TopicPartition tp, long offset) {
        return Mono.defer(() -> alreadyCommitted(tp, offset, "the consumer was closed before the record was"
                + " acknowledged; whoever reads the partition next reads it again"));
    }

    private Mono<Void> alreadyCommitted(TopicPartition tp, long offset, String otherwise) {
        Long done = committed.get(tp);
        return done != null && done > offset ? Mono.empty()
                : Mono.error(new CommitFailedException("offset " + offset + " of " + tp + " cannot be committed: "
                        + otherwise));
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
        // An offset of a tracker dropped or replaced meanwhile (lost, then assigned again; seek; truncation) is not
        // sent on a retry: the retry would carry the member's identity of then (issue #29: an offset of the cluster
        // behind bootstrap.servers before it was replaced, committed into the new one under the new membership).
        return committer.commit(offsets, timeout, tp -> !sources.containsKey(tp) || trackers.get(tp) == sources.get(tp))
                .doOnSuccess(v -> offsets.forEach((tp, o) -> {
            committed.put(tp, o.offset());
            AckTracker source = sources.get(tp);
            if (source != null && trackers.get(tp) == source) {
                source.committed(o.offset(), o.metadata() == null ? "" : o.metadata());
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
        return Flux.interval(interval, interval, committer.timer())
                .onBackpressureDrop()
                .concatMap(t -> commitAcknowledged(null).onErrorResume(e -> {
                    logContext.run(() -> log.warn("auto commit failed: {}", e.toString()));
                    return Mono.empty();
                }))
                .subscribe();
    }

    /**
     * Watches for records that hold commits back: a partition where later records were acknowledged but the one at
     * the committable offset was not, for {@code threshold} or longer, gets a WARN naming the partition and that
     * offset, repeated with doubling intervals while it stays so. A record dropped without {@code acknowledge()}
     * (e.g. by {@code filter}) otherwise stops its partition's commits without a word.
     *
     * @param threshold how long a record may hold commits back before the first WARN
     * @return stops the watch
     */
    public Disposable startHeldBackWatch(Duration threshold) {
        long thresholdNanos = threshold.toNanos();
        Duration every = Duration.ofMillis(Math.max(100, Math.min(5_000, threshold.toMillis() / 4)));
        return Flux.interval(every, every, committer.timer())
                .onBackpressureDrop()
                .subscribe(t -> logContext.run(() -> checkHeldBack(thresholdNanos, System.nanoTime())));
    }

    /**
     * One look at every tracked partition (see {@link #startHeldBackWatch}); {@code now} in nanos.
     *
     * @return the partitions warned about now, with the blocking offset
     */
    Map<TopicPartition, Long> checkHeldBack(long thresholdNanos, long now) {
        Map<TopicPartition, Long> warned = new HashMap<>();
        heldBack.keySet().retainAll(trackers.keySet());
        trackers.forEach((tp, t) -> {
            long blocking = t.committable();
            long above = t.acknowledgedAbove();
            HeldBack h = heldBack.get(tp);
            if (above == 0) {
                heldBack.remove(tp);
            } else if (h == null || h.offset() != blocking) {
                heldBack.put(tp, new HeldBack(blocking, now, thresholdNanos));
            } else if (now - h.sinceNanos() >= h.warnAfterNanos()) {
                log.warn("commits of {} are held back at offset {}: that record has not been acknowledged for {} ms"
                        + " while {} later records were; a record dropped without acknowledge() (e.g. by filter)"
                        + " stops its partition's commits", tp, blocking, (now - h.sinceNanos()) / 1_000_000, above);
                heldBack.put(tp, new HeldBack(blocking, h.sinceNanos(), h.warnAfterNanos() * 2));
                warned.put(tp, blocking);
            }
        });
        return warned;
    }
}
