package io.kflux.network;

import java.util.Objects;
import java.util.regex.Pattern;

/**
 * Settings of the network layer, named after the official client's configs.
 *
 * @param clientId               {@code client.id}: sent in every request header; may be empty, not null
 * @param requestTimeoutMs       {@code request.timeout.ms}: how long a written request may wait for its
 *                               response before it fails with {@link RequestTimeoutException}; &gt; 0
 * @param connectionSetupTimeoutMs {@code socket.connection.setup.timeout.ms}: how long a TCP connect may
 *                               take; &gt; 0 and at most {@link Integer#MAX_VALUE}
 * @param reconnectBackoffMs     {@code reconnect.backoff.ms}: the delay before reconnecting to a node after
 *                               one failed attempt or a dropped connection; &gt;= 0 (0 disables backoff)
 * @param reconnectBackoffMaxMs  {@code reconnect.backoff.max.ms}: the cap of the exponential backoff over
 *                               consecutive failures; &gt;= reconnectBackoffMs
 * @param maxFrameBytes          the largest response frame accepted (size prefix excluded), in bytes;
 *                               larger ones fail with {@link FrameTooLargeException}; &gt; 0
 * @param sendBufferBytes        {@code send.buffer.bytes}: SO_SNDBUF, or -1 for the OS default
 * @param receiveBufferBytes     {@code receive.buffer.bytes}: SO_RCVBUF, or -1 for the OS default
 * @param clientSoftwareName     sent in ApiVersions v3+ (KIP-511); letters, digits, '.' and '-'
 * @param clientSoftwareVersion  sent in ApiVersions v3+ (KIP-511); letters, digits, '.' and '-'
 * @param security               TLS and SASL of every connection ({@code security.protocol} and the
 *                               {@code ssl.*} / {@code sasl.*} keys); not null
 * @param connectionSetupTimeoutMaxMs {@code socket.connection.setup.timeout.max.ms}: the setup timeout doubles
 *                               per consecutive failed connect to a destination, from
 *                               {@code connectionSetupTimeoutMs} up to this (+/-20% jitter; KIP-601); a value
 *                               below {@code connectionSetupTimeoutMs} means a fixed timeout
 * @param connectionsMaxIdleMs   {@code connections.max.idle.ms}: a connection with nothing read, written or in
 *                               flight for this long is closed (reopened on next use, without backoff);
 *                               negative keeps connections open
 * @param dnsLookup              {@code client.dns.lookup}; not null
 * @param config                 the parsed configuration, for the properties this layer reads by name
 *                               ({@code config.value(name, type)}, DESIGN.md "Adding a property"); not null
 * <p>All of it is built in one place, {@code internal.ClientSettings}, from the configuration: defaults and the
 * checks that name a property live in the property definitions, not here.
 * <p>The canonical constructor throws {@code IllegalArgumentException} when a value is out of range.
 */
