package io.kflux.commit;

import io.kflux.TopicPartition;
import io.kflux.util.StateTransitions;
import java.util.concurrent.atomic.AtomicReference;

/**
 * One assignment of a partition to this consumer, from the first positioning of its records until it is revoked or
 * lost ({@link CommitManager#track}, {@link CommitManager#untrack}); a seek within it keeps it (only the tracker
 * restarts). Records carry the assignment they were emitted under, so an acknowledgement or commit of a record from an
 * earlier assignment of the same partition (revoked, then assigned to this consumer again) reaches that ended
 * assignment and is ignored, instead of landing in the new assignment's tracker (issue #28).
 */
public final class PartitionAssignment {
    private final TopicPartition topicPartition;
    /** Counts this consumer's assignments, for log lines and messages only: identity is the object. */
    private final long generation;
    private final AtomicReference<AssignmentState> state = new AtomicReference<>(AssignmentState.ACTIVE);
    /** The tracker of the current positioning (replaced on a seek or truncation). */
    private volatile AckTracker tracker;

    PartitionAssignment(TopicPartition topicPartition, long generation, AckTracker tracker) {
        this.topicPartition = topicPartition;
        this.generation = generation;
        this.tracker = tracker;
    }

    public TopicPartition topicPartition() {
        return topicPartition;
    }

    public AssignmentState state() {
        return state.get();
    }

    AckTracker tracker() {
        return tracker;
    }

    void tracker(AckTracker tracker) {
        this.tracker = tracker;
    }

    /**
     * ACTIVE to REVOKING; false when the revocation had started already (told again, nothing changes).
     *
     * @throws IllegalStateException when the assignment ended: an ended one is no longer the partition's current
     */
    boolean revoking() {
        AssignmentState s = state.get();
        return s != AssignmentState.REVOKING
               && state.compareAndSet(s, StateTransitions.check(this, s, AssignmentState.REVOKING));
    }

    /** To ENDED, from ACTIVE (lost) or REVOKING (revoked); ending twice changes nothing. */
    void end() {
        for (AssignmentState s = state.get(); s != AssignmentState.ENDED; s = state.get()) {
            if (state.compareAndSet(s, StateTransitions.check(this, s, AssignmentState.ENDED))) {
                return;
            }
        }
    }

    @Override
    public String toString() {
        return topicPartition + " (assignment " + generation + ", " + state.get() + ")";
    }
}
