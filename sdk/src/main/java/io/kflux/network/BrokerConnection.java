package io.kflux.network;

import io.kflux.util.ClientMetrics;
import io.kflux.protocol.ApiKey;
import io.kflux.protocol.ApiRequest;
import io.kflux.protocol.MessageSpec;
import io.kflux.protocol.Errors;
import io.kflux.protocol.message.ApiVersionsRequest;
import io.kflux.protocol.message.ApiVersionsResponse;
import io.kflux.protocol.message.ApiVersionsResponse.ApiVersion;
import io.kflux.AuthenticationException;
import io.kflux.SslAuthenticationException;
import io.netty.channel.ChannelOption;
import io.netty.handler.ssl.SslHandshakeTimeoutException;
import io.kflux.util.HostPort;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;
import javax.net.ssl.SSLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;
import reactor.netty.Connection;
import reactor.netty.resources.LoopResources;
import reactor.netty.tcp.TcpClient;

/**
 * One TCP connection to one broker, ready for requests: {@link #connect} resolves only after the TLS
 * handshake (when {@link NetworkOptions#security()} has TLS), the ApiVersions negotiation, so every exchange
 * can pick the highest version that both kflux and the broker support, and the SASL authentication (when it
 * has SASL), in this order, as the official client does.
 *
 * <p><b>Re-authentication (KIP-368).</b> When SaslAuthenticate grants a session lifetime, the connection
 * authenticates again at 85-95% of it: requests submitted meanwhile are held back until the ones in flight are
 * answered and the new SASL exchange has ended, then written in order; nothing in flight is dropped and the
 * connection (with its fetch sessions) stays. A failed re-authentication closes the connection with the
 * {@link AuthenticationException} as the close cause.
 *
 * <p><b>Pipelining.</b> Any number of requests may be in flight, from any threads. Each gets the
 * next correlation id; Kafka answers in order on a connection, so each response frame must carry
 * the id of the oldest request in flight. A frame that does not, or whose body cannot be decoded,
 * fails that request with a {@link io.kflux.protocol.MalformedMessageException} and closes the
 * connection: after one bad frame the byte stream cannot be trusted.
 *
 * <p><b>Timeouts.</b> A request unanswered {@code request.timeout.ms} after it was written fails
 * with {@link RequestTimeoutException}, and the connection is closed, as the official client's
 * NetworkClient does on a request timeout: the late answer would still have to be read before the
 * answers to later requests, and a broker that slow is usually stuck, so starting over on a new
 * connection is both simpler and faster to recover.
 *
 * <p><b>Failures.</b> When the connection ends for any reason, every request in flight fails with
 * {@link DisconnectedException} (its cause says why), and later requests fail with it at once.
 * Nothing ever waits forever: each written request has a timer.
 *
 * <p><b>Threads.</b> Responses are decoded and delivered on the connection's event loop (a
 * {@code kflux-io} thread): subscribers must not block there, and should publish real work onto
 * their own scheduler.
 *
 * <p><b>Buffers.</b> Each inbound frame is released right after its body is decoded. Bodies that
 * hold record sets ({@code Types.RECORDS}) keep retained slices of the frame: whoever receives such
 * a response owns those slices and must release them. A response whose exchange was cancelled
 * before it arrived is not decoded at all, so it leaks nothing. Once a frame and all its slices are released,
 * its array may carry the next response ({@link FramePool}): nothing may read it after that.
 */
public final class BrokerConnection {
    private final Connection connection;
    private final InetSocketAddress address;
    private final NetworkOptions options;
    private static final Logger log = LoggerFactory.getLogger(BrokerConnection.class);

    private final ConnectionHandler handler;
    private final String broker;
    private volatile BrokerApiVersions versions = BrokerApiVersions.of(List.of());
    private volatile int reauthentications;
    /** The node of the cluster this connection means to reach (KIP-1242), or null for no check. */
    private final BrokerIdentity expected;

