package io.kflux.share;

import io.kflux.metadata.Cluster;
import io.kflux.metadata.MetadataManager;
import io.kflux.metadata.Node;
import io.kflux.network.BrokerConnection;
import io.kflux.network.NodeConnections;
import io.kflux.network.UnsupportedVersionException;
import io.kflux.protocol.ApiKey;
import io.kflux.protocol.ApiRequest;
import io.kflux.protocol.message.ShareAcknowledgeRequest;
import io.kflux.protocol.message.ShareAcknowledgeResponse;
import io.kflux.protocol.message.ShareFetchRequest;
import io.kflux.protocol.message.ShareFetchResponse;
import reactor.core.publisher.Mono;

/** {@link ShareIo} over the share consumer's {@link NodeConnections} and {@link MetadataManager}. */
final class NetworkShareIo implements ShareIo {
    private final NodeConnections connections;
    private final MetadataManager metadata;

    NetworkShareIo(NodeConnections connections, MetadataManager metadata) {
        this.connections = connections;
        this.metadata = metadata;
    }

    @Override
    public Cluster cluster() {
        return metadata.current();
    }

    @Override
    public Mono<Cluster> refreshMetadata() {
        return metadata.refresh();
    }

    @Override
    public Mono<ShareFetchResponse> shareFetch(Node node, ShareFetchRequest request, Connected connected) {
        return exchange(node, request, connected);
    }

    @Override
    public Mono<ShareAcknowledgeResponse> shareAcknowledge(Node node, ShareAcknowledgeRequest request,
                                                           Connected connected) {
        return exchange(node, request, connected);
    }

    private <R> Mono<R> exchange(Node node, ApiRequest<R> request, Connected connected) {
        return connections.connection(node.id(), node.host(), node.port())
                .flatMap(c -> {
                    short acknowledgeVersion = c.apiVersions().supports(ApiKey.SHARE_ACKNOWLEDGE)
                            ? c.apiVersions().max(ApiKey.SHARE_ACKNOWLEDGE) : -1;
                    connected.acknowledgeVersion(acknowledgeVersion);
                    return renewCheck(c, acknowledgeVersion, request).then(c.exchange(request));
                });
    }

    /**
     * RENEW (type 4) needs ShareAcknowledge v2 (KIP-1222): refuse it before sending to an older broker.
     *
     * @param acknowledgeVersion the broker's highest ShareAcknowledge version, -1 when it offers none
     */
    private static Mono<Void> renewCheck(BrokerConnection c, short acknowledgeVersion, ApiRequest<?> request) {
        if (request instanceof ShareAcknowledgeRequest a && a.isRenewAck() && acknowledgeVersion < 2) {
            return Mono.error(new UnsupportedVersionException("SHARE_ACKNOWLEDGE: RENEW needs v2 (KIP-1222, Kafka "
                    + "4.2+); the broker offers " + c.apiVersions(), ApiKey.SHARE_ACKNOWLEDGE));
        }
        return Mono.empty();
    }
}
