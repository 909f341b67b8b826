package io.kflux.share;

import io.kflux.metadata.Cluster;
import io.kflux.metadata.Node;
import io.kflux.protocol.message.ShareAcknowledgeRequest;
import io.kflux.protocol.message.ShareAcknowledgeResponse;
import io.kflux.protocol.message.ShareFetchRequest;
import io.kflux.protocol.message.ShareFetchResponse;
import reactor.core.publisher.Mono;

/**
 * Everything {@link ShareFetcher} asks of the network and metadata layers, behind one seam so that the share loop can
 * be driven by a scripted cluster in tests (virtual time, no sockets), as {@code io.kflux.fetch.FetchIo} is for the
 * fetch path. {@link NetworkShareIo} is the real one. Monos and {@link Connected} may signal on any thread; the
 * fetcher hops back onto its loop.
 */
interface ShareIo {

    /** The latest metadata snapshot. */
    Cluster cluster();

    /** A fresh metadata snapshot; fails when no broker answers. */
    Mono<Cluster> refreshMetadata();

    /**
     * What a request learns of its broker once the connection is ready, before the request goes: RENEW
     * (KIP-1222) needs ShareAcknowledge v2, and the fetcher renews locks only on brokers that offer it.
     */
    @FunctionalInterface
    interface Connected {
        /** @param version the highest ShareAcknowledge version the broker offers; -1 when it offers none */
        void acknowledgeVersion(short version);
    }

    /**
     * Sends a ShareFetch to {@code node}.
     *
     * @param connected told of the broker's ShareAcknowledge versions before the request goes (not when the
     *                  connection fails)
     * @return the answer, top-level and partition errors included (not raised); fails with the network layer's
     * exceptions ({@link io.kflux.network.UnsupportedVersionException} from a broker without ShareFetch v1). The
     * caller owns the answer's record buffers.
     */
    Mono<ShareFetchResponse> shareFetch(Node node, ShareFetchRequest request, Connected connected);

    /**
     * Sends a ShareAcknowledge to {@code node}.
     *
     * @param connected as for {@link #shareFetch}
     * @return the answer, errors included; fails with the network layer's exceptions, and with
     * {@link io.kflux.network.UnsupportedVersionException} without sending when the request renews locks
     * ({@code IsRenewAck}) and the broker has no ShareAcknowledge v2
     */
    Mono<ShareAcknowledgeResponse> shareAcknowledge(Node node, ShareAcknowledgeRequest request, Connected connected);
}
