package io.kflux.internal;

import io.kflux.fetch.FetchConfig;
import io.kflux.fetch.OffsetResetStrategy;
import io.kflux.internal.config.AutoOffsetReset;
import io.kflux.internal.config.ConsumerConfig;
import io.kflux.internal.config.HostAndPort;
import io.kflux.network.ConnectionSecurity;
import io.kflux.network.NetworkOptions;
import java.net.InetSocketAddress;
import java.util.List;

/** The parsed configuration in the shapes the layers below take. */
record ClientSettings(List<InetSocketAddress> bootstrapServers, String clientId, String groupId,
                      OffsetResetStrategy autoOffsetReset, long autoOffsetResetDurationMs,
                      int defaultApiTimeoutMs, int requestTimeoutMs, long metadataMaxAgeMs, long retryBackoffMs,
                      long retryBackoffMaxMs, long reconnectBackoffMs, long reconnectBackoffMaxMs,
                      boolean allowAutoTopicCreation, boolean enableAutoCommit, int autoCommitIntervalMs,
                      FetchConfig fetch, NetworkOptions network) {

    /** What every log line of this consumer carries (client.id, group.id in the MDC). */
    io.kflux.util.LogContext logContext() {
        return new io.kflux.util.LogContext(clientId, groupId);
    }

    static ClientSettings from(ConsumerConfig c, long maxBufferedBytes, ConnectionSecurity security) {
        // Each valid alone in the official definitions, but a connection cannot work with them.
        if (c.requestTimeoutMs() <= 0) {
            throw new io.kflux.ConfigException("request.timeout.ms", c.requestTimeoutMs(), "a timeout > 0 ms");
        }
        if (c.socketConnectionSetupTimeoutMs() <= 0) {
            throw new io.kflux.ConfigException("socket.connection.setup.timeout.ms", c.socketConnectionSetupTimeoutMs(),
                    "a timeout > 0 ms");
        }
        try {
            return build(c, maxBufferedBytes, security);
        } catch (IllegalArgumentException e) {
            // Values each valid alone that the network layer refuses together (e.g. a zero timeout).
            throw new io.kflux.ConfigException("(network settings)", null, e.getMessage(), e);
        }
    }

    private static ClientSettings build(ConsumerConfig c, long maxBufferedBytes, ConnectionSecurity security) {
        List<InetSocketAddress> bootstrap = c.bootstrapServers().stream().map(HostAndPort::toUnresolvedAddress).toList();
        AutoOffsetReset reset = c.autoOffsetReset();
        OffsetResetStrategy strategy = switch (reset.strategy()) {
            case EARLIEST -> OffsetResetStrategy.EARLIEST;
            case LATEST -> OffsetResetStrategy.LATEST;
            case NONE -> OffsetResetStrategy.NONE;
            case BY_DURATION -> OffsetResetStrategy.BY_DURATION;
        };
        long durationMs = reset.duration() == null ? 0L : reset.duration().toMillis();
        FetchConfig fetch = new FetchConfig(c.fetchMaxWaitMs(), c.fetchMinBytes(), c.fetchMaxBytes(),
                c.maxPartitionFetchBytes(), c.isolationLevel().id(), c.clientRack(), maxBufferedBytes,
                c.retryBackoffMs(), c.checkCrcs(), c.metadataMaxAgeMs());
        String clientId = c.generateClientId();
        NetworkOptions network = NetworkOptions.defaults()
                .withClientId(clientId)
                .withRequestTimeoutMs(c.requestTimeoutMs())
                .withConnectionSetupTimeoutMs(c.socketConnectionSetupTimeoutMs())
                .withReconnectBackoff(c.reconnectBackoffMs(), Math.max(c.reconnectBackoffMs(), c.reconnectBackoffMaxMs()))
                .withConnectionSetupTimeoutMaxMs(Math.max(c.socketConnectionSetupTimeoutMs(),
                        c.socketConnectionSetupTimeoutMaxMs()))
                .withConnectionsMaxIdleMs(c.connectionsMaxIdleMs())
                .withDnsLookup(io.kflux.network.DnsLookup.fromConfig(c.clientDnsLookup()))
                .withSocketBuffers(c.sendBufferBytes(), c.receiveBufferBytes())
                .withSecurity(security);
        return new ClientSettings(bootstrap, clientId, c.groupId().orElse(null), strategy, durationMs,
                c.defaultApiTimeoutMs(), c.requestTimeoutMs(), c.metadataMaxAgeMs(), c.retryBackoffMs(),
                c.retryBackoffMaxMs(), c.reconnectBackoffMs(), c.reconnectBackoffMaxMs(), c.allowAutoCreateTopics(),
                c.enableAutoCommit(), c.autoCommitIntervalMs(), fetch, network);
    }
}
