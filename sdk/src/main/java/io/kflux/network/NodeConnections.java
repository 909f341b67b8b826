package io.kflux.network;

import io.kflux.AuthenticationException;
import io.kflux.ConfigException;
import io.kflux.KafkaFluxException;
import io.kflux.util.Backoff;
import io.kflux.util.ClientMetrics;
import io.kflux.util.LogContext;

import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import reactor.core.Disposable;
import java.util.concurrent.atomic.AtomicInteger;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.netty.resources.LoopResources;

/**
 * The broker connections of one consumer: at most one open {@link BrokerConnection} per broker
 * node id, opened on first use and kept while it stays open, plus one to "any bootstrap server"
 * for the first metadata request. Concurrent callers asking for the same node share one connect.
 *
 * <p><b>Reconnect backoff.</b> After a failed connect (or a dropped connection) the next attempt
 * to that node starts only after {@code reconnect.backoff.ms}, doubling per consecutive failure up
 * to {@code reconnect.backoff.max.ms}, +/-20% jitter; a successful connect resets it. A caller
 * asking during the backoff gets a Mono that waits it out rather than an immediate error.
 *
 * <p><b>Fatal failures</b>, those no retry mends (an {@link AuthenticationException}, including
 * {@link io.kflux.SslAuthenticationException}), are not retriable: besides failing the caller's Mono, each is
 * told to every {@link #onFatalFailure listener}, so the consumer ends at once whichever of its
 * loops (metadata, fetch, group, commit) happened to connect, instead of each retrying on its own.
 *
 * <p><b>Bootstrap names that never resolve.</b> Until a bootstrap connection first succeeds, an attempt in which no
 * name of the list resolves fails for good once {@code bootstrap.resolve.timeout.ms} (KIP-909) has passed since the
 * first attempt (at once with its default, 0): with a {@link ConfigException} naming it, told to the fatal-failure
 * listeners, and returned by every later {@link #bootstrap} (the official client's failure is permanent too).
 *
 * <p><b>Names</b> are resolved at every connect ({@link DnsLookup}); with {@code use_all_dns_ips} each address
 * of a name is tried in turn. The setup timeout grows per consecutive failure to a destination
 * ({@code socket.connection.setup.timeout.ms} .. {@code .max.ms}, KIP-601). A connection idle for
 * {@code connections.max.idle.ms} is closed and reopened on next use without backoff.
 *
 * <p>Thread-safe. All connections run on one loop of the JVM-wide {@link IoLoops}, this manager's {@link IoLoops#home()}.
 */
public final class NodeConnections {
    private final NetworkOptions options;
    private final ClientMetrics metrics;
    private final LoopResources loops;
    private final Backoff backoff;
    private final Backoff setupTimeouts;
    private final ConcurrentHashMap<Integer, ConnectionSlot> nodes = new ConcurrentHashMap<>();
    private final ConnectionSlot bootstrap;
    /**
     * The bootstrap server tried first: a random one at first (as the official client starts from a random node), so
     * that many clients starting together spread their first connections over the list instead of all opening them
     * to its first server; then the one that last answered.
     */
    private final AtomicInteger bootstrapStart =
            new AtomicInteger(java.util.concurrent.ThreadLocalRandom.current().nextInt(Integer.MAX_VALUE));
    private final ConnectFailureLog failureLog;
    private final AddressResolver resolver;
    private final List<Consumer<? super KafkaFluxException>> fatalListeners = new CopyOnWriteArrayList<>();
    /** {@code metadata.cluster.check.enable}, and a rebootstrap to act on a refusal (see {@link #clusterId}). */
    private final boolean clusterCheck;
    /** The cluster id of the last Metadata answer, or null. */
    private volatile String clusterId;
    /**
     * The highest ApiVersions version the broker of the last connection announced, -1 before any: below 5 (a broker
     * before Kafka 4.4) the cluster check is not asked for (see {@link #expected}).
     */
    private volatile short announcedApiVersionsMax = -1;
    /** {@code bootstrap.resolve.timeout.ms}, in ms (see the class comment). */
    private final long bootstrapResolveTimeoutMs;
    /** {@link System#nanoTime()} of the first bootstrap attempt; 0 before it. */
    private volatile long firstBootstrapNanos;
    /** Set by the first bootstrap connection that succeeds: the resolve deadline is for starting only. */
    private volatile boolean bootstrapped;
    /** The failure of a bootstrap whose names did not resolve in time, for good; null until then. */
    private volatile ConfigException unresolvedBootstrap;
    private volatile boolean closed;

