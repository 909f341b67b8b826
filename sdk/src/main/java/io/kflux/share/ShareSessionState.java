package io.kflux.share;

import io.kflux.util.StateTransitions;
import java.util.Set;

/**
 * Where one broker's share session (KIP-932) is, as {@link ShareSession} moves it. One request is out at a time:
 * the states with a request out take its answer before anything else is sent.
 *
 * <pre>
 * NONE -> OPENING (ShareFetch, epoch 0) -> OPEN | NONE (answer with an error, or none)
 * OPEN -> UPDATING (ShareFetch or ShareAcknowledge, epoch > 0) -> OPEN | NONE (session errors, no answer)
 * OPEN -> CLOSING (epoch -1) -> CLOSED;  NONE -> CLOSED (nothing to close)
 * </pre>
 */
public enum ShareSessionState implements StateTransitions<ShareSessionState> {
    /** No session on the broker: the next ShareFetch opens one with epoch 0. */
    NONE,
    /** The opening ShareFetch is out. */
    OPENING,
    /** A session is open; the next request carries its epoch. */
    OPEN,
    /** A ShareFetch or ShareAcknowledge of the open session is out. */
    UPDATING,
    /** The closing request (epoch -1) is out. */
    CLOSING,
    /** Closed for good: this member sends this broker no share request again. */
    CLOSED;

    static {
        NONE.previousValidStates = Set.of(OPENING, UPDATING);
        OPENING.previousValidStates = Set.of(NONE);
        OPEN.previousValidStates = Set.of(OPENING, UPDATING);
        UPDATING.previousValidStates = Set.of(OPEN);
        CLOSING.previousValidStates = Set.of(OPEN);
        CLOSED.previousValidStates = Set.of(NONE, CLOSING);
    }

    private Set<ShareSessionState> previousValidStates;

    @Override
    public Set<ShareSessionState> previousValidStates() {
        return previousValidStates;
    }
}