    private BrokerConnection(Connection connection, InetSocketAddress address, NetworkOptions options,
                             ClientMetrics metrics, int nodeId, BrokerIdentity expected) {
        this.connection = connection;
        this.expected = expected;
        this.address = address;
        this.options = options;
        this.broker = HostPort.of(address);
        this.handler = new ConnectionHandler(connection.channel(), broker, options, metrics, nodeId);
        if (options.connectionsMaxIdleMs() >= 0) {
            connection.addHandlerLast("kflux.idle", new io.netty.handler.timeout.IdleStateHandler(0L, 0L,
                    Math.max(1L, options.connectionsMaxIdleMs()), TimeUnit.MILLISECONDS));
        }
        connection.addHandlerLast("kflux.frames", new ResponseFrameDecoder(options.maxFrameBytes()));
        connection.addHandlerLast("kflux.protocol", handler);
        // reactor-netty reads on demand of its inbound Flux, which kflux never subscribes to:
        // frames stop at the handler above, so reading is simply left on.
        connection.channel().config().setAutoRead(true);
    }

    /**
     * Connects to {@code host:port} on the shared {@link IoLoops}. See {@link #connect(InetSocketAddress, NetworkOptions)}.
     */
    public static Mono<BrokerConnection> connect(String host, int port, NetworkOptions options) {
        return connect(InetSocketAddress.createUnresolved(host, port), options);
    }

    /**
     * Opens a TCP connection to {@code address} (resolved without blocking when unresolved), then
     * negotiates API versions with ApiVersions at the highest version kflux knows, retrying once
     * at the highest common version when the broker answers UNSUPPORTED_VERSION.
     *
     * @return a connection ready for {@link #exchange}; fails with {@link ConnectionFailedException}
     * when the TCP connect fails or takes longer than {@code connectionSetupTimeoutMs}, or when the
     * negotiation fails (its cause: {@link RequestTimeoutException} after {@code requestTimeoutMs},
     * {@link DisconnectedException}, {@link UnsupportedVersionException}, a malformed answer, or an
     * error code); with {@link SslAuthenticationException} when the TLS handshake fails or the broker refuses
     * the client certificate, and with {@link AuthenticationException} when SASL authentication is refused
     * (neither is wrapped: they are not retriable). Cancelling closes a half-set-up connection.
     */
    public static Mono<BrokerConnection> connect(InetSocketAddress address, NetworkOptions options) {
        return connect(address, options, IoLoops.shared());
    }

    static Mono<BrokerConnection> connect(InetSocketAddress address, NetworkOptions options, LoopResources loops) {
        return connect(address, options, loops, ClientMetrics.NONE, -1, null);
    }

