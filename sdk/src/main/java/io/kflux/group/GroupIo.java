package io.kflux.group;

import io.kflux.metadata.Cluster;
import io.kflux.network.BrokerConnection;
import io.kflux.protocol.ApiRequest;
import io.kflux.protocol.message.FindCoordinatorResponse;
import java.util.Set;
import reactor.core.publisher.Mono;

/**
 * Everything the group member asks of the network and metadata layers, behind one seam so that the state machine
 * can be driven by a scripted coordinator in tests (virtual time, no sockets). {@link NetworkGroupIo} is the real
 * one. Monos may signal on any thread; the member hops back onto its event loop.
 */
interface GroupIo {

    /**
     * Sends FindCoordinator for a group to any broker.
     *
     * @return the broker's answer for {@code groupId} (its error code included); fails on network errors
     */
    Mono<FindCoordinatorResponse.Coordinator> findCoordinator(String groupId);

    /**
     * The connection to the coordinator broker, separate from the connection that broker's fetches use (the broker
     * handles one request per connection at a time, and it holds a JoinGroup for up to the rebalance timeout).
     */
    Mono<CoordinatorChannel> connectCoordinator(int nodeId, String host, int port);

    /** The latest metadata snapshot. */
    Cluster cluster();

    /** Sets the topics the metadata must cover; {@code all} for every topic (pattern subscriptions). */
    void interest(Set<String> topics, boolean all);

    /** A fresh metadata snapshot; fails when no broker answers. */
    Mono<Cluster> refreshMetadata();

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
