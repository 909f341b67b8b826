package io.kflux.fetch;

import io.kflux.TopicPartition;
import io.kflux.protocol.Types;
import io.kflux.util.ClientMetrics;
import io.kflux.util.StateTransitions;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.UUID;

/**
 * What the consumer knows of one assigned partition. The event loop owns every field but
 * {@link #position}, which the record emitter advances as it hands records downstream (so the
 * position is always "next offset to emit": a record never counts as consumed before it was
 * emitted). The fetch offset runs ahead of the position by whatever is buffered.
 */
public final class PartitionState {
    /** Offset not known yet: the partition waits for a committed offset or a reset. */
    public static final long UNKNOWN = -1L;

    private static final VarHandle POSITION;

    static {
        try {
            POSITION = MethodHandles.lookup().findVarHandle(PartitionState.class, "position", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final TopicPartition topicPartition;
    private volatile long position = UNKNOWN;
    private volatile int lastEmittedEpoch = -1;
    private volatile int seekEpoch;
    /** Counts repositionings (seeks, resets, truncations): each starts acknowledgement tracking afresh. */
    private volatile int positionEpoch;
    private volatile boolean paused;
    private volatile boolean revoked;
    /**
     * Where the log ends, from the last Fetch response with data or none (-1 before one): the high watermark and
     * the last stable offset (-1 from brokers before Fetch v4). Read from any thread for {@code currentLag}.
     */
    private volatile long highWatermark = UNKNOWN;
    private volatile long lastStableOffset = UNKNOWN;
    private volatile long logStartOffset = UNKNOWN;
    private long fetchOffset = UNKNOWN;
    /** Where the partition is in its fetch life cycle (loop only; changed by {@link #transitionTo} alone). */
    private FetchState state = FetchState.AWAITING_POSITION;
    /** Counts transitions, so an answer or timer leaves the state it entered only if nothing moved it since. */
    private int transitions;
    /** Fetch results of this partition waiting with the emitter. */
    private int pendingFetches;
    /** Leader epoch of the last fetched batch (the batch ending at {@code fetchOffset - 1}), -1 unknown (KIP-320). */
    private int lastFetchedEpoch = -1;
    /** The leader epoch the fetch position was last known valid under (-1 before the first fetch). */
    private int leaderEpoch = -1;
    /** In {@link FetchState#TRUNCATING}: the offset to move back to, and the leader epoch it ends. */
    private long truncateTo = UNKNOWN;
    private int truncateEpoch = -1;
    /** On the fetcher's clock (ns): since when metadata names no leader for the partition (0: it has one). */
    private long leaderlessSinceNanos;
    /** How long leaderless before the next WARN (doubles after each). */
    private long leaderlessWarnAfterNanos;
    /**
     * KIP-392: the replica the leader told this client to fetch from (closest by {@code client.rack}), -1 for the
     * leader; valid until {@code preferredReadReplicaExpiresNanos} (a lease of {@code metadata.max.age.ms}, as the
     * official client), and dropped at once on any error or failed connection while fetching from it.
     */
    private int preferredReadReplica = -1;
    private long preferredReadReplicaExpiresNanos;

    /** Samples lag and lead for the metrics (set once on assignment; emitter and loop call it). */
    private volatile ClientMetrics.PartitionSampler sampler = ClientMetrics.PartitionSampler.NONE;

    /** The topic id this partition was last planned under (null before; loop only). */
    private UUID topicId;
    private UUID previousTopicId;

    public PartitionState(TopicPartition topicPartition) {
        this.topicPartition = topicPartition;
    }

    public TopicPartition topicPartition() {
        return topicPartition;
    }

    /** The next offset to emit, or {@link #UNKNOWN}. */
    public long position() {
        return position;
    }

    /**
     * Leader epoch of the record before {@link #position()}: the last emitted record's batch, or the epoch a seek
     * gave (-1 unknown). New acknowledgement tracking starts with it (KIP-320 commits carry it).
     */
    public int lastEmittedEpoch() {
        return lastEmittedEpoch;
    }

    /**
     * Moves the position from {@code from} (where the emitter read it) to {@code nextOffset}, unless a seek moved it
     * meanwhile. Called by the emitter only, while a seek may run on the event loop: a plain store here would undo a
     * seek that landed while the record was being built (deserializers run in that window), so the seek would be
     * lost. Positions only a seek sets never equal the emitter's expectation except when the seek is to {@code from}
     * itself; then the record at {@code from} is emitted after the seek, which is what that seek asks for.
     *
     * <p>The position's compare-and-set is the whole cost per record; the epoch is written only when it changes
     * (a leader change, the first batch after a seek), under the same lock as {@link #seek}, so that neither undoes
     * the other's epoch.
     *
     * @param leaderEpoch the leader epoch of the batch the emitted or passed-over offsets belong to, -1 unknown
     * @return false when a seek moved the position since {@code from} was read: the caller's data is stale and must
     *         not be emitted
     */
    public boolean advance(long from, long nextOffset, int leaderEpoch) {
        if (leaderEpoch < 0 || leaderEpoch == lastEmittedEpoch) {
            return POSITION.compareAndSet(this, from, nextOffset);
        }
        synchronized (this) {
            if (position != from) {
                return false;
            }
            this.lastEmittedEpoch = leaderEpoch;
            this.position = nextOffset;
            return true;
        }
    }

    /**
     * Moves the position over a run of records taken from one wire batch at once ({@code receiveBatches()}: one move
     * per run instead of one compare-and-set per record, issue #28), from {@code from} to {@code nextOffset}, unless
     * the data turned stale since it was fetched under {@code seekEpoch}: a seek (also one back to {@code from}
     * itself, which {@link #advance} cannot tell apart), a reset, a truncation or a revocation. Under the lock
     * {@link #seek} holds, so that no seek lands between the check and the move.
     *
     * @param leaderEpoch the leader epoch of the run's wire batch, -1 unknown
     * @return false when nothing moved: the run's records are stale and must not be emitted
     */
    public synchronized boolean advanceRun(long from, long nextOffset, int leaderEpoch, int seekEpoch) {
        if (revoked || this.seekEpoch != seekEpoch || position != from) {
            return false;
        }
        if (leaderEpoch >= 0) {
            this.lastEmittedEpoch = leaderEpoch;
        }
        this.position = nextOffset;
        return true;
    }

    /** Positions the partition (seek, reset): buffered data of an older seek is dropped. */
    public void seek(long offset) {
        seek(offset, -1, FetchState.FETCHABLE);
    }

    /**
     * Positions the partition at {@code offset}, where {@code epoch} is the leader epoch of the record before it
     * (-1 unknown): it is sent as {@code lastFetchedEpoch} and committed with the offset until a record is emitted.
     */
    private void seek(long offset, int epoch, FetchState next) {
        synchronized (this) { // with the emitter's epoch change in advance()
            this.seekEpoch++;
            this.positionEpoch++;
            this.lastEmittedEpoch = epoch;
            this.position = offset;
        }
        this.fetchOffset = offset;
        clearTruncation();
        this.lastFetchedEpoch = epoch;
        transitionTo(next);
    }

    /**
     * Positions the partition at a committed offset with its committed leader epoch ({@code epoch}, -1 unknown).
     * As the official consumer does (KIP-320), a known epoch is checked with OffsetForLeaderEpoch before the
     * first fetch: the log may have been truncated below the offset since it was committed (unclean leader
     * election), and then the position moves back to the epoch's end offset.
     */
    public void seekUnvalidated(long offset, int epoch) {
        seek(offset, epoch, epoch >= 0 ? FetchState.AWAITING_VALIDATION : FetchState.FETCHABLE);
    }

    private void clearTruncation() {
        this.truncateTo = UNKNOWN;
        this.truncateEpoch = -1;
    }

    /**
     * The log was truncated below the fetch offset (KIP-320): buffered results become stale, no
     * fetch goes out, and once none is left waiting the fetcher moves the position back to
     * {@code min(position, endOffset)} ({@link #completeTruncation()}).
     */
    void beginTruncation(long endOffset, int epoch) {
        this.seekEpoch++;
        this.fetchOffset = UNKNOWN;
        this.lastFetchedEpoch = -1;
        this.truncateTo = endOffset;
        this.truncateEpoch = epoch;
        transitionTo(FetchState.TRUNCATING);
    }

    /**
     * Ends a truncation once no result of this partition is waiting (the emitter no longer moves
     * the position): resumes at the truncation offset, or at the position when that is lower.
     * Returns the new position.
     */
    long completeTruncation() {
        long to = truncateTo;
        int epoch = truncateEpoch;
        long current = position;
        long target = current >= 0 && current < to ? current : to;
        seek(target, target == to ? epoch : lastEmittedEpoch, FetchState.FETCHABLE);
        return target;
    }

    /**
     * Fetches again from the position, keeping it: buffered and in-flight results become stale. Unlike a seek this
     * is no new start for acknowledgement tracking ({@link #positionEpoch()} stays).
     */
    void refetchFromPosition() {
        this.seekEpoch++;
        this.fetchOffset = position;
        this.lastFetchedEpoch = lastEmittedEpoch;
    }

    /** Leader epoch of the last fetched batch, -1 when unknown (loop only). */
    int lastFetchedEpoch() {
        return lastFetchedEpoch;
    }

    /**
     * OffsetForLeaderEpoch found the leader has no epoch {@link #lastFetchedEpoch()}: its largest older one,
     * {@code epoch}, covers the fetch offset and is sent from now on (loop only).
     */
    void lastFetchedEpoch(int epoch) {
        this.lastFetchedEpoch = epoch;
    }

    /** A Fetch brought data up to {@code nextFetchOffset}, its last batch of leader epoch {@code lastEpoch}. */
    void fetched(long nextFetchOffset, int lastEpoch) {
        this.fetchOffset = nextFetchOffset;
        this.lastFetchedEpoch = lastEpoch;
        this.pendingFetches++;
    }

    /** A fetch result of this partition left the emitter (emitted or dropped). */
    void fetchConsumed() {
        this.pendingFetches--;
    }

    /** Fetch results of this partition waiting with the emitter (loop only). */
    int pendingFetches() {
        return pendingFetches;
    }

    /**
     * Metadata names the partition's leader epoch {@code current}. A higher one than the position was last known
     * valid under (a new leader, or a new epoch of the same one) sends a {@link FetchState#FETCHABLE} partition that
     * fetched under a known epoch to {@link FetchState#AWAITING_VALIDATION} (KIP-320). Returns the epoch known
     * before, when validation begins, or -1.
     */
    int leaderEpochSeen(int current) {
        int before = leaderEpoch;
        if (current <= before) {
            return -1;
        }
        leaderEpoch = current;
        if (state == FetchState.FETCHABLE && before >= 0 && lastFetchedEpoch >= 0) {
            transitionTo(FetchState.AWAITING_VALIDATION);
            return before;
        }
        return -1;
    }

    /** Where the partition is in its fetch life cycle (loop only). */
    public FetchState state() {
        return state;
    }

    /**
     * Moves the partition to {@code next} (loop only).
     *
     * @throws IllegalStateException when {@code next} may not follow the current state ({@link
     *     FetchState#previousValidStates()}, {@link StateTransitions#check}), naming the partition and both states
     */
    void transitionTo(FetchState next) {
        state = StateTransitions.check(topicPartition, state, next);
        transitions++;
    }

    /** Counts the transitions so far: a waiting state entered notes it, to leave it by {@link #transitionIfStill}. */
    int transitions() {
        return transitions;
    }

    /**
     * Moves to {@code next} only while the partition is still in {@code expected} as entered at {@code transitions}
     * ({@link #transitions()} then): an answer or timer for a state the partition left meanwhile (a seek, a reset,
     * another request) changes nothing. Returns whether it moved.
     */
    boolean transitionIfStill(FetchState expected, int transitions, FetchState next) {
        if (state != expected || this.transitions != transitions) {
            return false;
        }
        transitionTo(next);
        return true;
    }

    /** On the fetcher's clock (ns): since when metadata names no leader (0: it has one). */
    long leaderlessSinceNanos() {
        return leaderlessSinceNanos;
    }

    /** How long leaderless before the next WARN. */
    long leaderlessWarnAfterNanos() {
        return leaderlessWarnAfterNanos;
    }

    /** Notes the leaderless wait: since when (0 once a leader is known again), and when the next WARN is due. */
    void leaderless(long sinceNanos, long warnAfterNanos) {
        this.leaderlessSinceNanos = sinceNanos;
        this.leaderlessWarnAfterNanos = warnAfterNanos;
    }

    /** The preferred read replica's node id (KIP-392), -1 for the leader. */
    int preferredReadReplica() {
        return preferredReadReplica;
    }

    /** On the fetcher's clock (ns): when the preferred read replica's lease ends. */
    long preferredReadReplicaExpiresNanos() {
        return preferredReadReplicaExpiresNanos;
    }

    /** Fetches from {@code replica} (-1: the leader) until {@code expiresNanos} (the fetcher's clock, ns). */
    void preferReadReplica(int replica, long expiresNanos) {
        this.preferredReadReplica = replica;
        this.preferredReadReplicaExpiresNanos = expiresNanos;
    }

    public int seekEpoch() {
        return seekEpoch;
    }

    /** Changes on every seek, reset or truncation, but not when fetching merely starts over at the position. */
    public int positionEpoch() {
        return positionEpoch;
    }

    /** Called by the fetcher for every answer without error for this partition (KIP-392 fields need not be read). */
    void logEnd(long highWatermark, long lastStableOffset, long logStartOffset) {
        this.highWatermark = highWatermark;
        this.lastStableOffset = lastStableOffset;
        this.logStartOffset = logStartOffset;
    }

    /**
     * The end of the log learned outside a Fetch (ListOffsets for a partition not fetched now, e.g. paused), so
     * its lag stays current; never moves the known end back (a Fetch answer may have been newer).
     *
     * @param readCommitted true when {@code endOffset} is the last stable offset, false for the high watermark
     */
    public void logEndListed(long endOffset, boolean readCommitted) {
        if (readCommitted) {
            lastStableOffset = Math.max(lastStableOffset, endOffset);
        } else {
            highWatermark = Math.max(highWatermark, endOffset);
        }
    }

    /**
     * Records between the start of the log (at the last Fetch answer) and the position, as the official consumer's
     * {@code records-lead}.
     *
     * @return the lead in records, or -1 when the position or the log start is not known yet
     */
    public long lead() {
        long start = logStartOffset;
        long pos = position;
        return start < 0 || pos < 0 ? UNKNOWN : pos - start;
    }

    /**
     * Records between the position and the end of the log at the last Fetch answer, as the official consumer's
     * {@code currentLag}: the end is the high watermark, or under {@code read_committed} the last stable offset.
     *
     * @param readCommitted true with {@code isolation.level=read_committed}
     * @return the lag in records, or -1 when the position or that end is not known yet
     */
    public long lag(boolean readCommitted) {
        long end = logEnd(readCommitted);
        long pos = position;
        if (end < 0 || pos < 0) {
            return UNKNOWN;
        }
        return Math.max(0L, end - pos);
    }

    /**
     * True when the fetch offset is at or past the end of the log the last answer reported ({@link #lag}'s end):
     * a Fetch from it finds nothing new now, so the broker holds it for up to {@code fetch.max.wait.ms}. False while
     * no end is known (never answered, or no last stable offset from a broker before Fetch v4). Loop only.
     *
     * @param readCommitted true with {@code isolation.level=read_committed}: the end is the last stable offset
     */
    boolean fetchedToLogEnd(boolean readCommitted) {
        long end = logEnd(readCommitted);
        return end >= 0 && fetchOffset >= end;
    }

    /**
     * The end of the log as the last Fetch answer (or a ListOffsets for a paused partition) reported it, {@link #lag}'s
     * end; any thread.
     *
     * @param readCommitted true with {@code isolation.level=read_committed}: the last stable offset, else the high
     *                      watermark
     * @return the offset, or -1 when no answer reported it yet
     */
    public long logEnd(boolean readCommitted) {
        return readCommitted ? lastStableOffset : highWatermark;
    }

    /** Where {@link #sampleLag()} goes: the metrics' sampler of this partition. */
    void sampler(ClientMetrics.PartitionSampler partitionSampler) {
        this.sampler = partitionSampler;
    }

    /**
     * Samples lag and lead for their windowed metrics, as the official client does after handing on the records of
     * a Fetch answer (the emitter, when it has read a result to its end) and for an answer that brought none (the
     * fetcher). Any thread.
     */
    public void sampleLag() {
        sampler.sample();
    }

    /**
     * KIP-392: the node this partition is fetched from now when that is not the leader, -1 for the leader (or an
     * expired lease), as the official client's {@code preferred-read-replica}; {@code nowNanos} on the fetcher's
     * clock. For gauges, from any thread: the fields are the loop's, so a reader may see a change slightly late.
     */
    public int readReplicaAt(long nowNanos) {
        int replica = preferredReadReplica;
        return replica < 0 || nowNanos - preferredReadReplicaExpiresNanos >= 0 ? -1 : replica;
    }

    /**
     * Records fetched but not emitted yet: the fetch offset less the position, 0 when either is unknown. For
     * gauges, from any thread: the fetch offset is the loop's plain field, so a reader may see it slightly late.
     */
    public long fetchedAhead() {
        long fetched = fetchOffset;
        long pos = position;
        return fetched < 0 || pos < 0 ? 0L : Math.max(0L, fetched - pos);
    }

    public boolean isPaused() {
        return paused;
    }

    public void paused(boolean paused) {
        this.paused = paused;
    }

    /** True once the partition left the assignment: its buffered data must not be emitted any more. */
    public boolean isRevoked() {
        return revoked;
    }

    public void revoke() {
        this.revoked = true;
        this.seekEpoch++;
    }

    /** True when the partition has a fetch offset ({@link FetchState#hasPosition()}; loop only). */
    public boolean hasPosition() {
        return state.hasPosition();
    }

    public long fetchOffset() {
        return fetchOffset;
    }

    /**
     * Notes the topic id metadata gives now (the zero UUID: unknown, ignored). True when it differs from the one
     * seen before: the topic was deleted and created again under the same name (loop only).
     */
    boolean topicIdChanged(UUID current) {
        if (Types.isZero(current) || current.equals(topicId)) {
            return false;
        }
        UUID before = topicId;
        previousTopicId = before;
        topicId = current;
        return before != null;
    }

    /** The id before the last change {@link #topicIdChanged} reported, for log lines. */
    UUID previousTopicId() {
        return previousTopicId;
    }

    /** Marks the partition as needing a reset by {@code auto.offset.reset}. */
    public void requireReset() {
        this.seekEpoch++;
        this.fetchOffset = UNKNOWN;
        this.lastFetchedEpoch = -1;
        clearTruncation();
        transitionTo(FetchState.AWAITING_RESET);
    }

    @Override
    public String toString() {
        return topicPartition + "@" + position + "(fetch " + fetchOffset + ", " + state + ")";
    }
}