    /**
     * @param options the settings of every connection this manager opens
     */
    public NodeConnections(NetworkOptions options) {
        this(options, IoLoops.home(), LogContext.NONE);
    }

    /**
     * @param options    the settings of every connection this manager opens
     * @param logContext whose connections these are, for the failed-connection WARNs
     */
    public NodeConnections(NetworkOptions options, LogContext logContext) {
        this(options, IoLoops.home(), logContext);
    }

    NodeConnections(NetworkOptions options, LoopResources loops) {
        this(options, loops, LogContext.NONE);
    }

    NodeConnections(NetworkOptions options, LoopResources loops, LogContext logContext) {
        this(options, loops, logContext, ClientMetrics.NONE, AddressResolver.JDK);
    }

    NodeConnections(NetworkOptions options, LoopResources loops, LogContext logContext, AddressResolver resolver) {
        this(options, loops, logContext, ClientMetrics.NONE, resolver);
    }

    /**
     * @param options    the settings of every connection this manager opens
     * @param logContext whose connections these are, for the failed-connection WARNs
     * @param metrics    where every connection reports its life and traffic
     */
    public NodeConnections(NetworkOptions options, LogContext logContext, ClientMetrics metrics) {
        this(options, IoLoops.home(), logContext, metrics, AddressResolver.JDK);
    }

    NodeConnections(NetworkOptions options, LoopResources loops, LogContext logContext, ClientMetrics metrics) {
        this(options, loops, logContext, metrics, AddressResolver.JDK);
    }

    NodeConnections(NetworkOptions options, LoopResources loops, LogContext logContext, ClientMetrics metrics,
                    AddressResolver resolver) {
        this.resolver = resolver;
        this.metrics = Objects.requireNonNull(metrics, "metrics");
        this.options = Objects.requireNonNull(options, "options");
        this.loops = loops;
        this.failureLog = new ConnectFailureLog(logContext);
        this.backoff = new Backoff(options.reconnectBackoffMs(), options.reconnectBackoffMaxMs());
        this.setupTimeouts = new Backoff(options.connectionSetupTimeoutMs(), options.connectionSetupTimeoutMaxMs());
        this.bootstrap = new ConnectionSlot("the bootstrap servers", backoff);
        this.bootstrapResolveTimeoutMs = options.config().value("bootstrap.resolve.timeout.ms", Long.class);
        this.clusterCheck = options.config().value("metadata.cluster.check.enable", Boolean.class)
                && !"none".equalsIgnoreCase(options.config().value("metadata.recovery.strategy", String.class));
    }

    /**
     * The parsed configuration, for the layers above that read their properties by name through this one
     * (DESIGN.md "Adding a property"; the metadata layer's {@code metadata.recovery.*}).
     */
    public io.kflux.util.ConfigValues config() {
        return options.config();
    }

    /**
     * The cluster id the last Metadata answer named (null: not known), sent with the node id in the ApiVersions of
     * every later connection to a known node or coordinator so a broker that is not that node of that cluster refuses
     * it (KIP-1242): only with {@code metadata.cluster.check.enable} and {@code metadata.recovery.strategy} other than
     * {@code none}, as the official client, since only a rebootstrap can act on the refusal. Bootstrap connections
     * are never checked, and no connection is while the broker of the last connection announced no ApiVersions v5
     * (a broker before Kafka 4.4 would refuse it as UNSUPPORTED_VERSION and be asked again, a round trip for nothing).
     */
    public void clusterId(String id) {
        clusterId = id;
    }

