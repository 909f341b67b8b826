package io.kflux.internal.config;

import static io.kflux.internal.config.ConsumerConfigDef.*;

import io.kflux.ConfigException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The validated, typed consumer configuration the internals read. Immutable. Built by
 * {@link #parse(Map)} from the user's properties (names, types and defaults of the official Java consumer,
 * see {@link ConsumerConfigDef}), including the official client's cross-property checks.
 *
 * <p>Times are in ms and sizes in bytes, as in the property names.
 *
 * <p><b>Why one class past 500 lines.</b> It is the typed view of one parsed property map: one small getter per
 * honoured key, each with its Javadoc (unit, range, meaning). New keys go through {@link #value(String, Class)}
 * instead of a getter, so it stops growing.
 */
public final class ConsumerConfig implements io.kflux.util.ConfigValues {

    /** Assignor names of the classic protocol that kflux implements, as sent in JoinGroup. */
    public static final List<String> BUILT_IN_ASSIGNORS = List.of("range", "roundrobin", "sticky", "cooperative-sticky");
    /** Prefix of generated client ids, as the official consumer's ({@code consumer-<group.id>-<n>}). */
    public static final String CLIENT_ID_PREFIX = "consumer-";

    /** Numbers generated client ids from 1 per JVM, as the official consumer's sequence does. */
    private static final AtomicInteger CLIENT_IDS = new AtomicInteger();
    private static final String OFFICIAL = "org.apache.kafka.clients.consumer.";

    static final Validator BOOTSTRAP_VALIDATOR = Validator.of(
        "a non-empty list of host:port entries (IPv6 hosts in brackets, port 1-65535)", v -> {
            parseBootstrap(asStrings(v));
            return true;
        });
    static final Validator ASSIGNOR_VALIDATOR = Validator.of(
        "a list of range, roundrobin, sticky, cooperative-sticky, the official client's assignor class names, "
        + "or names of loadable classes implementing the kflux assignor SPI", v -> {
            for (String s : asStrings(v)) {
                normalizeAssignor(s);
            }
            return true;
        });
    static final Validator AUTO_OFFSET_RESET_VALIDATOR = Validator.of(
        "one of earliest, latest, none, or by_duration:<non-negative ISO-8601 duration> such as by_duration:PT1H",
        v -> {
            AutoOffsetReset.parse((String) v);
            return true;
        });

    private final ConfigDef.Parsed parsed;
    private final Map<String, ?> originals;

    private final List<HostAndPort> bootstrapServers;
    private final String clientId;
    private final String clientRack;
    private final SecurityProtocol securityProtocol;
    private final String groupId;
    private final String groupInstanceId;
    private final GroupProtocol groupProtocol;
    private final String groupRemoteAssignor;
    private final boolean enableAutoCommit;
    private final List<String> assignors;
    private final AutoOffsetReset autoOffsetReset;
    private final IsolationLevel isolationLevel;
    private final JaasConfig jaasConfig;

    private ConsumerConfig(Map<String, ?> originals, ConfigDef.Parsed p) {
        this.originals = originals;
        this.parsed = p;
        this.bootstrapServers = parseBootstrap(p.get(BOOTSTRAP_SERVERS));
        this.clientId = p.get(CLIENT_ID);
        this.clientRack = p.get(CLIENT_RACK);
        this.securityProtocol = SecurityProtocol.valueOf(p.<String>get(SECURITY_PROTOCOL).toUpperCase(Locale.ROOT));
        this.groupId = p.get(GROUP_ID);
        this.groupInstanceId = p.get(GROUP_INSTANCE_ID);
        this.groupProtocol = GroupProtocol.valueOf(p.<String>get(GROUP_PROTOCOL).toUpperCase(Locale.ROOT));
        this.groupRemoteAssignor = p.get(GROUP_REMOTE_ASSIGNOR);
        List<String> names = new ArrayList<>();
        for (String s : p.<List<String>>get(PARTITION_ASSIGNMENT_STRATEGY)) {
            String n = normalizeAssignor(s);
            if (!names.contains(n)) {
                names.add(n);
            }
        }
        this.assignors = Collections.unmodifiableList(names);
        this.autoOffsetReset = AutoOffsetReset.parse(p.get(AUTO_OFFSET_RESET));
        this.isolationLevel = IsolationLevel.valueOf(p.<String>get(ISOLATION_LEVEL).toUpperCase(Locale.ROOT));

        // the checks below mirror what the official consumer enforces when it is constructed
        if (groupId != null && groupId.isBlank()) {
            throw new ConfigException(GROUP_ID, groupId, "a non-blank group id, or no group.id at all");
        }
        if (groupInstanceId != null && groupId == null) {
            // stricter than the official client, which silently ignores it: a static identity outside a group
            // does nothing, and the user almost certainly forgot group.id
            throw new ConfigException(GROUP_INSTANCE_ID, groupInstanceId,
                                      "to be set only together with group.id (static membership is group membership)");
        }
        boolean autoCommit = p.<Boolean>get(ENABLE_AUTO_COMMIT);
        if (groupId == null && autoCommit && p.explicit().contains(ENABLE_AUTO_COMMIT)) {
            throw new ConfigException(ENABLE_AUTO_COMMIT, true,
                                      "false when group.id is not set: offsets are committed to a group");
        }
        this.enableAutoCommit = groupId != null && autoCommit;
        if (groupProtocol == GroupProtocol.CONSUMER) {
            // session.timeout.ms stays allowed: KIP-848 does not tell the client the broker's session timeout, and the
            // member needs it to know when its partitions are lost without a word from the coordinator (issue #15).
            for (String k : List.of(PARTITION_ASSIGNMENT_STRATEGY, HEARTBEAT_INTERVAL_MS)) {
                if (p.explicit().contains(k)) {
                    throw new ConfigException(k, originals.get(k),
                                              "not to be set when group.protocol=consumer: the broker controls it (KIP-848)");
                }
            }
        } else {
            if (p.explicit().contains(GROUP_REMOTE_ASSIGNOR)) {
                throw new ConfigException(GROUP_REMOTE_ASSIGNOR, groupRemoteAssignor,
                                          "not to be set when group.protocol=classic; it needs group.protocol=consumer");
            }
            if (groupId != null) {
                if (heartbeatIntervalMs() >= sessionTimeoutMs()) {
                    throw new ConfigException(HEARTBEAT_INTERVAL_MS, heartbeatIntervalMs(),
                                              "a value lower than session.timeout.ms (" + sessionTimeoutMs() + ")");
                }
                if (assignors.isEmpty()) {
                    throw new ConfigException(PARTITION_ASSIGNMENT_STRATEGY, "",
                                              "at least one assignor when group.id is set");
                }
            }
        }
        // Which mechanism, and whether its JAAS options suffice, is checked with the mechanisms themselves
        // (io.kflux.internal.security), where programmatic token providers and plugged-in mechanisms are known.
        JaasConfig jaas = null;
        Password text = p.get(SASL_JAAS_CONFIG);
        if (securityProtocol.usesSasl() && text != null) {
            try {
                jaas = JaasConfig.parse(text.value());
            } catch (IllegalArgumentException e) {
                throw new ConfigException(SASL_JAAS_CONFIG, Password.HIDDEN, "a JAAS entry such as '<LoginModule class> "
                                          + "required name=\"value\" ...;'; " + e.getMessage());
            }
        }
        this.jaasConfig = jaas;
    }

    /**
     * Parses and validates user properties.
     *
     * @param props the user's properties (string or typed values)
     * @return the typed configuration
     * @throws ConfigException naming key, value and what is allowed, for any invalid or missing value or
     *                         contradicting pair of values
     */
    public static ConsumerConfig parse(Map<String, ?> props) {
        return new ConsumerConfig(Collections.unmodifiableMap(new java.util.LinkedHashMap<>(props)),
                                  ConsumerConfigDef.DEF.parse(props));
    }

    // ---------------------------------------------------------------- generic access

    /**
     * The properties as the user gave them (unparsed), including unknown ones.
     *
     * @return an unmodifiable map
     */
    public Map<String, ?> originals() {
        return originals;
    }

    /**
     * The typed value of any defined property (see {@link ConfigDef} for the Java types).
     *
     * @param name property name
     * @param <T>  expected Java type
     * @return the value, possibly {@code null}
     */
    public <T> T get(String name) {
        return parsed.get(name);
    }

    /**
     * The typed value of a property, checked against its definition: the way to read a property that needs no
     * parsing beyond its type, so that adding one takes its definition in {@link ConsumerConfigDef} and this call
     * where it is used (no getter here, no field in the settings records; see DESIGN.md "Adding a property").
     *
     * @param name     property name, e.g. {@link ConsumerConfigDef#CHECK_CRCS}
     * @param javaType the definition's Java type ({@link ConfigType#javaType()}), e.g. {@code Boolean.class}
     * @param <T>      the Java type
     * @return the value in effect (the default when not set), possibly {@code null} where the default is null
     * @throws IllegalArgumentException when no property of that name is defined, or it has another Java type
     */
    @Override
    public <T> T value(String name, Class<T> javaType) {
        ConfigKey key = ConsumerConfigDef.DEF.keys().get(name);
        if (key == null) {
            throw new IllegalArgumentException("no consumer property '" + name + "' is defined in ConsumerConfigDef");
        }
        if (!javaType.equals(key.type().javaType())) {
            throw new IllegalArgumentException("'" + name + "' is of type " + key.type().docName() + " ("
                    + key.type().javaType().getSimpleName() + "), not " + javaType.getSimpleName());
        }
        return javaType.cast(parsed.get(name));
    }

    /**
     * Whether the user set this property (to a non-null value) rather than leaving the default.
     *
     * @param name property name
     * @return {@code true} when explicitly set
     */
    public boolean isSet(String name) {
        return parsed.explicit().contains(name);
    }

    // ---------------------------------------------------------------- connection

    /**
     * {@code bootstrap.servers}, blanks dropped, order kept.
     *
     * @return a non-empty unmodifiable list
     */
    public List<HostAndPort> bootstrapServers() {
        return bootstrapServers;
    }

    /**
     * {@code client.id} as configured.
     *
     * @return the client id, empty when not set (see {@link #generateClientId()})
     */
    public String clientId() {
        return clientId;
    }

    /**
     * The {@code client.id} of a new consumer: the configured one, or when not set a fresh
     * {@code consumer-<group.id>-<n>} ({@code consumer-<n>} without a group), n counting from 1 per JVM, as the
     * official consumer names itself; so two consumers made from one configuration never share a generated id
     * (their meters would collide).
     *
     * @return a non-empty client id
     */
    public String generateClientId() {
        if (!clientId.isEmpty()) {
            return clientId;
        }
        String group = groupId == null || groupId.isEmpty() ? "" : groupId + "-";
        return CLIENT_ID_PREFIX + group + CLIENT_IDS.incrementAndGet();
    }

    /**
     * {@code client.rack} (KIP-392).
     *
     * @return the rack, {@code ""} when not set
     */
    public String clientRack() {
        return clientRack;
    }

    /**
     * {@code request.timeout.ms}.
     *
     * @return ms, {@code >= 0}
     */
    public int requestTimeoutMs() {
        return parsed.<Integer>get(REQUEST_TIMEOUT_MS);
    }

    /**
     * {@code default.api.timeout.ms}.
     *
     * @return ms, {@code >= 0}
     */
    public int defaultApiTimeoutMs() {
        return parsed.<Integer>get(DEFAULT_API_TIMEOUT_MS);
    }

    /**
     * {@code retry.backoff.ms}: first retry delay.
     *
     * @return ms, {@code >= 0}
     */
    public long retryBackoffMs() {
        return parsed.<Long>get(RETRY_BACKOFF_MS);
    }

    /**
     * {@code retry.backoff.max.ms}: cap of the growing retry delay. May be below {@link #retryBackoffMs()}; the
     * official client then uses {@code retry.backoff.ms} as a fixed delay, and so should the caller.
     *
     * @return ms, {@code >= 0}
     */
    public long retryBackoffMaxMs() {
        return parsed.<Long>get(RETRY_BACKOFF_MAX_MS);
    }

    /**
     * {@code reconnect.backoff.ms}: first reconnect delay.
     *
     * @return ms, {@code >= 0}
     */
    public long reconnectBackoffMs() {
        return parsed.<Long>get(RECONNECT_BACKOFF_MS);
    }

    /**
     * {@code reconnect.backoff.max.ms}: cap of the growing reconnect delay (same rule as {@link #retryBackoffMaxMs()}).
     *
     * @return ms, {@code >= 0}
     */
    public long reconnectBackoffMaxMs() {
        return parsed.<Long>get(RECONNECT_BACKOFF_MAX_MS);
    }

    /**
     * {@code socket.connection.setup.timeout.ms}.
     *
     * @return ms, {@code >= 0}
     */
    public long socketConnectionSetupTimeoutMs() {
        return parsed.<Long>get(SOCKET_CONNECTION_SETUP_TIMEOUT_MS);
    }

    /**
     * {@code socket.connection.setup.timeout.max.ms}.
     *
     * @return ms, {@code >= 0}
     */
    public long socketConnectionSetupTimeoutMaxMs() {
        return parsed.<Long>get(SOCKET_CONNECTION_SETUP_TIMEOUT_MAX_MS);
    }

    /**
     * {@code client.dns.lookup}.
     *
     * @return {@code use_all_dns_ips} or {@code resolve_canonical_bootstrap_servers_only}
     */
    public String clientDnsLookup() {
        return parsed.<String>get(CLIENT_DNS_LOOKUP);
    }

    /**
     * {@code connections.max.idle.ms}.
     *
     * @return ms; negative means idle connections are never closed
     */
    public long connectionsMaxIdleMs() {
        return parsed.<Long>get(CONNECTIONS_MAX_IDLE_MS);
    }

    /**
     * {@code metadata.max.age.ms}.
     *
     * @return ms, {@code >= 0}
     */
    public long metadataMaxAgeMs() {
        return parsed.<Long>get(METADATA_MAX_AGE_MS);
    }

    /**
     * {@code receive.buffer.bytes}.
     *
     * @return bytes; -1 means the OS default
     */
    public int receiveBufferBytes() {
        return parsed.<Integer>get(RECEIVE_BUFFER_BYTES);
    }

    /**
     * {@code send.buffer.bytes}.
     *
     * @return bytes; -1 means the OS default
     */
    public int sendBufferBytes() {
        return parsed.<Integer>get(SEND_BUFFER_BYTES);
    }

    // ---------------------------------------------------------------- group

    /**
     * {@code group.id}.
     *
     * @return the group, empty when consuming without a group (manual assignment, no commits)
     */
    public Optional<String> groupId() {
        return Optional.ofNullable(groupId);
    }

    /**
     * {@code group.instance.id} (KIP-345).
     *
     * @return the static identity, empty for dynamic membership
     */
    public Optional<String> groupInstanceId() {
        return Optional.ofNullable(groupInstanceId);
    }

    /**
     * {@code group.protocol}.
     *
     * @return CLASSIC or CONSUMER
     */
    public GroupProtocol groupProtocol() {
        return groupProtocol;
    }

    /**
     * {@code group.remote.assignor} (only with {@link GroupProtocol#CONSUMER}).
     *
     * @return the broker-side assignor name, empty to let the broker choose
     */
    public Optional<String> groupRemoteAssignor() {
        return Optional.ofNullable(groupRemoteAssignor);
    }

    /**
     * {@code session.timeout.ms}: sent in JoinGroup (classic protocol); under both protocols how long the member goes
     * without an answer from its coordinator before it treats its partitions as lost (with {@code group.protocol=consumer}
     * the broker's group session timeout, which KIP-848 does not send to the client).
     *
     * @return ms, {@code >= 1}, greater than {@link #heartbeatIntervalMs()} when a group is used
     */
    public int sessionTimeoutMs() {
        return parsed.<Integer>get(SESSION_TIMEOUT_MS);
    }

    /**
     * {@code heartbeat.interval.ms} (classic protocol).
     *
     * @return ms, {@code >= 1}
     */
    public int heartbeatIntervalMs() {
        return parsed.<Integer>get(HEARTBEAT_INTERVAL_MS);
    }

    /**
     * {@code max.poll.records}: the most records one batch of {@code receiveBatches()} holds.
     *
     * @return records, {@code >= 1}
     */
    public int maxPollRecords() {
        return parsed.<Integer>get(MAX_POLL_RECORDS);
    }

    /**
     * {@code max.poll.interval.ms}: also sent as the rebalance timeout in JoinGroup.
     *
     * @return ms, {@code >= 1}
     */
    public int maxPollIntervalMs() {
        return parsed.<Integer>get(MAX_POLL_INTERVAL_MS);
    }

    /**
     * {@code partition.assignment.strategy}, normalised: built-in assignors by their protocol name
     * ({@link #BUILT_IN_ASSIGNORS}; the official class names are mapped to them), anything else is a class name
     * that was loadable when parsed. Duplicates removed, preference order kept.
     *
     * @return an unmodifiable list, non-empty when a group is used with the classic protocol
     */
    public List<String> partitionAssignmentStrategies() {
        return assignors;
    }

    // ---------------------------------------------------------------- offsets

    /**
     * {@code auto.offset.reset}.
     *
     * @return the reset policy
     */
    public AutoOffsetReset autoOffsetReset() {
        return autoOffsetReset;
    }

    /**
     * {@code enable.auto.commit}, effective value: {@code false} when there is no group.id (the official client
     * disables it then unless set explicitly, which is an error).
     *
     * @return whether acknowledged offsets are committed automatically
     */
    public boolean enableAutoCommit() {
        return enableAutoCommit;
    }

    /**
     * {@code auto.commit.interval.ms}.
     *
     * @return ms, {@code >= 0}
     */
    public int autoCommitIntervalMs() {
        return parsed.<Integer>get(AUTO_COMMIT_INTERVAL_MS);
    }

    // ---------------------------------------------------------------- fetching

    /**
     * {@code isolation.level}.
     *
     * @return READ_UNCOMMITTED or READ_COMMITTED
     */
    public IsolationLevel isolationLevel() {
        return isolationLevel;
    }

    /**
     * {@code fetch.min.bytes}.
     *
     * @return bytes, {@code >= 0}
     */
    public int fetchMinBytes() {
        return parsed.<Integer>get(FETCH_MIN_BYTES);
    }

    /**
     * {@code fetch.max.bytes}.
     *
     * @return bytes, {@code >= 0}
     */
    public int fetchMaxBytes() {
        return parsed.<Integer>get(FETCH_MAX_BYTES);
    }

    /**
     * {@code fetch.max.wait.ms}.
     *
     * @return ms, {@code >= 0}
     */
    public int fetchMaxWaitMs() {
        return parsed.<Integer>get(FETCH_MAX_WAIT_MS);
    }

    /**
     * {@code max.partition.fetch.bytes}.
     *
     * @return bytes, {@code >= 0}
     */
    public int maxPartitionFetchBytes() {
        return parsed.<Integer>get(MAX_PARTITION_FETCH_BYTES);
    }

    /**
     * {@code check.crcs}.
     *
     * @return whether batch CRC32C values are verified
     */
    public boolean checkCrcs() {
        return parsed.<Boolean>get(CHECK_CRCS);
    }

    /**
     * {@code enable.metrics.push}.
     *
     * @return whether client telemetry (KIP-714) is pushed when the cluster subscribes to it
     */
    public boolean metricsPush() {
        return parsed.<Boolean>get(ENABLE_METRICS_PUSH);
    }

    /**
     * {@code allow.auto.create.topics}: the AllowAutoTopicCreation flag of Metadata requests.
     *
     * @return the flag
     */
    public boolean allowAutoCreateTopics() {
        return parsed.<Boolean>get(ALLOW_AUTO_CREATE_TOPICS);
    }

    /**
     * {@code exclude.internal.topics}.
     *
     * @return whether pattern subscriptions skip internal topics
     */
    public boolean excludeInternalTopics() {
        return parsed.<Boolean>get(EXCLUDE_INTERNAL_TOPICS);
    }

    // ---------------------------------------------------------------- security

    /**
     * {@code security.protocol}.
     *
     * @return the protocol
     */
    public SecurityProtocol securityProtocol() {
        return securityProtocol;
    }

    /**
     * {@code sasl.mechanism}, upper-cased. Only meaningful when {@link SecurityProtocol#usesSasl()}.
     *
     * @return the mechanism name
     */
    public String saslMechanism() {
        return parsed.<String>get(SASL_MECHANISM).toUpperCase(Locale.ROOT);
    }

    /**
     * The parsed {@code sasl.jaas.config}, present when it is set and {@link SecurityProtocol#usesSasl()}.
     *
     * @return the login module entry
     */
    public Optional<JaasConfig> saslJaasConfig() {
        return Optional.ofNullable(jaasConfig);
    }

    /**
     * {@code ssl.protocol}.
     *
     * @return e.g. {@code TLSv1.3}
     */
    public String sslProtocol() {
        return parsed.get(SSL_PROTOCOL);
    }

    /**
     * {@code ssl.enabled.protocols}.
     *
     * @return an unmodifiable list, possibly empty
     */
    public List<String> sslEnabledProtocols() {
        List<String> l = parsed.get(SSL_ENABLED_PROTOCOLS);
        return l == null ? List.of() : l;
    }

    /**
     * {@code ssl.cipher.suites}.
     *
     * @return the suites, empty to keep the JVM defaults
     */
    public List<String> sslCipherSuites() {
        List<String> l = parsed.get(SSL_CIPHER_SUITES);
        return l == null ? List.of() : l;
    }

    /**
     * {@code ssl.provider}.
     *
     * @return the provider name, empty for the JVM default
     */
    public Optional<String> sslProvider() {
        return Optional.ofNullable(parsed.get(SSL_PROVIDER));
    }

    /**
     * {@code ssl.truststore.location}.
     *
     * @return a file path, empty for the JVM default trust store
     */
    public Optional<String> sslTruststoreLocation() {
        return Optional.ofNullable(parsed.get(SSL_TRUSTSTORE_LOCATION));
    }

    /**
     * {@code ssl.truststore.password}.
     *
     * @return the password, empty when not set
     */
    public Optional<Password> sslTruststorePassword() {
        return Optional.ofNullable(parsed.get(SSL_TRUSTSTORE_PASSWORD));
    }

    /**
     * {@code ssl.truststore.type}.
     *
     * @return e.g. {@code JKS} or {@code PKCS12}
     */
    public String sslTruststoreType() {
        return parsed.get(SSL_TRUSTSTORE_TYPE);
    }

    /**
     * {@code ssl.keystore.location}.
     *
     * @return a file path, empty when no client certificate is used
     */
    public Optional<String> sslKeystoreLocation() {
        return Optional.ofNullable(parsed.get(SSL_KEYSTORE_LOCATION));
    }

    /**
     * {@code ssl.keystore.password}.
     *
     * @return the password, empty when not set
     */
    public Optional<Password> sslKeystorePassword() {
        return Optional.ofNullable(parsed.get(SSL_KEYSTORE_PASSWORD));
    }

    /**
     * {@code ssl.keystore.type}.
     *
     * @return e.g. {@code JKS} or {@code PKCS12}
     */
    public String sslKeystoreType() {
        return parsed.get(SSL_KEYSTORE_TYPE);
    }

    /**
     * {@code ssl.key.password}.
     *
     * @return the password, empty when the key store password is to be used
     */
    public Optional<Password> sslKeyPassword() {
        return Optional.ofNullable(parsed.get(SSL_KEY_PASSWORD));
    }

    /**
     * {@code ssl.keymanager.algorithm}.
     *
     * @return e.g. {@code SunX509}
     */
    public String sslKeymanagerAlgorithm() {
        return parsed.get(SSL_KEYMANAGER_ALGORITHM);
    }

    /**
     * {@code ssl.trustmanager.algorithm}.
     *
     * @return e.g. {@code PKIX}
     */
    public String sslTrustmanagerAlgorithm() {
        return parsed.get(SSL_TRUSTMANAGER_ALGORITHM);
    }

    /**
     * {@code ssl.endpoint.identification.algorithm}.
     *
     * @return {@code https} (check host names) or {@code ""} (no check); {@code null} is returned as {@code ""}
     */
    public String sslEndpointIdentificationAlgorithm() {
        String s = parsed.get(SSL_ENDPOINT_IDENTIFICATION_ALGORITHM);
        return s == null ? "" : s;
    }

    /**
     * {@code ssl.secure.random.implementation}.
     *
     * @return the SecureRandom algorithm, empty for the JVM default
     */
    public Optional<String> sslSecureRandomImplementation() {
        return Optional.ofNullable(parsed.get(SSL_SECURE_RANDOM_IMPLEMENTATION));
    }

    /**
     * The user's properties with password values masked, for logs.
     *
     * @return e.g. {@code ConsumerConfig{bootstrap.servers=..., sasl.jaas.config=[hidden]}}
     */
    @Override
    public String toString() {
        return "ConsumerConfig" + masked(originals);
    }

    /**
     * A copy of user properties with the values of password properties replaced by {@value Password#HIDDEN}.
     *
     * @param props user properties
     * @return a masked copy, in iteration order
     */
    public static Map<String, Object> masked(Map<String, ?> props) {
        Map<String, Object> out = new java.util.LinkedHashMap<>();
        props.forEach((k, v) -> {
            ConfigKey key = ConsumerConfigDef.DEF.keys().get(k);
            out.put(k, key != null && key.type() == ConfigType.PASSWORD && v != null ? Password.HIDDEN : v);
        });
        return out;
    }

    // ---------------------------------------------------------------- helpers

    @SuppressWarnings("unchecked")
    private static List<String> asStrings(Object v) {
        return (List<String>) v;
    }

    /**
     * Parses {@code bootstrap.servers} entries: {@code host:port}, {@code [ipv6]:port}, optionally prefixed by a
     * listener scheme such as {@code SASL_SSL://} (which the official client also tolerates); blank entries are
     * skipped.
     *
     * @param entries the list value
     * @return the addresses
     * @throws IllegalArgumentException when an entry is malformed or nothing is left
     */
    static List<HostAndPort> parseBootstrap(List<String> entries) {
        List<HostAndPort> out = new ArrayList<>();
        for (String raw : entries) {
            String s = raw.trim();
            if (s.isEmpty()) {
                continue;
            }
            int scheme = s.indexOf("://");
            if (scheme >= 0) {
                s = s.substring(scheme + 3);
            }
            String host;
            String port;
            if (s.startsWith("[")) {
                int close = s.indexOf(']');
                if (close < 0 || close + 1 >= s.length() || s.charAt(close + 1) != ':') {
                    throw new IllegalArgumentException("bad entry " + raw);
                }
                host = s.substring(1, close);
                port = s.substring(close + 2);
            } else {
                int colon = s.lastIndexOf(':');
                if (colon <= 0) {
                    throw new IllegalArgumentException("bad entry " + raw);
                }
                host = s.substring(0, colon);
                port = s.substring(colon + 1);
            }
            if (host.isEmpty() || !host.matches("[0-9A-Za-z._%:\\-]+")) {
                throw new IllegalArgumentException("bad host in " + raw);
            }
            int p = Integer.parseInt(port);
            if (p < 1 || p > 65535) {
                throw new IllegalArgumentException("bad port in " + raw);
            }
            out.add(new HostAndPort(host, p));
        }
        if (out.isEmpty()) {
            throw new IllegalArgumentException("no bootstrap server");
        }
        return Collections.unmodifiableList(out);
    }

    /**
     * Maps an assignor entry to its protocol name when it is a built-in (short name in any case, or the official
     * client's class name), otherwise checks that it names a loadable class and returns it unchanged.
     *
     * @param entry one {@code partition.assignment.strategy} entry
     * @return the protocol name or the class name
     * @throws IllegalArgumentException when it is neither
     */
    public static String normalizeAssignor(String entry) {
        String lower = entry.toLowerCase(Locale.ROOT);
        if (BUILT_IN_ASSIGNORS.contains(lower)) {
            return lower;
        }
        switch (entry) {
            case OFFICIAL + "RangeAssignor": return "range";
            case OFFICIAL + "RoundRobinAssignor": return "roundrobin";
            case OFFICIAL + "StickyAssignor": return "sticky";
            case OFFICIAL + "CooperativeStickyAssignor": return "cooperative-sticky";
            default:
                break;
        }
        if (entry.isEmpty()) {
            throw new IllegalArgumentException("empty assignor name");
        }
        try {
            ClassLoader cl = Thread.currentThread().getContextClassLoader();
            Class.forName(entry, false, cl != null ? cl : ConsumerConfig.class.getClassLoader());
        } catch (ClassNotFoundException | LinkageError e) {
            throw new IllegalArgumentException("assignor class not found: " + entry, e);
        }
        return entry;
    }
}
