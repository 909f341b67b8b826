package io.kflux.share;

import io.kflux.util.StateTransitions;
import java.util.EnumSet;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Whether acknowledgements handed to the share fetcher are taken at once or once the emitter's burst ends.
 *
 * <p><b>Why.</b> The fetcher's loop runs a task on the calling thread when nothing else runs on it, so a subscriber
 * that subscribes each record's {@code accept()} from {@code onNext} made the emit thread take one acknowledgement
 * and plan once per record (the loop was idle between records): 11 % of the JVM's CPU samples in the share benchmark's
 * best form (BENCHMARKS.md, issue #26). While the emitter hands out a burst, hand-overs only queue; the burst's end
 * takes them all with one plan. A burst is bounded by the records acquired and the subscriber's demand, so an
 * acknowledgement waits at most that long; one from another thread meanwhile waits likewise, and is taken at the end.
 *
 * <pre>
 * OPEN -> HELD                    (a burst starts)
 * HELD -> HELD_WITH_HAND_OVERS    (something was handed over during it)
 * HELD, HELD_WITH_HAND_OVERS -> OPEN (the burst ended; in the second case the caller takes what waits)
 * </pre>
 */
final class BurstHold {
    enum State implements StateTransitions<State> {
        OPEN,
        HELD,
        HELD_WITH_HAND_OVERS;

        @Override
        public Set<State> previousValidStates() {
            return switch (this) {
                case OPEN -> EnumSet.of(HELD, HELD_WITH_HAND_OVERS);
                case HELD -> EnumSet.of(OPEN);
                case HELD_WITH_HAND_OVERS -> EnumSet.of(HELD);
            };
        }
    }

    private final AtomicReference<State> state = new AtomicReference<>(State.OPEN);

    /**
     * A burst starts.
     *
     * @return whether this burst holds (false while another one does: that one's end takes what waits)
     */
    boolean hold() {
        return state.compareAndSet(State.OPEN, StateTransitions.check(State.OPEN, State.HELD));
    }

    /**
     * A hand-over was queued (any thread).
     *
     * @return true when a burst holds it (the burst's end takes it), false when the caller must take it now
     */
    boolean holds() {
        while (true) {
            State s = state.get();
            if (s == State.OPEN) {
                return false;
            }
            if (s == State.HELD_WITH_HAND_OVERS
                    || state.compareAndSet(State.HELD, StateTransitions.check(s, State.HELD_WITH_HAND_OVERS))) {
                return true;
            }
        }
    }

    /**
     * The burst that {@link #hold} returned true for ended.
     *
     * @return whether hand-overs wait for the caller to take them
     */
    boolean release() {
        State s = state.getAndSet(State.OPEN);
        StateTransitions.check(s, State.OPEN);
        return s == State.HELD_WITH_HAND_OVERS;
    }

    State state() {
        return state.get();
    }
}
