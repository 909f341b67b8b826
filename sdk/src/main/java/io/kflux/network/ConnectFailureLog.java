package io.kflux.network;

import io.kflux.util.LogContext;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.NoRouteToHostException;
import java.net.UnknownHostException;
import java.nio.channels.UnresolvedAddressException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import javax.net.ssl.SSLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Says why connecting to a broker failed, at WARN, as the official client does for every failed connection: the
 * address as the user wrote it ({@code host:port}, not {@code InetSocketAddress}'s {@code host/<unresolved>:port})
 * and the reason (refused, unresolvable, timed out, TLS). Rate-limited per address: the first failure and a changed
 * reason are logged at once, a repeated one at most every {@link #WARN_INTERVAL_NANOS} with the count of attempts in
 * between (which go to DEBUG); a success after a warning is logged at INFO.
 */
final class ConnectFailureLog {
    private static final Logger log = LoggerFactory.getLogger(NodeConnections.class);
    static final long WARN_INTERVAL_NANOS = 10_000_000_000L;

    private final LogContext logContext;
    private final Map<String, Failures> byAddress = new ConcurrentHashMap<>();

    /** Failures of one address since its last success. */
    private static final class Failures {
        long lastWarnNanos;
        int sinceWarn;
        String lastReason;
    }

    ConnectFailureLog(LogContext logContext) {
        this.logContext = logContext;
    }

    /** {@code destination} is e.g. "node 1" or "bootstrap server". */
    void failed(String destination, InetSocketAddress address, Throwable error) {
        if (error instanceof DisconnectedException) {
            return; // closed by us, not a failure to report
        }
        String where = format(address);
        String reason = reason(error);
        long now = System.nanoTime();
        boolean warn;
        int skipped;
        Failures f = byAddress.computeIfAbsent(where, k -> new Failures());
        synchronized (f) {
            warn = f.lastReason == null || !f.lastReason.equals(reason) || now - f.lastWarnNanos >= WARN_INTERVAL_NANOS;
            skipped = f.sinceWarn;
            f.lastReason = reason;
            if (warn) {
                f.lastWarnNanos = now;
                f.sinceWarn = 0;
            } else {
                f.sinceWarn++;
            }
        }
        logContext.run(() -> {
            if (warn) {
                log.warn("Connection to {} ({}) could not be established: {}{}", destination, where, reason,
                        skipped == 0 ? "" : " (" + skipped + " more failed attempts since the last warning)");
            } else {
                log.debug("Connection to {} ({}) could not be established: {}", destination, where, reason);
            }
        });
    }

    void connected(String destination, InetSocketAddress address) {
        Failures f = byAddress.remove(format(address));
        if (f != null) {
            logContext.run(() -> log.info("Connected to {} ({}) after failed attempts", destination, format(address)));
        }
    }

    /** {@code host:port} as configured or as metadata named it, never resolved. */
    static String format(InetSocketAddress address) {
        return io.kflux.util.HostPort.of(address);
    }

    /** The reason a user can act on, from the cause chain. */
    static String reason(Throwable error) {
        for (Throwable t = error; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof UnknownHostException || t instanceof UnresolvedAddressException) {
                return "the host name does not resolve (unresolvable address)";
            }
            if (t instanceof SSLException) {
                return "TLS handshake failed: " + t.getMessage();
            }
            if (t instanceof NoRouteToHostException) {
                return "no route to host";
            }
            if (t.getClass().getName().equals("io.netty.channel.ConnectTimeoutException")) {
                return "connect timed out (socket.connection.setup.timeout.ms)";
            }
            if (t instanceof ConnectException) {
                String m = String.valueOf(t.getMessage());
                return m.contains("refused") ? "connection refused (nothing listens on that port)" : m;
            }
            if (t instanceof RequestTimeoutException) {
                return "no answer to ApiVersions within request.timeout.ms (is it a Kafka broker, with the expected"
                        + " security.protocol?)";
            }
        }
        Throwable root = error;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root.toString();
    }
}
