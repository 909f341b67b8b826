package io.kflux.network;

import io.kflux.util.Backoff;

import java.time.Duration;
import java.util.function.IntFunction;
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
    private final Backoff backoff;

    private BrokerConnection connection;
    private Object connectionKey;
    private Sinks.One<BrokerConnection> attempt;
    private Disposable attemptSubscription;
    private int failures;
    private long nextAttemptNanos;
    /** When the last connect succeeded / the last one failed or an open connection dropped (nanoTime; 0 never). */
    private long lastSuccessNanos;
    private long lastFailureNanos;
    private boolean closed;

    ConnectionSlot(String name, Backoff backoff) {
        this.name = name;
        this.backoff = backoff;
    }

    /**
     * The open connection for {@code key}, or a shared attempt to make one with {@code connector},
     * started after the backoff still due; {@code connector} is given the number of consecutive failed
     * attempts before this one (for the growing setup timeout). An open connection for another key (the
     * node moved) is closed and replaced.
     */
    Mono<BrokerConnection> get(Object key, IntFunction<Mono<BrokerConnection>> connector) {
        BrokerConnection stale = null;
        Sinks.One<BrokerConnection> created = null;
        long delayNanos = 0;
        int priorFailures = 0;
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
            if (attempt == null) {
                created = Sinks.one();
                attempt = created;
                delayNanos = nextAttemptNanos - System.nanoTime();
                priorFailures = failures;
            }
            result = attempt.asMono();
        }
        if (stale != null) {
            stale.close().subscribe();
        }
        if (created != null) {
            launch(created, key, connector, delayNanos, priorFailures);
        }
        return result;
    }

    /**
     * Subscribed here, not by the callers, so that a caller that cancels does not cancel the
     * others' attempt; outside the monitor, so that no caller waits while a connect is set up.
     */
    private void launch(Sinks.One<BrokerConnection> sink, Object key, IntFunction<Mono<BrokerConnection>> connector,
                        long delayNanos, int priorFailures) {
        Mono<BrokerConnection> connect = Mono.defer(() -> connector.apply(priorFailures));
        if (delayNanos > 0) {
            connect = Mono.delay(Duration.ofNanos(delayNanos)).then(connect);
        }
        Disposable subscription = connect.subscribe(c -> onConnected(sink, key, c), e -> onFailed(sink, e));
        boolean abandoned;
        synchronized (this) {
            abandoned = closed && attempt != sink;
            if (attempt == sink) {
                attemptSubscription = subscription;
            }
        }
        if (abandoned) {
            subscription.dispose(); // close() ran before the subscription could be recorded
        }
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
                lastSuccessNanos = System.nanoTime();
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
            lastFailureNanos = System.nanoTime();
            nextAttemptNanos = lastFailureNanos + Duration.ofMillis(backoff.delayMs(failures)).toNanos();
        }
        sink.tryEmitError(error);
    }

    /**
     * A dropped connection counts as one failure, as in the official client: reconnecting waits
     * {@code reconnect.backoff.ms}, which keeps a broker that accepts and then drops connections
     * from being hammered. A connection closed for being idle is no failure.
     */
    private void onClosed(BrokerConnection c) {
        synchronized (this) {
            if (connection != c) {
                return;
            }
            connection = null;
            if (c.closedWhileIdle()) {
                failures = 0;
                nextAttemptNanos = 0;
                return;
            }
            failures = 1;
            lastFailureNanos = c.closedAtNanos() != 0 ? c.closedAtNanos() : System.nanoTime();
            nextAttemptNanos = lastFailureNanos + Duration.ofMillis(backoff.delayMs(1)).toNanos();
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

    /** The open connection, or null. */
    synchronized BrokerConnection open() {
        return connection != null && connection.isOpen() ? connection : null;
    }

    /** When the last connect succeeded (nanoTime), 0 if none has. */
    synchronized long lastSuccessNanos() {
        return lastSuccessNanos;
    }

    /**
     * When the last connect failed or the last connection dropped (a request timeout drops it), 0 if never. A drop
     * counts from the moment the connection closed, before {@link #onClosed} has run: a caller retrying at once
     * after its request failed for the drop must see it.
     */
    synchronized long lastFailureNanos() {
        long failed = lastFailureNanos;
        if (connection != null && !connection.closedWhileIdle()) {
            long closedAt = connection.closedAtNanos();
            if (closedAt != 0 && (failed == 0 || closedAt - failed > 0)) {
                failed = closedAt;
            }
        }
        return failed;
    }
}
