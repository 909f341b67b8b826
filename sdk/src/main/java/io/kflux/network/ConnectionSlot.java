package io.kflux.network;

import java.time.Duration;
import java.util.function.Supplier;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * The connection state of one destination (a broker node, or "the bootstrap servers"): the open
 * connection, or the attempt in progress that every concurrent caller shares, and the reconnect
 * backoff. The monitor guards only field updates; signals are emitted outside it.
 */
final class ConnectionSlot {
    private final String name;
    private final ReconnectBackoff backoff;

    private BrokerConnection connection;
    private Object connectionKey;
    private Sinks.One<BrokerConnection> attempt;
    private Disposable attemptSubscription;
    private int failures;
    private long nextAttemptNanos;
    private boolean closed;

    ConnectionSlot(String name, ReconnectBackoff backoff) {
        this.name = name;
        this.backoff = backoff;
    }

    /**
     * The open connection for {@code key}, or a shared attempt to make one with {@code connector},
     * started after the backoff still due. An open connection for another key (the node moved) is
     * closed and replaced.
     */
    Mono<BrokerConnection> get(Object key, Supplier<Mono<BrokerConnection>> connector) {
        BrokerConnection stale = null;
        Mono<BrokerConnection> result;
        synchronized (this) {
            if (closed) {
                return Mono.error(new DisconnectedException("connections of " + name + " are closed"));
            }
            if (connection != null && connection.isOpen() && connectionKey.equals(key)) {
                return Mono.just(connection);
            }
            if (connection != null) {
                stale = connection.isOpen() ? connection : null;
                connection = null;
            }
            result = (attempt != null ? attempt : start(key, connector)).asMono();
        }
        if (stale != null) {
            stale.close().subscribe();
        }
        return result;
    }

    private Sinks.One<BrokerConnection> start(Object key, Supplier<Mono<BrokerConnection>> connector) {
        Sinks.One<BrokerConnection> sink = Sinks.one();
        attempt = sink;
        long delayNanos = nextAttemptNanos - System.nanoTime();
        Mono<BrokerConnection> connect = Mono.defer(connector);
        if (delayNanos > 0) {
            connect = Mono.delay(Duration.ofNanos(delayNanos)).then(connect);
        }
        // Subscribed here, not by the callers: a caller that cancels must not cancel the others' attempt.
        Disposable subscription = connect.subscribe(c -> onConnected(sink, key, c), e -> onFailed(sink, e));
        if (attempt == sink) {
            attemptSubscription = subscription;
        }
        return sink;
    }

    private void onConnected(Sinks.One<BrokerConnection> sink, Object key, BrokerConnection c) {
        boolean keep;
        synchronized (this) {
            if (attempt == sink) {
                attempt = null;
                attemptSubscription = null;
            }
            keep = !closed;
            if (keep) {
                connection = c;
                connectionKey = key;
                failures = 0;
                nextAttemptNanos = 0;
            }
        }
        if (!keep) {
            c.close().subscribe();
            sink.tryEmitError(new DisconnectedException("connections of " + name + " were closed while connecting"));
            return;
        }
        c.onClose().subscribe(null, e -> onClosed(c), () -> onClosed(c));
        sink.tryEmitValue(c);
    }

    private void onFailed(Sinks.One<BrokerConnection> sink, Throwable error) {
        synchronized (this) {
            if (attempt == sink) {
                attempt = null;
                attemptSubscription = null;
            }
            failures++;
            nextAttemptNanos = System.nanoTime() + Duration.ofMillis(backoff.delayMs(failures)).toNanos();
        }
        sink.tryEmitError(error);
    }

    /**
     * A dropped connection counts as one failure, as in the official client: reconnecting waits
     * {@code reconnect.backoff.ms}, which keeps a broker that accepts and then drops connections
     * from being hammered.
     */
    private void onClosed(BrokerConnection c) {
        synchronized (this) {
            if (connection != c) {
                return;
            }
            connection = null;
            failures = 1;
            nextAttemptNanos = System.nanoTime() + Duration.ofMillis(backoff.delayMs(1)).toNanos();
        }
    }

    /** Closes the open connection and abandons any attempt; later {@link #get} calls fail. */
    Mono<Void> close() {
        BrokerConnection open;
        Sinks.One<BrokerConnection> pending;
        Disposable subscription;
        synchronized (this) {
            closed = true;
            open = connection;
            connection = null;
            pending = attempt;
            attempt = null;
            subscription = attemptSubscription;
            attemptSubscription = null;
        }
        if (subscription != null) {
            subscription.dispose();
        }
        if (pending != null) {
            pending.tryEmitError(new DisconnectedException("connections of " + name + " were closed while connecting"));
        }
        return open == null ? Mono.empty() : open.close();
    }

    /** Consecutive failed attempts since the last success (a dropped connection counts as one). */
    synchronized int failures() {
        return failures;
    }
}