    /** What a connection to slot {@code slotId} checks (KIP-1242), or null: see {@link #clusterId(String)}. */
    private BrokerIdentity expected(int slotId) {
        String cluster = clusterId;
        if (!clusterCheck || cluster == null || slotId < 0) {
            return null;
        }
        short announced = announcedApiVersionsMax;
        if (announced >= 0 && announced < io.kflux.protocol.message.ApiVersionsRequest.FIRST_CLUSTER_CHECK_VERSION) {
            // The cluster's brokers predate KIP-1242: a checked (v5) ApiVersions would only be refused as
            // UNSUPPORTED_VERSION and asked again unchecked, a round trip per connection for nothing. A broker that
            // offers the check is asked again once a connection to one announced it (a rolling upgrade, a replaced
            // cluster); until then the Metadata answers' cluster id (clusterId) is the check.
            return null;
        }
        return new BrokerIdentity(cluster, slotId > Integer.MAX_VALUE / 2 ? Integer.MAX_VALUE - slotId : slotId);
    }

    /**
     * The open connection to broker {@code nodeId}, or a new one to {@code host:port}. When the
     * node's address changed since its connection was opened, that connection is closed and a new
     * one opened.
     *
     * @return fails with {@link ConnectionFailedException} when connecting fails (after the backoff
     * still due from earlier failures), or {@link DisconnectedException} after {@link #closeAll()}
     */
    public Mono<BrokerConnection> connection(int nodeId, String host, int port) {
        Objects.requireNonNull(host, "host");
        InetSocketAddress address = InetSocketAddress.createUnresolved(host, port);
        return Mono.defer(() -> slot(nodeId).get(address, failures -> reported("node " + nodeId, nodeId, address,
                failures)));
    }

    /**
     * A connection to broker {@code nodeId} of its own for the group coordinator, as the official client keeps one
     * (its connection id is {@code Integer.MAX_VALUE - nodeId}): a JoinGroup the broker holds for seconds never waits
     * behind, or holds up, the fetches on the broker's general connection. Otherwise as {@link #connection}.
     */
    public Mono<BrokerConnection> coordinatorConnection(int nodeId, String host, int port) {
        return connection(coordinatorSlotId(nodeId), host, port);
    }

    private static int coordinatorSlotId(int nodeId) {
        return Integer.MAX_VALUE - nodeId;
    }

    /**
     * How loaded and how healthy the consumer's connections to broker {@code nodeId} are, for choosing among brokers
     * (see {@link NodeLoad}). A broker whose last connect succeeded after its last failure, on either of its
     * connections, is not troubled.
     */
    public NodeLoad load(int nodeId) {
        ConnectionSlot general = nodes.get(nodeId);
        ConnectionSlot coordinator = nodes.get(coordinatorSlotId(nodeId));
        if (general == null && coordinator == null) {
            return NodeLoad.UNKNOWN;
        }
        long success = Math.max(lastSuccess(general), lastSuccess(coordinator));
        long failure = Math.max(lastFailure(general), lastFailure(coordinator));
        BrokerConnection open = general == null ? null : general.open();
        boolean troubled = failure != 0 && (success == 0 || failure - success > 0);
        return new NodeLoad(open != null, waiting(open) + waiting(coordinator == null ? null : coordinator.open()),
                troubled, failure);
    }

    private static int waiting(BrokerConnection c) {
        return c == null ? 0 : c.requestsWaiting();
    }

    private static long lastSuccess(ConnectionSlot slot) {
        return slot == null ? 0 : slot.lastSuccessNanos();
    }

    private static long lastFailure(ConnectionSlot slot) {
        return slot == null ? 0 : slot.lastFailureNanos();
    }

    /**
     * Tells {@code listener} of every fatal failure of a connect (see the class comment), from the thread that saw it.
     *
     * @return disposing it removes the listener
     */
    public Disposable onFatalFailure(Consumer<? super KafkaFluxException> listener) {
        Objects.requireNonNull(listener, "listener");
        fatalListeners.add(listener);
        return () -> fatalListeners.remove(listener);
    }

    private void fatal(KafkaFluxException e) {
        fatalListeners.forEach(l -> l.accept(e));
    }

