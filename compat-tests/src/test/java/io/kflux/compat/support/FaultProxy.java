package io.kflux.compat.support;

import io.kflux.test.broker.EmbeddedKafkaCluster;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A loopback TCP proxy in front of one broker listener that injects network faults between a healthy broker and
 * its clients. Place it so the broker advertises the proxy's address (a listener whose {@code advertised.listeners}
 * entry is {@link #address()}), and every client connection to that listener goes through it.
 *
 * <p>Faults, for all connections at once or one {@link Link} at a time:
 * <ul>
 *   <li>{@link #resetAll()} / {@link Link#reset()}: close with RST (SO_LINGER 0) at once;
 *       {@link Link#resetAfterResponseBytes}: RST once that many more broker-to-client bytes were forwarded, so the
 *       cut lands inside a response;</li>
 *   <li>{@link #blackHole(boolean)}: forward nothing in either direction and keep the sockets open (what a dead
 *       peer or a dropped route looks like);</li>
 *   <li>{@link #latency(Duration)}: hold every chunk that long before forwarding it;</li>
 *   <li>{@link #bandwidth(long)}: cap each direction of each connection to that many bytes per second;</li>
 *   <li>{@link #refuseNewConnections(Duration)}: close the listening socket for that long (clients get
 *       ECONNREFUSED) while established connections keep working.</li>
 * </ul>
 * {@link Link#requests(int)} counts the requests of one API key a connection forwarded (read from the frames' headers
 * as they pass), so a test can pick a client's connection by what it carries (its group coordinator's: JoinGroup).
 * Plain blocking sockets with two threads per connection: simple, and a test has a handful of connections.
 */
public final class FaultProxy implements AutoCloseable {
    private static final int CHUNK = 16 * 1024;

    private volatile InetSocketAddress target;
    private final int port;
    private final List<Link> links = new CopyOnWriteArrayList<>();
    private final AtomicInteger accepted = new AtomicInteger();
    private volatile ServerSocket server;
    private volatile boolean closed;
    private volatile boolean blackHole;
    private volatile long latencyNanos;
    private volatile long bytesPerSecond;

    /**
     * Starts listening on an ephemeral loopback port (see {@link #port()}); the target need not be up yet.
     *
     * @param targetPort the broker listener's port on 127.0.0.1
     */
    public FaultProxy(int targetPort) throws IOException {
        this.target = new InetSocketAddress(InetAddress.getLoopbackAddress(), targetPort);
        this.server = bind(0);
        this.port = server.getLocalPort();
        startAcceptor(server);
    }

    /**
     * A proxy in front of a free loopback port, where {@link #brokerBehind()} puts a broker listener.
     */
    public static FaultProxy onFreePort() throws IOException {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        return new FaultProxy(port);
    }

    /**
     * A one-node broker (the tests' broker version) with a FAULTY listener on this proxy's target port, advertised as
     * this proxy: clients that bootstrap from {@link #address()} go through the proxy on every connection, clients
     * that bootstrap from the cluster's own {@code bootstrapServers()} (PLAINTEXT) never do. Add properties, then
     * {@code start()}.
     */
    public EmbeddedKafkaCluster.Builder brokerBehind() {
        return EmbeddedKafkaCluster.builder()
                .classpath(BrokerVersion.current().classpath())
                .brokerJvmArgs("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC")
                .brokerProperty("listeners", "PLAINTEXT://127.0.0.1:${port},CONTROLLER://127.0.0.1:${controllerPort},"
                        + "FAULTY://127.0.0.1:" + target.getPort())
                .brokerProperty("advertised.listeners", "PLAINTEXT://127.0.0.1:${port},FAULTY://" + address())
                .brokerProperty("listener.security.protocol.map",
                        "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT,FAULTY:PLAINTEXT");
    }

    /**
     * Sends new connections to {@code targetPort} on 127.0.0.1 from now on (established ones stay where they are):
     * what a load balancer or DNS name in front of a replaced broker does.
     */
    public void retarget(int targetPort) {
        this.target = new InetSocketAddress(InetAddress.getLoopbackAddress(), targetPort);
    }

    /** @return the port clients connect to */
    public int port() {
        return port;
    }

    /** @return {@code 127.0.0.1:port}, what the broker should advertise */
    public String address() {
        return "127.0.0.1:" + port;
    }

    /** @return connections accepted so far */
    public int acceptedConnections() {
        return accepted.get();
    }

    /** @return connections open now */
    public List<Link> links() {
        return List.copyOf(links);
    }

    /** Resets every open connection at once. */
    public void resetAll() {
        links.forEach(Link::reset);
    }

    /** Starts or stops forwarding nothing on every connection, open now or later. */
    public void blackHole(boolean on) {
        blackHole = on;
    }

    /** Delays every chunk, both directions, by {@code latency} (zero: none). */
    public void latency(Duration latency) {
        latencyNanos = latency.toNanos();
    }

    /** Caps each direction of each connection to {@code bytesPerSecond} (0: no cap). */
    public void bandwidth(long bytesPerSecond) {
        this.bytesPerSecond = bytesPerSecond;
    }

    /**
     * Closes the listening socket for {@code duration}, then listens on the same port again; established
     * connections are not touched.
     */
    public synchronized void refuseNewConnections(Duration duration) throws IOException {
        server.close();
        Thread reopen = new Thread(() -> {
            sleepNanos(duration.toNanos());
            synchronized (this) {
                if (closed) {
                    return;
                }
                try {
                    server = bind(port);
                    startAcceptor(server);
                } catch (IOException e) {
                    throw new IllegalStateException("cannot listen on " + port + " again", e);
                }
            }
        }, "fault-proxy-reopen-" + port);
        reopen.setDaemon(true);
        reopen.start();
    }

    /** Clears every fault (connections already reset stay closed). */
    public void heal() {
        blackHole = false;
        latencyNanos = 0;
        bytesPerSecond = 0;
    }

    @Override
    public synchronized void close() throws IOException {
        closed = true;
        server.close();
        resetAll();
    }

    /**
     * Stops a test class's broker and then the proxy in front of it ({@link #brokerBehind()}); either may be null (its
     * start failed or was skipped).
     */
    public static void closeBoth(EmbeddedKafkaCluster kafka, FaultProxy proxy) throws IOException {
        if (kafka != null) {
            kafka.close();
        }
        if (proxy != null) {
            proxy.close();
        }
    }

    private static ServerSocket bind(int port) throws IOException {
        ServerSocket s = new ServerSocket();
        s.setReuseAddress(true);
        s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
        return s;
    }

    private void startAcceptor(ServerSocket listening) {
        Thread acceptor = new Thread(() -> {
            while (!closed && !listening.isClosed()) {
                try {
                    Socket client = listening.accept();
                    accepted.incrementAndGet();
                    Socket upstream = new Socket();
                    try {
                        upstream.connect(target, 5_000);
                    } catch (IOException e) {
                        rst(client);
                        continue;
                    }
                    Link link = new Link(client, upstream);
                    links.add(link);
                    link.start();
                } catch (IOException e) {
                    return; // closed, or refusing for a while
                }
            }
        }, "fault-proxy-accept-" + port);
        acceptor.setDaemon(true);
        acceptor.start();
    }

    /** One proxied connection: client to broker (requests) and broker to client (responses). */
    public final class Link {
        private final Socket client;
        private final Socket upstream;
        private final AtomicLong responseBytes = new AtomicLong();
        private volatile long resetAtResponseBytes = Long.MAX_VALUE;
        private volatile boolean blackHoled;
        private volatile boolean done;
        /** Requests forwarded, by API key; written by the requests pump only. */
        private final Map<Integer, AtomicInteger> requests = new ConcurrentHashMap<>();
        /** The current request frame's size (int32) and API key (int16) as far as read. */
        private final byte[] frameHead = new byte[6];
        private int frameHeadRead;
        /** Bytes of the current request frame still to pass after its head. */
        private long frameLeft;

        Link(Socket client, Socket upstream) {
            this.client = client;
            this.upstream = upstream;
        }

        void start() {
            pump(client, upstream, false, "requests");
            pump(upstream, client, true, "responses");
        }

        /** Closes both sides with RST. */
        public void reset() {
            if (done) {
                return;
            }
            done = true;
            links.remove(this);
            rst(client);
            rst(upstream);
        }

        /** Resets once {@code bytes} more broker-to-client bytes were forwarded (inside a response, usually). */
        public void resetAfterResponseBytes(long bytes) {
            resetAtResponseBytes = responseBytes.get() + bytes;
        }

        /** Forwards nothing on this connection while on. */
        public void blackHole(boolean on) {
            blackHoled = on;
        }

        /** @return requests of {@code apiKey} (Kafka's API key: 11 JoinGroup, 12 Heartbeat, ...) forwarded so far */
        public int requests(int apiKey) {
            AtomicInteger n = requests.get(apiKey);
            return n == null ? 0 : n.get();
        }

        /** Follows the request frames (int32 size, then the header's int16 API key) through a forwarded chunk. */
        private void countRequests(byte[] buf, int n) {
            int i = 0;
            while (i < n) {
                if (frameLeft > 0) {
                    int skip = (int) Math.min(frameLeft, n - i);
                    frameLeft -= skip;
                    i += skip;
                    continue;
                }
                frameHead[frameHeadRead++] = buf[i++];
                if (frameHeadRead == frameHead.length) {
                    int size = ((frameHead[0] & 0xff) << 24) | ((frameHead[1] & 0xff) << 16)
                            | ((frameHead[2] & 0xff) << 8) | (frameHead[3] & 0xff);
                    int apiKey = ((frameHead[4] & 0xff) << 8) | (frameHead[5] & 0xff);
                    requests.computeIfAbsent(apiKey, k -> new AtomicInteger()).incrementAndGet();
                    frameLeft = size - 2L;
                    frameHeadRead = 0;
                }
            }
        }

        /** @return broker-to-client bytes forwarded so far */
        public long responseBytes() {
            return responseBytes.get();
        }

        private void pump(Socket from, Socket to, boolean responses, String what) {
            Thread t = new Thread(() -> {
                byte[] buf = new byte[CHUNK];
                try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                    while (!done) {
                        while ((blackHole || blackHoled) && !done) {
                            sleepNanos(5_000_000L);
                        }
                        int n = in.read(buf);
                        if (n < 0) {
                            break;
                        }
                        long received = System.nanoTime();
                        long delay = latencyNanos;
                        if (delay > 0) {
                            sleepNanos(received + delay - System.nanoTime());
                        }
                        while ((blackHole || blackHoled) && !done) {
                            sleepNanos(5_000_000L); // a black hole that started meanwhile holds this chunk too
                        }
                        int off = 0;
                        while (off < n && !done) {
                            int len = n - off;
                            if (responses) {
                                long left = resetAtResponseBytes - responseBytes.get();
                                if (left <= 0) {
                                    reset();
                                    return;
                                }
                                len = (int) Math.min(len, left);
                            }
                            long rate = bytesPerSecond;
                            if (rate > 0) {
                                len = (int) Math.min(len, Math.max(1, rate / 20));
                            }
                            out.write(buf, off, len);
                            out.flush();
                            off += len;
                            if (responses) {
                                responseBytes.addAndGet(len);
                            }
                            if (rate > 0) {
                                sleepNanos(len * 1_000_000_000L / rate);
                            }
                        }
                        if (!responses) {
                            countRequests(buf, n);
                        }
                    }
                } catch (IOException e) {
                    // the other side closed or was reset: end this connection
                }
                reset();
            }, "fault-proxy-" + port + "-" + what);
            t.setDaemon(true);
            t.start();
        }
    }

    private static void rst(Socket s) {
        try {
            s.setSoLinger(true, 0);
        } catch (SocketException e) {
            // already closed
        }
        try {
            s.close();
        } catch (IOException e) {
            // nothing left to do
        }
    }

    private static void sleepNanos(long nanos) {
        if (nanos <= 0) {
            return;
        }
        try {
            Thread.sleep(nanos / 1_000_000L, (int) (nanos % 1_000_000L));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