    /**
     * As {@link #connect(InetSocketAddress, NetworkOptions)}, reporting the connection's life and traffic to
     * {@code metrics} as node {@code nodeId}'s (see {@link ClientMetrics#requestSent}). With {@code expected} the
     * ApiVersions request names that node and cluster (v5, KIP-1242); a broker that is not it refuses, and the
     * connect fails with {@link MisroutedConnectionException} (unwrapped) after a WARN naming the expected broker.
     * A broker before Kafka 4.4 answers UNSUPPORTED_VERSION to v5 and is asked again at its highest, unchecked.
     *
     * @param expected the node and cluster meant, or null for no check
     */
    static Mono<BrokerConnection> connect(InetSocketAddress address, NetworkOptions options, LoopResources loops,
                                          ClientMetrics metrics, int nodeId, BrokerIdentity expected) {
        Objects.requireNonNull(address, "address");
        Objects.requireNonNull(options, "options");
        TcpClient client = TcpClient.newConnection()
                .runOn(loops)
                .remoteAddress(() -> address)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) options.connectionSetupTimeoutMs())
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.SO_KEEPALIVE, true);
        if (options.sendBufferBytes() > 0) {
            client = client.option(ChannelOption.SO_SNDBUF, options.sendBufferBytes());
        }
        if (options.receiveBufferBytes() > 0) {
            client = client.option(ChannelOption.SO_RCVBUF, options.receiveBufferBytes());
        }
        ConnectionSecurity security = options.security();
        if (security.tls() != null) {
            client = client.secure(spec -> spec.sslContext(security.tls())
                    .handshakeTimeout(Duration.ofMillis(options.connectionSetupTimeoutMs())));
        }
        String target = HostPort.of(address);
        return client.connect()
                .onErrorMap(e -> {
                    SSLException tls = tlsFailure(e);
                    return tls != null ? new SslAuthenticationException("TLS handshake with broker " + target
                            + " failed: " + TlsFailure.describe(tls), tls)
                            : new ConnectionFailedException(address, "could not connect to " + target + ": " + e, e);
                })
                .flatMap(c -> {
                    BrokerConnection bc = new BrokerConnection(c, address, options, metrics, nodeId, expected);
                    // The cancel hook sits on the setup only: a downstream that cancels after
                    // receiving the connection (e.g. next()) must not close it.
                    return bc.negotiate()
                            .onErrorMap(e -> !(e instanceof AuthenticationException)
                                    && !(e instanceof MisroutedConnectionException), e -> {
                                SSLException tls = tlsFailure(e);
                                return tls != null ? new SslAuthenticationException("broker " + target
                                        + " refused the TLS session (e.g. the client certificate): "
                                        + TlsFailure.describe(tls), tls)
                                        : new ConnectionFailedException(address, "could not negotiate API versions with "
                                        + target + ": " + e.getMessage(), e);
                            })
                            .then(Mono.defer(bc::authenticate))
                            .doOnCancel(() -> bc.handler.close("closed: connecting was cancelled"))
                            .onErrorResume(e -> bc.close().then(Mono.error(e)))
                            .doOnSuccess(v -> {
                                log.debug("connected to {} ({})", target, security);
                                metrics.connectionCreated();
                                bc.onClose().subscribe(null, e -> metrics.connectionClosed(), metrics::connectionClosed);
                            })
                            .thenReturn(bc);
                });
    }

    /**
     * The TLS error behind a failed connect or first exchange, or null. A handshake that merely timed out is
     * a connection failure (retriable), not a verdict on certificates.
     */
    private static SSLException tlsFailure(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SslHandshakeTimeoutException) {
                return null;
            }
            if (t instanceof SSLException ssl) {
                return ssl;
            }
        }
        return null;
    }

    /** SASL, when configured: the first authentication, and the timer for the next one (KIP-368). */
    private Mono<Void> authenticate() {
        SaslAuthenticator sasl = options.security().sasl();
        if (sasl == null) {
            return Mono.empty();
        }
        return SaslSession.authenticate(this, sasl)
                .onErrorMap(e -> !(e instanceof AuthenticationException), e -> new ConnectionFailedException(address,
                        "SASL authentication with " + broker + " did not complete: " + e.getMessage(), e))
                .doOnNext(this::scheduleReauthentication)
                .then();
    }

    /** As the official client: at a random point between 85% and 95% of the session lifetime. */
    private void scheduleReauthentication(long sessionLifetimeMs) {
        if (sessionLifetimeMs <= 0) {
            return;
        }
        long delayMs = (long) (sessionLifetimeMs * (0.85 + 0.10 * ThreadLocalRandom.current().nextDouble()));
        connection.channel().eventLoop().schedule(() -> handler.holdForReauthentication(this::reauthenticate),
                delayMs, TimeUnit.MILLISECONDS);
    }

    private void reauthenticate() {
        SaslAuthenticator sasl = options.security().sasl();
        SaslSession.authenticate(this, sasl).subscribe(lifetime -> {
            reauthentications++;
            log.debug("re-authenticated to {} with {}; next session lifetime {} ms", broker, sasl.mechanism(), lifetime);
            handler.reauthenticated();
            scheduleReauthentication(lifetime);
        }, e -> handler.close("closed: re-authentication with " + sasl.mechanism() + " failed (" + e.getMessage() + ")",
                e));
    }

    /** How many times this connection re-authenticated (KIP-368). */
    public int reauthentications() {
        return reauthentications;
    }

    /** Sends one request of a SASL exchange, past requests held back for re-authentication. */
    <R> Mono<R> sendAuthentication(ApiRequest<R> request) {
        return Mono.defer(() -> {
            short version = versions.highestCommon(request.spec());
            if (version < 0) {
                return Mono.error(unsupported(request.spec()));
            }
            return send(request, version, options.requestTimeoutMs(), true);
        });
    }

    private Mono<Void> negotiate() {
        // v5 only when it carries a check (KIP-1242): without one, v4 spares brokers before 4.4 a second round trip.
        short highest = expected != null ? ApiVersionsRequest.SPEC.highestVersion()
                : (short) (ApiVersionsRequest.FIRST_CLUSTER_CHECK_VERSION - 1);
        return apiVersions(highest).flatMap(first -> {
            if (first.errorCode() != ResponseDecoder.UNSUPPORTED_VERSION) {
                return accept(first, highest);
            }
            ApiVersion theirs = first.find(ApiKey.API_VERSIONS);
            short retry = theirs == null ? ApiVersionsRequest.SPEC.lowestVersion()
                    : (short) Math.min(highest, theirs.maxVersion());
            short lowest = theirs == null ? ApiVersionsRequest.SPEC.lowestVersion()
                    : (short) Math.max(theirs.minVersion(), ApiVersionsRequest.SPEC.lowestVersion());
            if (retry < lowest || retry >= highest) {
                return Mono.error(new UnsupportedVersionException("API_VERSIONS: kflux supports "
                        + ApiVersionsRequest.SPEC.lowestVersion() + "-" + highest + ", broker "
                        + (theirs == null ? "did not say" : "supports " + theirs.minVersion() + "-" + theirs.maxVersion()),
                        ApiKey.API_VERSIONS));
            }
            return apiVersions(retry).flatMap(second -> accept(second, retry));
        });
    }

    private Mono<ApiVersionsResponse> apiVersions(short version) {
        ApiVersionsRequest request = expected == null
                ? new ApiVersionsRequest(options.clientSoftwareName(), options.clientSoftwareVersion())
                : new ApiVersionsRequest(options.clientSoftwareName(), options.clientSoftwareVersion(),
                        expected.clusterId(), expected.nodeId());
        return send(request, version, options.requestTimeoutMs(), true);
    }

    private Mono<Void> accept(ApiVersionsResponse response, short version) {
        if (expected != null && version >= ApiVersionsRequest.FIRST_CLUSTER_CHECK_VERSION
                && response.errorCode() == Errors.REBOOTSTRAP_REQUIRED.code()) {
            MisroutedConnectionException e = new MisroutedConnectionException(address, expected);
            log.warn("{}; the cluster behind this address is not the one metadata named, asking bootstrap.servers "
                    + "again (metadata.cluster.check.enable)", e.getMessage());
            return Mono.error(e);
        }
        if (response.errorCode() != 0) {
            return Mono.error(new NetworkException("ApiVersions v" + version + " to " + HostPort.of(address) + " failed with error code " + response.errorCode()));
        }
        versions = BrokerApiVersions.of(response);
        return Mono.empty();
    }

    /**
     * Sends {@code request} at the highest version both sides support for its API and decodes the
     * answer with its response spec at that version.
     *
     * @return the response body, delivered on the event loop; fails with
     * {@link UnsupportedVersionException} (nothing sent), {@link RequestTimeoutException},
     * {@link DisconnectedException}, {@link FrameTooLargeException},
     * {@link io.kflux.protocol.MalformedMessageException}, or the body codec's own exception when
     * the request cannot be encoded (nothing sent, connection kept). Cancelling does not un-send
     * the request: its response is still awaited (to keep the stream in step) but not decoded.
     */
    public <R> Mono<R> exchange(ApiRequest<R> request) {
        return exchange(request, options.requestTimeoutMs());
    }

    /**
     * As {@link #exchange(ApiRequest)} with a timeout of its own, for requests the broker may hold
     * longer than {@code request.timeout.ms} (JoinGroup waits up to the rebalance timeout).
     *
     * @param timeoutMs how long to wait for the response after writing the request, in ms (> 0)
     */
    public <R> Mono<R> exchange(ApiRequest<R> request, long timeoutMs) {
        Objects.requireNonNull(request, "request");
        if (timeoutMs <= 0) {
            throw new IllegalArgumentException("timeoutMs must be > 0, was " + timeoutMs);
        }
        return Mono.defer(() -> {
            MessageSpec<?> spec = request.spec();
            short version = versions.highestCommon(spec, request.maxVersion());
            if (version < 0) {
                return Mono.error(unsupported(spec));
            }
            return send(request, version, timeoutMs, false);
        });
    }

    /**
     * As {@link #exchange(ApiRequest)} for requests whose content depends on the version: the
     * function is called with a candidate version (first the broker's highest; again with the
     * negotiated one if the request's spec tops out lower) and must return a request of
     * {@code key} that can be written at that version.
     *
     * @throws IllegalArgumentException (as the Mono's error) when the function returns a request
     *                                  of another API
     */
    public <R> Mono<R> exchange(ApiKey key, IntFunction<? extends ApiRequest<R>> requestForVersion) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(requestForVersion, "requestForVersion");
        return Mono.defer(() -> {
            BrokerApiVersions v = versions;
            short brokerMax = v.max(key);
            if (brokerMax < 0) {
                return Mono.error(new UnsupportedVersionException(key + ": " + v.describe(key), key));
            }
            ApiRequest<R> probe = requestForVersion.apply(brokerMax);
            MessageSpec<?> spec = probe.spec();
            if (spec.apiKey() != key) {
                return Mono.error(new IllegalArgumentException("asked for a " + key + " request, got " + spec.apiKey()));
            }
            short version = v.highestCommon(spec, probe.maxVersion());
            if (version < 0) {
                return Mono.error(unsupported(spec));
            }
            return send(version == brokerMax ? probe : requestForVersion.apply(version), version,
                    options.requestTimeoutMs(), false);
        });
    }

    private UnsupportedVersionException unsupported(MessageSpec<?> spec) {
        return new UnsupportedVersionException(spec.apiKey() + ": kflux supports " + spec.lowestVersion() + "-"
                + spec.highestVersion() + ", " + versions.describe(spec.apiKey()) + " (" + HostPort.of(address) + ")", spec.apiKey());
    }

    private <R> Mono<R> send(ApiRequest<R> request, short version, long timeoutMs, boolean authentication) {
        return Mono.create(sink -> {
            InFlightRequest<R> inFlight = new InFlightRequest<>(request, version, sink, timeoutMs, authentication);
            sink.onCancel(() -> inFlight.cancelled = true);
            handler.submit(inFlight);
        });
    }

    /**
     * The highest version of {@code key} the broker accepts (from the negotiation), or -1 when it
     * does not offer the API. The version an exchange uses is this capped by kflux's own range for
     * the message: see {@link #version(MessageSpec)}.
     */
    public short version(ApiKey key) {
        return versions.max(key);
    }

    /** The version an exchange of {@code spec}'s message would use, or -1 when there is none in common. */
    public short version(MessageSpec<?> spec) {
        return versions.highestCommon(spec);
    }

    /** The broker's API version ranges, as negotiated on connect. */
    public BrokerApiVersions apiVersions() {
        return versions;
    }

    /** The broker address this connection was opened to. */
    public InetSocketAddress address() {
        return address;
    }

    /** The channel, for tests of socket options. */
    io.netty.channel.Channel channel() {
        return connection.channel();
    }

    /** The options this connection was opened with. */
    public NetworkOptions options() {
        return options;
    }

    /** Whether the connection can still carry requests (it may still drop before the next one is written). */
    public boolean isOpen() {
        return handler.isOpen() && !connection.isDisposed();
    }

    /** Whether it ended for {@code connections.max.idle.ms} (nothing went wrong: reconnecting needs no backoff). */
    public boolean closedWhileIdle() {
        return handler.closedWhileIdle();
    }

    /**
     * When the connection ended ({@link System#nanoTime()}), 0 while open; set before the requests in flight are
     * failed, so whoever sees a request fail for the close can already see when it closed.
     */
    public long closedAtNanos() {
        return handler.closedAtNanos();
    }

    /** Requests sent on this connection and not yet answered (or held back for re-authentication): its load. */
    public int requestsWaiting() {
        return handler.waiting();
    }

    /** Why the connection ended, or null while it is open. */
    public DisconnectedException closeCause() {
        return handler.closeCause();
    }

    /**
     * Closes the connection: requests in flight fail with {@link DisconnectedException} ("closed by
     * the client"), then the channel is closed. Idempotent.
     *
     * @return completes once the channel is closed
     */
    public Mono<Void> close() {
        return Mono.defer(() -> {
            handler.close("was closed by the client");
            return onClose();
        });
    }

    /** Completes (empty) when the connection has closed, for whatever reason; see {@link #closeCause()}. */
    public Mono<Void> onClose() {
        return connection.onDispose();
    }

    @Override
    public String toString() {
        return "BrokerConnection[" + HostPort.of(address) + (isOpen() ? "" : ", closed") + "]";
    }
}
