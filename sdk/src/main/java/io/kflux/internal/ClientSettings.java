package io.kflux.internal;

import io.kflux.fetch.FetchConfig;
import io.kflux.fetch.OffsetResetStrategy;
import io.kflux.group.ConsumerGroupConfig;
import io.kflux.group.GroupConfig;
import io.kflux.group.assignor.Assignors;
import io.kflux.internal.config.AutoOffsetReset;
import io.kflux.internal.config.ConsumerConfig;
import io.kflux.internal.config.HostAndPort;
import io.kflux.network.ConnectionSecurity;
import io.kflux.network.DnsLookup;
import io.kflux.network.NetworkOptions;
import io.kflux.protocol.consumer.ConsumerProtocolSubscription;
import io.kflux.util.LogContext;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The one place that turns the parsed configuration into the settings of every layer: the network layer's
 * {@link NetworkOptions}, the fetcher's {@link FetchConfig}, the group members' {@link GroupConfig} (classic) and
 * {@link ConsumerGroupConfig} (KIP-848), and the values the consumer reads itself (timeouts, backoffs, commits).
 *
 * <p>Nothing here has a default or a range check of its own: both come from the property definitions
 * ({@code internal.config.ConsumerConfigDef}), so a bad value fails when the properties are parsed, with a
 * {@link io.kflux.ConfigException} naming the property. What this class adds is shape only: enums, resolved
 * host names, the official client's "a max below its base means a fixed value" rule, the generated
 * {@code client.id}. A property that needs no shaping is read where it takes effect through
 * {@link ConsumerConfig#value} (or {@code NetworkOptions.config()} below {@code internal}) and never passes here
 * (DESIGN.md, "Adding a property").
 */
public final class ClientSettings {
    private final ConsumerConfig config;
    private final String clientId;
    private final List<InetSocketAddress> bootstrapServers;
    private final OffsetResetStrategy autoOffsetReset;
    private final long autoOffsetResetDurationMs;
    private final FetchConfig fetch;
    private final NetworkOptions network;

    private ClientSettings(ConsumerConfig c, long maxBufferedBytes, ConnectionSecurity security) {
        this.config = c;
        this.clientId = c.generateClientId();
        this.bootstrapServers = c.bootstrapServers().stream().map(HostAndPort::toUnresolvedAddress).toList();
        AutoOffsetReset reset = c.autoOffsetReset();
        this.autoOffsetReset = switch (reset.strategy()) {
            case EARLIEST -> OffsetResetStrategy.EARLIEST;
            case LATEST -> OffsetResetStrategy.LATEST;
            case NONE -> OffsetResetStrategy.NONE;
            case BY_DURATION -> OffsetResetStrategy.BY_DURATION;
        };
        this.autoOffsetResetDurationMs = reset.duration() == null ? 0L : reset.duration().toMillis();
        this.fetch = new FetchConfig(
                c.fetchMaxWaitMs(),
                c.fetchMinBytes(),
                c.fetchMaxBytes(),
                c.maxPartitionFetchBytes(),
                c.isolationLevel().id(),
                c.clientRack(),
                maxBufferedBytes,
                c.retryBackoffMs(),
                c.checkCrcs(),
                c.metadataMaxAgeMs());
        this.network = new NetworkOptions(
                clientId,
                c.requestTimeoutMs(),
                c.socketConnectionSetupTimeoutMs(),
                c.reconnectBackoffMs(),
                // a max below the base means a fixed backoff / timeout, as in the official client
                Math.max(c.reconnectBackoffMs(), c.reconnectBackoffMaxMs()),
                NetworkOptions.DEFAULT_MAX_FRAME_BYTES,
                c.sendBufferBytes(),
                c.receiveBufferBytes(),
                NetworkOptions.SOFTWARE_NAME,
                NetworkOptions.SOFTWARE_VERSION,
                security,
                Math.max(c.socketConnectionSetupTimeoutMs(), c.socketConnectionSetupTimeoutMaxMs()),
                c.connectionsMaxIdleMs(),
                DnsLookup.fromConfig(c.clientDnsLookup()),
                c);
    }

    /**
     * The settings of a consumer.
     *
     * @param config           the parsed, validated configuration
     * @param maxBufferedBytes the bound on fetched-but-not-emitted bytes ({@code ConsumerOptions.maxBufferedBytes()})
     * @param security         TLS and SASL of every connection, as {@code internal.security.ConnectionSecurities} made it
     * @return the settings; a fresh {@code client.id} is generated when none is configured
     */
    public static ClientSettings from(ConsumerConfig config, long maxBufferedBytes, ConnectionSecurity security) {
        return new ClientSettings(Objects.requireNonNull(config, "config"), maxBufferedBytes,
                Objects.requireNonNull(security, "security"));
    }

    /**
     * The settings of plain-text properties, buffering twice {@code fetch.max.bytes}: for tests and tools that drive a
     * layer on its own with the settings a consumer would give it.
     *
     * @param properties consumer properties ({@code bootstrap.servers} required)
     * @return the settings
     * @throws io.kflux.ConfigException as {@link ConsumerConfig#parse}
     */
    public static ClientSettings of(Map<String, ?> properties) {
        ConsumerConfig c = ConsumerConfig.parse(properties);
        return from(c, Math.max(1L, 2L * c.fetchMaxBytes()), ConnectionSecurity.PLAINTEXT);
    }

    /** The parsed configuration these settings were made from. */
    public ConsumerConfig config() {
        return config;
    }

    /** The network layer's settings, with this consumer's {@code client.id}. */
    public NetworkOptions network() {
        return network;
    }

    /** The fetcher's settings. */
    public FetchConfig fetch() {
        return fetch;
    }

    /**
     * The classic group member's settings ({@code group.protocol=classic}); the assignors are loaded with the context
     * class loader, as the official client loads {@code partition.assignment.strategy} classes.
     *
     * @throws IllegalStateException without a {@code group.id}
     */
    public GroupConfig classicGroup() {
        ConsumerConfig c = config;
        return new GroupConfig(
                requiredGroupId(),
                c.groupInstanceId().orElse(null),
                c.sessionTimeoutMs(),
                c.heartbeatIntervalMs(),
                c.maxPollIntervalMs(),
                c.retryBackoffMs(),
                c.retryBackoffMaxMs(),
                c.requestTimeoutMs(),
                c.clientRack(),
                c.excludeInternalTopics(),
                ConsumerProtocolSubscription.PROTOCOL_TYPE,
                Assignors.forNames(c.partitionAssignmentStrategies(), Thread.currentThread().getContextClassLoader()));
    }

    /**
     * The KIP-848 group member's settings ({@code group.protocol=consumer}); the rebalance timeout is
     * {@code max.poll.interval.ms}, as in the official client.
     *
     * @throws IllegalStateException without a {@code group.id}
     */
    public ConsumerGroupConfig consumerGroup() {
        ConsumerConfig c = config;
        return new ConsumerGroupConfig(
                requiredGroupId(),
                c.groupInstanceId().orElse(null),
                c.clientRack(),
                c.groupRemoteAssignor().orElse(null),
                c.maxPollIntervalMs(),
                c.retryBackoffMs(),
                c.retryBackoffMaxMs(),
                c.requestTimeoutMs(),
                c.sessionTimeoutMs());
    }

    private String requiredGroupId() {
        return config.groupId().orElseThrow(() -> new IllegalStateException("no group.id: no group settings"));
    }

    /** What every log line of this consumer carries (client.id, group.id in the MDC). */
    public LogContext logContext() {
        return new LogContext(clientId, groupId());
    }

    /** {@code client.id}, generated as {@code consumer-<group.id>-<n>} when not configured. */
    public String clientId() {
        return clientId;
    }

    /** {@code group.id}, or null without a group. */
    public String groupId() {
        return config.groupId().orElse(null);
    }

    /** {@code bootstrap.servers} as unresolved addresses (resolved at each connect by the network layer). */
    public List<InetSocketAddress> bootstrapServers() {
        return bootstrapServers;
    }

    /** {@code auto.offset.reset}'s strategy. */
    public OffsetResetStrategy autoOffsetReset() {
        return autoOffsetReset;
    }

    /** The duration of {@code auto.offset.reset=by_duration:...}, in ms; 0 for the other strategies. */
    public long autoOffsetResetDurationMs() {
        return autoOffsetResetDurationMs;
    }

    /** {@code default.api.timeout.ms}. */
    public int defaultApiTimeoutMs() {
        return config.defaultApiTimeoutMs();
    }

    /** {@code request.timeout.ms}. */
    public int requestTimeoutMs() {
        return config.requestTimeoutMs();
    }

    /** {@code metadata.max.age.ms}. */
    public long metadataMaxAgeMs() {
        return config.metadataMaxAgeMs();
    }

    /** {@code retry.backoff.ms}. */
    public long retryBackoffMs() {
        return config.retryBackoffMs();
    }

    /** {@code retry.backoff.max.ms}. */
    public long retryBackoffMaxMs() {
        return config.retryBackoffMaxMs();
    }

    /** {@code reconnect.backoff.ms}. */
    public long reconnectBackoffMs() {
        return config.reconnectBackoffMs();
    }

    /** {@code reconnect.backoff.max.ms}. */
    public long reconnectBackoffMaxMs() {
        return config.reconnectBackoffMaxMs();
    }

    /** {@code allow.auto.create.topics}. */
    public boolean allowAutoTopicCreation() {
        return config.allowAutoCreateTopics();
    }

    /** {@code enable.auto.commit} in effect (false without a group). */
    public boolean enableAutoCommit() {
        return config.enableAutoCommit();
    }

    /** {@code auto.commit.interval.ms}. */
    public int autoCommitIntervalMs() {
        return config.autoCommitIntervalMs();
    }
}
