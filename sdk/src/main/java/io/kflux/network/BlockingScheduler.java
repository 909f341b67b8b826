package io.kflux.network;

import io.kflux.util.SharedScheduler;
import reactor.core.scheduler.Scheduler;

/**
 * Where kflux runs the few calls that block and must stay off the I/O loops: host name lookups through the JDK
 * resolver at each connect ({@code client.dns.lookup}) and Kerberos logins and GSSAPI steps (SASL/GSSAPI). One per
 * JVM, threads named {@value #THREAD_PREFIX}{@code -N}, at most {@link IoLoops#count()} of them.
 *
 * <p><b>Why that cap.</b> These calls are rare (one per connect or login, and the JVM caches lookups), so a thread
 * per I/O loop lets every loop have a lookup in progress. Reactor's {@code boundedElastic}, used before, grew to 10
 * threads per core while 10,000 consumers in one JVM connected (20 on 2 cores, 160 on 16), and kept them for a minute.
 * A resolver that hangs, or a KDC that answers slowly (the JDK's Kerberos waits up to 30 s per try, 3 tries), now
 * makes further connects of every consumer in the JVM queue behind the calls in progress instead of adding threads;
 * {@code socket.connection.setup.timeout.ms} does not cover the lookup, as in the official client.
 */
public final class BlockingScheduler {
    /** The prefix of every such thread's name. */
    public static final String THREAD_PREFIX = "kflux-blocking";

    private static final SharedScheduler SHARED = new SharedScheduler(THREAD_PREFIX, BlockingScheduler::threadCap);

    private BlockingScheduler() {
    }

    /** @return the most threads it runs at once: {@link IoLoops#count()} */
    public static int threadCap() {
        return Math.max(1, IoLoops.count());
    }

    /** The JVM-wide scheduler for blocking calls; never dispose it. */
    public static Scheduler shared() {
        return SHARED.get();
    }
}