public record NetworkOptions(String clientId, long requestTimeoutMs, long connectionSetupTimeoutMs,
                             long reconnectBackoffMs, long reconnectBackoffMaxMs, int maxFrameBytes,
                             int sendBufferBytes, int receiveBufferBytes, String clientSoftwareName,
                             String clientSoftwareVersion, ConnectionSecurity security,
                             long connectionSetupTimeoutMaxMs, long connectionsMaxIdleMs, DnsLookup dnsLookup,
                             io.kflux.util.ConfigValues config) {

    /**
     * 128 MiB: well above {@code fetch.max.bytes} (50 MiB by default) plus response overhead, while
     * still refusing the absurd sizes that a non-Kafka peer (e.g. a TLS or HTTP server) produces.
     */
    public static final int DEFAULT_MAX_FRAME_BYTES = 128 * 1024 * 1024;
    // The broker's own check for KIP-511 names (an invalid one gets INVALID_REQUEST). Before SOFTWARE_VERSION,
    // whose initialiser uses it.
    private static final Pattern SOFTWARE_PATTERN = Pattern.compile("[a-zA-Z0-9](?:[a-zA-Z0-9\\-.]*[a-zA-Z0-9])?");
    /** The software name kflux reports to brokers. */
    public static final String SOFTWARE_NAME = "kflux";
    /**
     * The software version kflux reports (KIP-511's client software version, the {@code kafka.version} meter tag):
     * the project version the build wrote into {@value #VERSION_RESOURCE}, the same from the jar and from
     * {@code target/classes}; "dev" only when that resource is missing or was not filtered (an IDE's own build).
     */
    public static final String SOFTWARE_VERSION = softwareVersion();

    public NetworkOptions {
        Objects.requireNonNull(clientId, "clientId");
        Objects.requireNonNull(security, "security");
        Objects.requireNonNull(dnsLookup, "dnsLookup");
        Objects.requireNonNull(config, "config");
        if (clientId.length() > Short.MAX_VALUE) {
            throw new IllegalArgumentException("clientId is longer than " + Short.MAX_VALUE);
        }
        if (requestTimeoutMs <= 0) {
            throw new IllegalArgumentException("requestTimeoutMs must be > 0: " + requestTimeoutMs);
        }
        if (connectionSetupTimeoutMs <= 0 || connectionSetupTimeoutMs > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("connectionSetupTimeoutMs must be in 1.." + Integer.MAX_VALUE
                    + ": " + connectionSetupTimeoutMs);
        }
        if (reconnectBackoffMs < 0 || reconnectBackoffMaxMs < reconnectBackoffMs) {
            throw new IllegalArgumentException("need 0 <= reconnectBackoffMs <= reconnectBackoffMaxMs: "
                    + reconnectBackoffMs + ", " + reconnectBackoffMaxMs);
        }
        if (maxFrameBytes <= 0 || maxFrameBytes > Integer.MAX_VALUE - 4) {
            throw new IllegalArgumentException("maxFrameBytes must be in 1.." + (Integer.MAX_VALUE - 4) + ": "
                    + maxFrameBytes);
        }
        if (sendBufferBytes == 0 || sendBufferBytes < -1) {
            throw new IllegalArgumentException("sendBufferBytes must be -1 or > 0: " + sendBufferBytes);
        }
        if (receiveBufferBytes == 0 || receiveBufferBytes < -1) {
            throw new IllegalArgumentException("receiveBufferBytes must be -1 or > 0: " + receiveBufferBytes);
        }
        if (connectionSetupTimeoutMaxMs <= 0 || connectionSetupTimeoutMaxMs > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("connectionSetupTimeoutMaxMs must be in 1.." + Integer.MAX_VALUE
                    + ": " + connectionSetupTimeoutMaxMs);
        }
        checkSoftware("clientSoftwareName", clientSoftwareName);
        checkSoftware("clientSoftwareVersion", clientSoftwareVersion);
    }

    /** A copy with another {@code client.id}. */
    public NetworkOptions withClientId(String id) {
        return new NetworkOptions(id, requestTimeoutMs, connectionSetupTimeoutMs, reconnectBackoffMs,
                reconnectBackoffMaxMs, maxFrameBytes, sendBufferBytes, receiveBufferBytes, clientSoftwareName,
                clientSoftwareVersion, security,
                connectionSetupTimeoutMaxMs, connectionsMaxIdleMs, dnsLookup, config);
    }

    /** A copy with another {@code request.timeout.ms}, in milliseconds. */
    public NetworkOptions withRequestTimeoutMs(long ms) {
        return new NetworkOptions(clientId, ms, connectionSetupTimeoutMs, reconnectBackoffMs, reconnectBackoffMaxMs,
                maxFrameBytes, sendBufferBytes, receiveBufferBytes, clientSoftwareName, clientSoftwareVersion, security,
                connectionSetupTimeoutMaxMs, connectionsMaxIdleMs, dnsLookup, config);
    }

    /** A copy with another {@code socket.connection.setup.timeout.ms}, in milliseconds. */
    public NetworkOptions withConnectionSetupTimeoutMs(long ms) {
        return new NetworkOptions(clientId, requestTimeoutMs, ms, reconnectBackoffMs, reconnectBackoffMaxMs,
                maxFrameBytes, sendBufferBytes, receiveBufferBytes, clientSoftwareName, clientSoftwareVersion, security,
                connectionSetupTimeoutMaxMs, connectionsMaxIdleMs, dnsLookup, config);
    }

    /** A copy with another reconnect backoff range, in milliseconds. */
    public NetworkOptions withReconnectBackoff(long backoffMs, long backoffMaxMs) {
        return new NetworkOptions(clientId, requestTimeoutMs, connectionSetupTimeoutMs, backoffMs, backoffMaxMs,
                maxFrameBytes, sendBufferBytes, receiveBufferBytes, clientSoftwareName, clientSoftwareVersion, security,
                connectionSetupTimeoutMaxMs, connectionsMaxIdleMs, dnsLookup, config);
    }

    /** A copy with another response frame limit, in bytes. */
    public NetworkOptions withMaxFrameBytes(int bytes) {
        return new NetworkOptions(clientId, requestTimeoutMs, connectionSetupTimeoutMs, reconnectBackoffMs,
                reconnectBackoffMaxMs, bytes, sendBufferBytes, receiveBufferBytes, clientSoftwareName,
                clientSoftwareVersion, security,
                connectionSetupTimeoutMaxMs, connectionsMaxIdleMs, dnsLookup, config);
    }

    /** A copy with other TLS and SASL settings. */
    public NetworkOptions withSecurity(ConnectionSecurity connectionSecurity) {
        return new NetworkOptions(clientId, requestTimeoutMs, connectionSetupTimeoutMs, reconnectBackoffMs,
                reconnectBackoffMaxMs, maxFrameBytes, sendBufferBytes, receiveBufferBytes, clientSoftwareName,
                clientSoftwareVersion, connectionSecurity,
                connectionSetupTimeoutMaxMs, connectionsMaxIdleMs, dnsLookup, config);
    }

    /**
     * A copy with other socket settings: {@code send.buffer.bytes} and {@code receive.buffer.bytes} in bytes
     * (-1 = the OS default).
     */
    public NetworkOptions withSocketBuffers(int sendBytes, int receiveBytes) {
        return new NetworkOptions(clientId, requestTimeoutMs, connectionSetupTimeoutMs, reconnectBackoffMs,
                reconnectBackoffMaxMs, maxFrameBytes, sendBytes, receiveBytes, clientSoftwareName,
                clientSoftwareVersion, security, connectionSetupTimeoutMaxMs, connectionsMaxIdleMs, dnsLookup, config);
    }

    /** A copy with another {@code socket.connection.setup.timeout.max.ms}, in milliseconds. */
    public NetworkOptions withConnectionSetupTimeoutMaxMs(long ms) {
        return new NetworkOptions(clientId, requestTimeoutMs, connectionSetupTimeoutMs, reconnectBackoffMs,
                reconnectBackoffMaxMs, maxFrameBytes, sendBufferBytes, receiveBufferBytes, clientSoftwareName,
                clientSoftwareVersion, security, ms, connectionsMaxIdleMs, dnsLookup, config);
    }

    /** A copy with another {@code connections.max.idle.ms}, in milliseconds (negative: never closed). */
    public NetworkOptions withConnectionsMaxIdleMs(long ms) {
        return new NetworkOptions(clientId, requestTimeoutMs, connectionSetupTimeoutMs, reconnectBackoffMs,
                reconnectBackoffMaxMs, maxFrameBytes, sendBufferBytes, receiveBufferBytes, clientSoftwareName,
                clientSoftwareVersion, security, connectionSetupTimeoutMaxMs, ms, dnsLookup, config);
    }

    /** A copy with another {@code client.dns.lookup}. */
    public NetworkOptions withDnsLookup(DnsLookup lookup) {
        return new NetworkOptions(clientId, requestTimeoutMs, connectionSetupTimeoutMs, reconnectBackoffMs,
                reconnectBackoffMaxMs, maxFrameBytes, sendBufferBytes, receiveBufferBytes, clientSoftwareName,
                clientSoftwareVersion, security, connectionSetupTimeoutMaxMs, connectionsMaxIdleMs, lookup, config);
    }

    private static void checkSoftware(String name, String value) {
        if (value == null || !SOFTWARE_PATTERN.matcher(value).matches()) {
            throw new IllegalArgumentException(name + " must match " + SOFTWARE_PATTERN + ": " + value);
        }
    }

    /** Where the build writes kflux's version (sdk/pom.xml filters it with {@code project.version}). */
    static final String VERSION_RESOURCE = "kflux-version.properties";

    private static String softwareVersion() {
        String v = builtVersion();
        return v != null && SOFTWARE_PATTERN.matcher(v).matches() ? v : "dev";
    }

    /** The version in {@value #VERSION_RESOURCE}, or null when it cannot be read. */
    static String builtVersion() {
        try (java.io.InputStream in = NetworkOptions.class.getResourceAsStream(VERSION_RESOURCE)) {
            if (in == null) {
                return null;
            }
            java.util.Properties p = new java.util.Properties();
            p.load(in);
            return p.getProperty("version");
        } catch (java.io.IOException e) {
            return null;
        }
    }
}