    /**
     * A connection to any of {@code addresses}, tried one after the other, starting with the one
     * that worked last time. The connection is kept and handed out again while it is open and the
     * list is the same; a caller done with it may close it.
     *
     * @return fails with {@link ConnectionFailedException} (each address's error suppressed in it)
     * when none can be reached, or {@link DisconnectedException} after {@link #closeAll()}
     * @throws IllegalArgumentException when {@code addresses} is empty
     */
    public Mono<BrokerConnection> bootstrap(List<InetSocketAddress> addresses) {
        List<InetSocketAddress> list = List.copyOf(addresses);
        if (list.isEmpty()) {
            throw new IllegalArgumentException("no bootstrap addresses");
        }
        return Mono.defer(() -> {
            if (unresolvedBootstrap != null) {
                return Mono.error(unresolvedBootstrap);
            }
            if (firstBootstrapNanos == 0) {
                firstBootstrapNanos = System.nanoTime();
            }
            return checkOpen(bootstrap).get(list, failures -> bootstrapAddresses(list)
                    .flatMap(expanded -> connectAny(expanded, failures)));
        });
    }

    /**
     * The setup timeout of a connect after {@code failures} consecutive failed ones to the same destination:
     * {@code socket.connection.setup.timeout.ms} doubled per failure up to {@code .max.ms}, +/-20% jitter (KIP-601),
     * the same curve as the reconnect backoff, so a dead address costs little at first and a slow one eventually
     * gets enough time.
     */
    long setupTimeoutMs(int failures) {
        return Math.max(1L, setupTimeouts.delayMs(failures + 1));
    }

    /** {@code resolve_canonical_bootstrap_servers_only}: each name becomes the canonical names of its addresses. */
    private Mono<List<InetSocketAddress>> bootstrapAddresses(List<InetSocketAddress> list) {
        if (options.dnsLookup() != DnsLookup.RESOLVE_CANONICAL_BOOTSTRAP_SERVERS_ONLY) {
            return Mono.just(list);
        }
        return Flux.fromIterable(list)
                .concatMap(a -> resolver.resolve(a)
                        .map(all -> all.stream().map(r -> InetSocketAddress.createUnresolved(
                                r.getAddress().getCanonicalHostName(), a.getPort())).toList())
                        .onErrorReturn(List.of(a))) // unresolvable now: keep the name, connecting reports it
                .<InetSocketAddress>concatMapIterable(l -> l)
                .distinct()
                .collectList()
                .subscribeOn(BlockingScheduler.shared()); // getCanonicalHostName blocks
    }

    private Mono<BrokerConnection> connectAny(List<InetSocketAddress> list, int failures) {
        int n = list.size();
        int start = Math.floorMod(bootstrapStart.get(), n);
        List<Throwable> errors = new ArrayList<>();
        return Flux.range(0, n)
                .concatMap(i -> {
                    int index = (start + i) % n;
                    // the official client numbers bootstrap servers -1, -2, ... in metrics
                    return reported("bootstrap server", -1 - index, list.get(index), failures)
                            .doOnNext(c -> {
                                bootstrapStart.set(index);
                                bootstrapped = true;
                            })
                            .onErrorResume(e -> {
                                errors.add(e);
                                return Mono.empty();
                            });
                }, 0)
                .next()
                .switchIfEmpty(Mono.error(() -> {
                    // A refused authentication is the answer, not one failure among others.
                    for (Throwable e : errors) {
                        if (e instanceof AuthenticationException auth) {
                            return auth;
                        }
                    }
                    ConfigException unresolved = unresolvedPastDeadline(list, errors);
                    if (unresolved != null) {
                        return unresolved;
                    }
                    ConnectionFailedException e = new ConnectionFailedException(null,
                            "could not connect to any bootstrap server of " + io.kflux.util.HostPort.of(list), null);
                    errors.forEach(e::addSuppressed);
                    return e;
                }));
    }

    /**
     * The failure for good of a bootstrap attempt in which no name resolved, once {@code bootstrap.resolve.timeout.ms}
     * has passed since the first attempt (told to the fatal-failure listeners); null when the attempt is one to retry.
     */
    private ConfigException unresolvedPastDeadline(List<InetSocketAddress> list, List<Throwable> errors) {
        boolean noneResolved = errors.size() == list.size()
                && errors.stream().allMatch(e -> e.getCause() instanceof UnknownHostException);
        long elapsedMs = (System.nanoTime() - firstBootstrapNanos) / 1_000_000;
        if (bootstrapped || !noneResolved || elapsedMs < bootstrapResolveTimeoutMs) {
            return null;
        }
        ConfigException e = new ConfigException("bootstrap.servers", io.kflux.util.HostPort.of(list),
                "at least one host name that resolves within bootstrap.resolve.timeout.ms (" + bootstrapResolveTimeoutMs
                + " ms); none did in " + elapsedMs + " ms (client.dns.lookup=" + options.dnsLookup().configValue() + ")");
        errors.forEach(e::addSuppressed);
        unresolvedBootstrap = e;
        fatal(e);
        return e;
    }

