package io.kflux.group;

import io.kflux.network.BrokerConnection;
import io.kflux.protocol.ApiRequest;
import io.kflux.protocol.message.FindCoordinatorResponse;
import reactor.core.publisher.Mono;

/**
 * What {@link CoordinatorManager} asks of the network, behind one seam so coordinator discovery can be driven by a
 * scripted broker in tests. Monos may signal on any thread.
 */
interface CoordinatorIo {

    /**
     * Sends FindCoordinator for a group to any broker.
     *
     * @return the broker's answer for {@code groupId} (its error code included); fails on network errors, and with
     * {@link io.kflux.protocol.MalformedMessageException} when the answer has no entry for the group
     */
    Mono<FindCoordinatorResponse.Coordinator> findCoordinator(String groupId);

    /**
     * The connection to the coordinator broker, separate from the connection that broker's fetches use (the broker
     * handles one request per connection at a time: a JoinGroup it holds for up to the rebalance timeout, or an
     * OffsetCommit, must not wait behind a long-poll Fetch, nor hold one up).
     */
    Mono<CoordinatorChannel> connectCoordinator(int nodeId, String host, int port);

    /** An open connection to the group coordinator. */
    interface CoordinatorChannel {
        /**
         * Sends a request at the highest version both sides support.
         *
         * @param timeoutMs how long the answer may take (JoinGroup needs more than {@code request.timeout.ms})
         * @return the response; fails with the network layer's exceptions
         */
        <R> Mono<R> send(ApiRequest<R> request, long timeoutMs);

        /** Completes (empty) when the connection closes, for whatever reason. */
        Mono<Void> onClose();

        /** The underlying connection, for the commit layer; null only for test doubles. */
        BrokerConnection connection();

        /** The coordinator's broker node id. */
        int nodeId();
    }
}
