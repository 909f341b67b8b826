package io.kflux.network;

/**
 * What the consumer's connections to one broker look like right now, for choosing a broker for a request any broker
 * answers (Metadata, FindCoordinator): a snapshot, stale as soon as it is read.
 *
 * @param connected        the broker's general-purpose connection (the one Metadata and Fetch use) is open
 * @param requestsWaiting  requests on the consumer's connections to this broker (general and coordinator) not yet
 *                         answered: a broker that stopped answering piles them up (a stuck Fetch and a stuck
 *                         Heartbeat make two); a long-polling Fetch is one
 * @param troubled         the last thing that happened on any of the consumer's connections to this broker (its
 *                         general one, its coordinator one) was a failure: a connect or handshake that failed, or a
 *                         connection that dropped, which includes every request timeout (it closes the connection)
 * @param lastFailureNanos when that failure was ({@link System#nanoTime()}), 0 if there was none
 */
public record NodeLoad(boolean connected, int requestsWaiting, boolean troubled, long lastFailureNanos) {
    /** A broker the consumer never connected to. */
    public static final NodeLoad UNKNOWN = new NodeLoad(false, 0, false, 0);
}
