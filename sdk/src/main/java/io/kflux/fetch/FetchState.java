package io.kflux.fetch;

import io.kflux.util.StateTransitions;
import java.util.Collections;
import java.util.EnumSet;
import java.util.Set;

/**
 * Where one assigned partition is in its fetch life cycle: how it gets a position, has it checked after a leader
 * change (KIP-320), and is fetched. {@code PartitionState.transitionTo} refuses a move this enum does not declare,
 * ({@link StateTransitions#check}), as the official consumer's {@code MemberState} declares the states each may be
 * entered from.
 *
 * <p>Repositioning (a seek, a reset by {@code auto.offset.reset}, a committed position) is the user's or the group's
 * and may come in any state, so {@link #AWAITING_RESET}, {@link #AWAITING_VALIDATION} and {@link #FETCHABLE} may be
 * entered from every state (themselves included). A state entered while waiting for a broker ({@link #RESETTING},
 * {@link #VALIDATING}, {@link #FETCHING}, {@link #LEADER_BACKOFF}) is left by that answer or timer only while no
 * other transition happened since ({@code PartitionState.transitionIfStill}): a repositioning meanwhile wins.
 *
 * <pre>
 * AWAITING_POSITION -> FETCHABLE | AWAITING_VALIDATION (committed offset, seek) | AWAITING_RESET (none committed)
 * AWAITING_RESET -> RESETTING -> FETCHABLE | AWAITING_RESET (ListOffsets answered / not for it, failed)
 * AWAITING_VALIDATION -> VALIDATING -> FETCHABLE | TRUNCATING | AWAITING_RESET | AWAITING_VALIDATION (retry)
 * FETCHABLE -> FETCHING -> FETCHABLE
 * FETCHABLE -> AWAITING_VALIDATION (higher leader epoch) | LEADER_BACKOFF -> FETCHABLE | TRUNCATING -> FETCHABLE
 * FETCHABLE -> AWAITING_RESET (OFFSET_OUT_OF_RANGE)
 * any -> AWAITING_RESET | FETCHABLE | AWAITING_VALIDATION   (seek, reset, topic deleted and created again)
 * </pre>
 *
 * <p>Facts that are not steps of this life cycle stay fields of {@link PartitionState}: paused by the user, revoked,
 * results waiting to be emitted, epochs, offsets and the preferred read replica (KIP-392).
 */
public enum FetchState implements StateTransitions<FetchState> {
    /** Just assigned: no position yet, and none asked for (a committed offset or a reset comes next). */
    AWAITING_POSITION(false),
    /** No position: waits to be reset by {@code auto.offset.reset} (ListOffsets). */
    AWAITING_RESET(false),
    /** Its ListOffsets for the reset is out (one reset round at a time per consumer). */
    RESETTING(false),
    /** The leader epoch moved past the one the position was fetched under: OffsetForLeaderEpoch must confirm it. */
    AWAITING_VALIDATION(true),
    /** Its OffsetForLeaderEpoch is out, or waits {@code retry.backoff.ms} to be asked again. */
    VALIDATING(true),
    /**
     * The log was truncated below the fetch offset: buffered results are stale, and once none is left with the
     * emitter the position moves back to the truncation offset (to {@link #FETCHABLE}).
     */
    TRUNCATING(false),
    /** A valid position: fetched when not paused and not held back by results waiting to be emitted. */
    FETCHABLE(true),
    /** A Fetch that may bring its data is out (listed in it, or implied by its broker's fetch session, KIP-227). */
    FETCHING(true),
    /** A Fetch was answered with a leader error: not fetched before {@code retry.backoff.ms} passed. */
    LEADER_BACKOFF(true);

    static {
        Set<FetchState> any = Collections.unmodifiableSet(EnumSet.allOf(FetchState.class));
        AWAITING_POSITION.previousValidStates = Set.of();
        AWAITING_RESET.previousValidStates = any;
        RESETTING.previousValidStates = Set.of(AWAITING_RESET);
        AWAITING_VALIDATION.previousValidStates = any;
        VALIDATING.previousValidStates = Set.of(AWAITING_VALIDATION);
        // from a Fetch's divergingEpoch (after FETCHING ended) or an OffsetForLeaderEpoch answer
        TRUNCATING.previousValidStates = Set.of(FETCHABLE, VALIDATING);
        FETCHABLE.previousValidStates = any;
        FETCHING.previousValidStates = Set.of(FETCHABLE);
        LEADER_BACKOFF.previousValidStates = Set.of(FETCHABLE);
    }

    private final boolean hasPosition;
    private Set<FetchState> previousValidStates;

    FetchState(boolean hasPosition) {
        this.hasPosition = hasPosition;
    }

    @Override
    public Set<FetchState> previousValidStates() {
        return previousValidStates;
    }

    /** True when the partition has a fetch offset (it is fetched, or will be once validated). */
    public boolean hasPosition() {
        return hasPosition;
    }

    /** True when a Fetch may be sent for it now (pausing and buffer bounds aside). */
    public boolean isFetchable() {
        return this == FETCHABLE;
    }

    /**
     * True while the fetch path waits for a Fetch answer or its leader-error backoff: planning leaves the partition
     * alone (no topic id check, no reset, no validation) until then.
     */
    public boolean awaitsFetch() {
        return this == FETCHING || this == LEADER_BACKOFF;
    }
}
