package io.kflux.share;

import io.kflux.util.StateTransitions;
import java.util.EnumSet;
import java.util.Set;

/**
 * The share fetcher's life: RUNNING -> CLOSING (close(): no more fetches, acknowledgements flushed, sessions closed)
 * -> CLOSED; RUNNING | CLOSING -> CLOSED (a fatal error).
 */
enum ShareFetcherState implements StateTransitions<ShareFetcherState> {
    RUNNING,
    CLOSING,
    CLOSED;

    private Set<ShareFetcherState> previous;

    static {
        RUNNING.previous = EnumSet.noneOf(ShareFetcherState.class);
        CLOSING.previous = EnumSet.of(RUNNING);
        CLOSED.previous = EnumSet.of(RUNNING, CLOSING);
    }

    @Override
    public Set<ShareFetcherState> previousValidStates() {
        return previous;
    }
}
