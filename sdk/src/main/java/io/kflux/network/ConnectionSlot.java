package io.kflux.network;

import io.kflux.util.Backoff;
import io.kflux.util.SharedAttempt;

import java.time.Duration;
import java.util.function.IntFunction;
import reactor.core.publisher.Mono;

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
    /** The connect in progress that every concurrent caller shares. */
    private final SharedAttempt<BrokerConnection> attempt = new SharedAttempt<>();
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
            result = attempt.join(() -> connect(key, connector));
        }
        if (stale != null) {
            stale.close().subscribe();
        }
        return result;
    }

    /**
     * One attempt, after the backoff still due; started by {@link SharedAttempt} outside the monitor, so that no caller
     * waits while a connect is set up, and subscribed there, so that a caller that cancels does not cancel the others'.
     */
    private Mono<BrokerConnection> connect(Object key, IntFunction<Mono<BrokerConnection>> connector) {
        long delayNanos;
        int priorFailures;
        synchronized (this) {
            delayNanos = nextAttemptNanos - System.nanoTime();
            priorFailures = failures;
        }
        Mono<BrokerConnection> connect = Mono.defer(() -> connector.apply(priorFailures));
        if (delayNanos > 0) {
            connect = Mono.delay(Duration.ofNanos(delayNanos), IoLoops.timers()).then(connect);
        }
        return connect.doOnError(e -> onFailed()).flatMap(c -> onConnected(key, c));
    }

    private Mono<BrokerConnection> onConnected(Object key, BrokerConnection c) {
        boolean keep;
        synchronized (this) {
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
            return Mono.error(new DisconnectedException("connections of " + name + " were closed while connecting"));
        }
        c.onClose().subscribe(null, e -> onClosed(c), () -> onClosed(c));
        return Mono.just(c);
    }

    private synchronized void onFailed() {
        failures++;
        lastFailureNanos = System.nanoTime();
        nextAttemptNanos = lastFailureNanos + Duration.ofMillis(backoff.delayMs(failures)).toNanos();
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
        synchronized (this) {
            closed = true;
            open = connection;
            connection = null;
        }
        attempt.abandon(new DisconnectedException("connections of " + name + " were closed while connecting"));
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