    /**
     * A connect whose failure is reported (WARN, rate-limited per address) where reconnects are handled. With
     * {@code use_all_dns_ips} a name's addresses are tried in turn, each with the setup timeout due after
     * {@code failures} failed attempts; the first that connects wins.
     */
    private Mono<BrokerConnection> reported(String destination, int nodeId, InetSocketAddress address, int failures) {
        NetworkOptions attempt = options.withConnectionSetupTimeoutMs(setupTimeoutMs(failures));
        return resolver.resolve(address)
                .onErrorMap(e -> new ConnectionFailedException(address, "could not resolve " + address.getHostString()
                        + " (client.dns.lookup=" + options.dnsLookup().configValue() + "): " + e, e))
                .flatMap(all -> {
                    List<InetSocketAddress> targets = options.dnsLookup() == DnsLookup.USE_ALL_DNS_IPS ? all
                            : all.subList(0, 1);
                    BrokerIdentity expected = expected(nodeId);
                    return targets.size() == 1
                            ? BrokerConnection.connect(targets.get(0), attempt, loops, metrics, nodeId, expected)
                            : connectFirst(address, targets, attempt, nodeId, expected);
                })
                .doOnError(AuthenticationException.class, this::fatal)
                .doOnNext(c -> {
                    failureLog.connected(destination, address);
                    announcedApiVersionsMax = c.apiVersions().max(io.kflux.protocol.ApiKey.API_VERSIONS);
                })
                .doOnError(e -> {
                    if (!closed) {
                        failureLog.failed(destination, address, e);
                    }
                });
    }

    /** The first of {@code targets} (addresses of one name) that connects; a refused authentication ends the try. */
    private Mono<BrokerConnection> connectFirst(InetSocketAddress name, List<InetSocketAddress> targets,
                                                NetworkOptions attempt, int nodeId, BrokerIdentity expected) {
        List<Throwable> errors = new CopyOnWriteArrayList<>();
        return Flux.fromIterable(targets)
                .concatMap(t -> BrokerConnection.connect(t, attempt, loops, metrics, nodeId, expected)
                        .onErrorResume(e -> !(e instanceof AuthenticationException), e -> {
                            errors.add(e);
                            return Mono.empty();
                        }), 0)
                .next()
                .switchIfEmpty(Mono.error(() -> {
                    ConnectionFailedException e = new ConnectionFailedException(name, "could not connect to any of the "
                            + targets.size() + " addresses of " + name.getHostString() + ":" + name.getPort() + " "
                            + targets.stream().map(t -> t.getAddress().getHostAddress()).toList(),
                            errors.isEmpty() ? null : errors.get(errors.size() - 1));
                    errors.forEach(e::addSuppressed);
                    return e;
                }));
    }

    private ConnectionSlot slot(int nodeId) {
        return checkOpen(nodes.computeIfAbsent(nodeId, id -> new ConnectionSlot("node " + id, backoff)));
    }

    /** A slot created while {@link #closeAll()} ran may have been missed by it: close it here. */
    private ConnectionSlot checkOpen(ConnectionSlot slot) {
        if (closed) {
            slot.close().subscribe();
        }
        return slot;
    }

    /** Consecutive failed attempts to {@code nodeId} since its last successful connect. */
    int failures(int nodeId) {
        ConnectionSlot slot = nodes.get(nodeId);
        return slot == null ? 0 : slot.failures();
    }

    /**
     * Closes every connection (their requests in flight fail with {@link DisconnectedException})
     * and abandons connects in progress; later calls fail with {@link DisconnectedException}.
     *
     * @return completes when every channel is closed
     */
    public Mono<Void> closeAll() {
        return Mono.defer(() -> {
            closed = true;
            List<Mono<Void>> closing = new ArrayList<>();
            closing.add(bootstrap.close());
            nodes.values().forEach(slot -> closing.add(slot.close()));
            return Mono.when(closing);
        });
    }
}
