package io.kflux.commit;

import io.kflux.util.StateTransitions;
import java.util.EnumSet;
import java.util.Set;

/**
 * Where one assignment of a partition to this consumer is ({@link PartitionAssignment}); every move is checked.
 *
 * <pre>
 * ACTIVE -> REVOKING (the revocation started: the consumer's assignment() no longer lists the partition)
 * ACTIVE | REVOKING -> ENDED (revoked or lost: its tracking was dropped)
 * </pre>
 *
 * <p>REVOKING exists because the revocation is not one step: fetching stops, in-flight work finishes, acknowledged
 * offsets are committed, the application's listener runs, and only then is the tracking dropped. In between,
 * acknowledgements still count (the revocation's commit carries them), but a commit asked for by the application
 * can no longer be promised: the partition may be the next owner's before it would be sent.
 */
public enum AssignmentState implements StateTransitions<AssignmentState> {
    /** Owned: acknowledgements count, commits are sent. */
    ACTIVE,
    /** The revocation started: acknowledgements count, a record's own commit fails unless already covered. */
    REVOKING,
    /** Revoked or lost: acknowledgements are ignored, a record's own commit fails unless already covered. */
    ENDED;

    private Set<AssignmentState> previous;

    static {
        ACTIVE.previous = EnumSet.noneOf(AssignmentState.class);
        REVOKING.previous = EnumSet.of(ACTIVE);
        ENDED.previous = EnumSet.of(ACTIVE, REVOKING);
    }

    @Override
    public Set<AssignmentState> previousValidStates() {
        return previous;
    }
}
