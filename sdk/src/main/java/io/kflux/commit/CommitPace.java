package io.kflux.commit;

import io.kflux.util.StateTransitions;
import java.util.EnumSet;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongSupplier;

/**
 * When {@code process()} commits ahead of the periodic commit (issue #27). A kill re-does what completed since the
 * last commit that reached the broker: about one {@code auto.commit.interval.ms} of work, which for a consumer that
 * completes tens of thousands of records a second is tens of thousands of records. With a pace of {@code records},
 * a commit of every partition also starts once that many acknowledgements were counted since the last commit of
 * every partition started (periodic, ahead or final), so what a kill re-does is bounded by records as well as by
 * time. At most one commit ahead runs at a time, and none starts sooner than {@code floor} after the last commit of
 * every partition started: a fast consumer commits at most once per floor, whatever its rate.
 *
 * <p>Counting is lock-free (one increment per acknowledgement); the clock is read only once the count is reached,
 * and passed in, so tests drive it.
 *
 * <pre>
 * COUNTING -> COMMITTING (the count and the floor were reached: the caller starts a commit)
 * COMMITTING -> COUNTING (that commit ended, whatever its outcome)
 * </pre>
 */
final class CommitPace {
    /** No commit ahead: only the periodic, revocation and final commits (and {@code withCommitBatchSize}'s). */
    static final CommitPace OFF = new CommitPace(0, 0, 0);

    enum State implements StateTransitions<State> {
        COUNTING,
        COMMITTING;

        @Override
        public Set<State> previousValidStates() {
            return switch (this) {
                case COUNTING -> EnumSet.of(COMMITTING);
                case COMMITTING -> EnumSet.of(COUNTING);
            };
        }
    }

    private final long records;
    private final long floorNanos;
    private final AtomicLong acknowledged = new AtomicLong();
    private final AtomicReference<State> state = new AtomicReference<>(State.COUNTING);
    private volatile long lastStartNanos;

    /**
     * @param records    acknowledgements after which a commit starts, 0 for never
     * @param floorNanos the least time between the starts of two commits of every partition when this one starts
     * @param nowNanos   the clock now: counts as the last commit's start
     */
    CommitPace(long records, long floorNanos, long nowNanos) {
        if (records < 0 || floorNanos < 0) {
            throw new IllegalArgumentException("records and floor must not be negative, were " + records + " and "
                    + floorNanos + " ns");
        }
        this.records = records;
        this.floorNanos = floorNanos;
        this.lastStartNanos = nowNanos;
    }

    /**
     * One acknowledgement.
     *
     * @param clock read (in ns) only once the count is reached
     * @return whether the caller is to start a commit of every partition now, and call {@link #ended()} once it ended
     */
    boolean acknowledged(LongSupplier clock) {
        if (records == 0 || acknowledged.incrementAndGet() < records) {
            return false;
        }
        if (clock.getAsLong() - lastStartNanos < floorNanos || state.get() != State.COUNTING) {
            return false;
        }
        return state.compareAndSet(State.COUNTING, StateTransitions.check(State.COUNTING, State.COMMITTING));
    }

    /** A commit of every partition (periodic, ahead or final) takes its offsets at {@code nowNanos}: counting restarts. */
    void commitStarted(long nowNanos) {
        if (records > 0) {
            acknowledged.set(0);
            lastStartNanos = nowNanos;
        }
    }

    /** The commit {@link #acknowledged} started ended. */
    void ended() {
        state.set(StateTransitions.check(state.get(), State.COUNTING));
    }

    /** Acknowledgements counted since the last commit of every partition started (tests). */
    long counted() {
        return acknowledged.get();
    }
}
