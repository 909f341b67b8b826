package io.kflux.test.broker;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;

/**
 * A real Apache Kafka cluster in KRaft mode whose nodes are forked JVMs running {@code kafka.Kafka}
 * from the classpath of this JVM, each node acting as both broker and controller.
 *
 * <pre>{@code
 * try (EmbeddedKafkaCluster kafka = EmbeddedKafkaCluster.startCluster(3)) {
 *     kafka.createTopic("orders", 8, 3);
 *     SampleData.produce(kafka.bootstrapServers(), "orders", 1000);
 *     kafka.stop(1);   // clean shutdown of node 1; kill(1) and pause(1) simulate harsher faults
 *     kafka.start(1);  // the same node, with its data, rejoins
 * }
 * }</pre>
 *
 * <p>Node ids are 1..n. Each node's files (configuration, data, {@code broker.log}) live in
 * {@link #dataDir()}, which {@link #close()} deletes unless the system property
 * {@code kflux.broker.keepData} is {@code true}. A JVM shutdown hook kills the brokers of any
 * cluster that was not closed. Methods are safe to call from several threads.
 *
 * <p>Defaults differ from a production broker where tests need it: internal topics are
 * replicated min(n, 3) times with {@code min.insync.replicas} 2 from three nodes on, no topic is
 * auto-created, the first classic rebalance is not delayed, and a broker's controller session
 * expires after 6 s instead of 9 s. {@link Builder#brokerProperty} overrides any of them.
 */
public final class EmbeddedKafkaCluster implements AutoCloseable {

    private static final Duration ADMIN_CALL_TIMEOUT = Duration.ofSeconds(30);

    private final String clusterId = newClusterId();
    private final Path root;
    private final List<BrokerNode> nodes = new ArrayList<>();
    private final JavaLauncher launcher;
    private final Duration startupTimeout;
    private final Duration stopTimeout;
    private final List<String> jvmArgs;
    private final List<String> formatArgs;
    private Admin admin;
    private volatile boolean closed;

    private EmbeddedKafkaCluster(Builder builder) throws IOException {
        this.startupTimeout = builder.startupTimeout;
        this.stopTimeout = builder.stopTimeout;
        this.jvmArgs = List.copyOf(builder.jvmArgs);
        this.formatArgs = List.copyOf(builder.formatArgs);
        this.root = Files.createTempDirectory("kflux-kafka-");
        String classpath = builder.classpath != null ? builder.classpath : KafkaClasspath.resolve(root.resolve("logging"));
        this.launcher = new JavaLauncher(classpath, root);
        int perNode = 2 + builder.listeners.size();
        List<Integer> ports = FreePorts.pick(perNode * builder.nodes);
        for (int i = 0; i < builder.nodes; i++) {
            int nodeId = i + 1;
            Path dir = Files.createDirectories(root.resolve("node-" + nodeId));
            Map<String, Integer> extra = new LinkedHashMap<>();
            int next = perNode * i + 2;
            for (String name : builder.listeners.keySet()) {
                extra.put(name, ports.get(next++));
            }
            nodes.add(new BrokerNode(nodeId, ports.get(perNode * i), ports.get(perNode * i + 1), dir, extra));
        }
        for (BrokerNode node : nodes) {
            Files.writeString(node.serverProperties(), BrokerProperties.server(node, nodes, builder.listeners,
                    builder.brokerProperties), StandardCharsets.UTF_8);
            Files.writeString(node.log4jProperties(), BrokerProperties.log4j(), StandardCharsets.UTF_8);
        }
    }

    /**
     * Starts a cluster of {@code nodes} nodes with default settings and waits until it is ready.
     *
     * @throws BrokerStartException if a node fails or is not ready within two minutes
     */
    public static EmbeddedKafkaCluster startCluster(int nodes) {
        return builder().nodes(nodes).start();
    }

    /** @return a builder for a cluster with non-default settings */
    public static Builder builder() {
        return new Builder();
    }

    private void startAll() {
        BrokerShutdownHook.register(this);
        Instant deadline = ClusterProbe.deadline(startupTimeout);
        // all nodes format and then start together: a controller quorum needs a majority to elect
        List<Process> formats = nodes.stream().map(node -> node.startFormat(launcher, clusterId, formatArgs)).toList();
        for (int i = 0; i < nodes.size(); i++) {
            nodes.get(i).awaitFormatted(formats.get(i), startupTimeout);
        }
        nodes.forEach(node -> node.launch(launcher, jvmArgs));
        nodes.forEach(node -> node.awaitListening(deadline));
        try (Admin probe = ClusterProbe.impatientAdmin(bootstrapServers())) {
            ClusterProbe.awaitBrokers(probe, Set.copyOf(nodeIds()), deadline, this::checkAllAlive);
            ClusterProbe.createOffsetsTopic(probe, Math.min(nodes.size(), 3), deadline, this::checkAllAlive);
        } catch (IllegalStateException notReady) {
            // no single node is to blame, and the logs are deleted with the cluster: keep them all
            StringBuilder logs = new StringBuilder(notReady.getMessage());
            for (BrokerNode node : nodes) {
                logs.append("\n--- last lines of ").append(node.logFile()).append(" ---\n")
                        .append(BrokerNode.tail(node.logFile()));
            }
            throw new BrokerStartException(logs.toString(), notReady);
        }
    }

    private void checkAllAlive() {
        nodes.forEach(BrokerNode::checkAlive);
    }

    /** @return the PLAINTEXT addresses of all nodes, running or not, comma separated */
    public String bootstrapServers() {
        return nodes.stream().map(BrokerNode::address).collect(Collectors.joining(","));
    }

    /**
     * @param listener the name of a listener added with {@link Builder#listener}
     * @return the addresses of that listener on all nodes, comma separated
     * @throws IllegalArgumentException if there is no such listener
     */
    public String bootstrapServers(String listener) {
        if (!nodes.get(0).listenerPorts().containsKey(listener)) {
            throw new IllegalArgumentException("no listener " + listener + "; listeners: " + nodes.get(0).listenerPorts().keySet());
        }
        return nodes.stream().map(n -> "127.0.0.1:" + n.listenerPorts().get(listener)).collect(Collectors.joining(","));
    }

    /**
     * @param nodeId a node id from {@link #nodeIds()}
     * @return that node's PLAINTEXT address, {@code 127.0.0.1:port}; the port stays the same across restarts
     */
    public String address(int nodeId) {
        return node(nodeId).address();
    }

    /** @return the node ids, 1..n */
    public List<Integer> nodeIds() {
        return nodes.stream().map(BrokerNode::nodeId).toList();
    }

    /** @return the KRaft cluster id all nodes were formatted with */
    public String clusterId() {
        return clusterId;
    }

    /** @return the folder holding one {@code node-<id>} folder per node */
    public Path dataDir() {
        return root;
    }

    /**
     * @param nodeId a node id
     * @return the file receiving that node's log output, kept across restarts
     */
    public Path logFile(int nodeId) {
        return node(nodeId).logFile();
    }

    /**
     * @param nodeId a node id
     * @return whether that node's JVM is alive (a paused node is alive)
     */
    public boolean isRunning(int nodeId) {
        return node(nodeId).isRunning();
    }

    /**
     * @param nodeId a node id
     * @return whether that node is frozen by {@link #pause(int)}
     */
    public boolean isPaused(int nodeId) {
        return node(nodeId).isPaused();
    }

    /**
     * Shuts a node down cleanly (SIGTERM, so leadership moves away in a controlled shutdown), and
     * kills it if it has not exited within the stop timeout. Does nothing if it is not running.
     *
     * @param nodeId a node id
     */
    public synchronized void stop(int nodeId) {
        BrokerNode node = node(nodeId);
        node.terminate();
        if (!node.awaitExit(ClusterProbe.deadline(stopTimeout))) {
            node.kill();
        }
    }

    /**
     * Kills a node at once (SIGKILL), as a crash or power loss would. Does nothing if it is not running.
     *
     * @param nodeId a node id
     */
    public synchronized void kill(int nodeId) {
        node(nodeId).kill();
    }

    /**
     * Freezes a node (SIGSTOP): its sockets stay open but it answers nothing, like a long GC
     * pause or a network partition.
     *
     * @param nodeId a running node's id
     */
    public synchronized void pause(int nodeId) {
        node(nodeId).pause();
    }

    /**
     * Thaws a node frozen by {@link #pause(int)} (SIGCONT).
     *
     * @param nodeId a running node's id
     */
    public synchronized void resume(int nodeId) {
        node(nodeId).resume();
    }

    /**
     * Starts a stopped or killed node again with its data and ports, and waits until the cluster
     * lists it as a live broker.
     *
     * @param nodeId the id of a node that is not running
     * @throws IllegalStateException if the node is running
     * @throws BrokerStartException if it is not back within the startup timeout
     */
    public synchronized void start(int nodeId) {
        checkOpen();
        BrokerNode node = node(nodeId);
        node.launch(launcher, jvmArgs);
        Instant deadline = ClusterProbe.deadline(startupTimeout);
        node.awaitListening(deadline);
        String live = nodes.stream().filter(BrokerNode::isRunning).map(BrokerNode::address)
                .collect(Collectors.joining(","));
        try (Admin probe = ClusterProbe.impatientAdmin(live)) {
            ClusterProbe.awaitBrokers(probe, Set.of(nodeId), deadline, node::checkAlive);
        } catch (IllegalStateException notReady) {
            throw node.failure(notReady.getMessage(), node.logFile(), notReady);
        }
    }

    /**
     * An official Admin client for this cluster, created on first use and closed by {@link #close()}.
     *
     * @return the shared Admin client; do not close it
     */
    public synchronized Admin admin() {
        checkOpen();
        if (admin == null) {
            Properties props = new Properties();
            props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
            props.put(AdminClientConfig.CLIENT_ID_CONFIG, "kflux-embedded-admin");
            admin = Admin.create(props);
        }
        return admin;
    }

    /**
     * Creates a topic and waits until every partition has a leader.
     *
     * @param name              topic name
     * @param partitions        number of partitions
     * @param replicationFactor replicas per partition, at most the number of nodes
     */
    public void createTopic(String name, int partitions, int replicationFactor) {
        createTopic(name, partitions, replicationFactor, Map.of());
    }

    /**
     * Creates a topic with topic-level configs (e.g. {@code cleanup.policy}) and waits until every
     * partition has a leader.
     *
     * @param name              topic name
     * @param partitions        number of partitions
     * @param replicationFactor replicas per partition, at most the number of nodes
     * @param configs           topic configs
     * @throws org.apache.kafka.common.KafkaException as reported by the broker, e.g.
     *         {@link org.apache.kafka.common.errors.TopicExistsException}
     */
    public void createTopic(String name, int partitions, int replicationFactor, Map<String, String> configs) {
        NewTopic topic = new NewTopic(name, partitions, (short) replicationFactor).configs(configs);
        try {
            admin().createTopics(List.of(topic)).all().get(ADMIN_CALL_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException cause) {
                throw cause;
            }
            throw new IllegalStateException("cannot create topic " + name, e.getCause());
        } catch (TimeoutException e) {
            throw new IllegalStateException("creating topic " + name + " timed out", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while creating topic " + name, e);
        }
        ClusterProbe.awaitLeaders(admin(), name, 1, ClusterProbe.deadline(ADMIN_CALL_TIMEOUT));
    }

    /**
     * Kills every node (SIGKILL) and deletes the data folder. No clean shutdown is attempted: the
     * data is about to go, and nodes stopping together wait on each other's controllers for
     * seconds. Use {@link #stop(int)} first where a clean shutdown matters.
     */
    @Override
    public void close() {
        Admin toClose;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            toClose = admin;
            admin = null;
        }
        try {
            nodes.forEach(BrokerNode::killNow);
            nodes.forEach(BrokerNode::kill);
            if (toClose != null) {
                // after the kill, so it cannot block on a broker that will never answer again
                toClose.close(Duration.ZERO);
            }
        } finally {
            BrokerShutdownHook.unregister(this);
            deleteDataUnlessKept();
        }
    }

    /** Called by the shutdown hook only. */
    void killNow() {
        nodes.forEach(BrokerNode::killNow);
        for (BrokerNode node : nodes) {
            node.awaitExit(ClusterProbe.deadline(Duration.ofSeconds(2)));
        }
        deleteDataUnlessKept();
    }

    private void deleteDataUnlessKept() {
        if (Boolean.getBoolean("kflux.broker.keepData")) {
            return;
        }
        try (Stream<Path> paths = Files.walk(root)) {
            paths.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        } catch (IOException | UncheckedIOException e) {
            // a leftover temp folder is harmless
        }
    }

    private BrokerNode node(int nodeId) {
        for (BrokerNode node : nodes) {
            if (node.nodeId() == nodeId) {
                return node;
            }
        }
        throw new IllegalArgumentException("no node " + nodeId + " in cluster of nodes " + nodeIds());
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("cluster is closed");
        }
    }

    /**
     * Kafka's own id format (URL-safe base64 of 16 random bytes, no padding); one starting with a
     * dash is avoided, as Kafka does, because the command line would read it as an option.
     */
    private static String newClusterId() {
        while (true) {
            UUID uuid = UUID.randomUUID();
            ByteBuffer bytes = ByteBuffer.allocate(16)
                    .putLong(uuid.getMostSignificantBits())
                    .putLong(uuid.getLeastSignificantBits());
            String id = Base64.getUrlEncoder().withoutPadding().encodeToString(bytes.array());
            if (!id.startsWith("-")) {
                return id;
            }
        }
    }

    /** Settings for a cluster; {@link #start()} forks the nodes and waits until they are ready. */
    public static final class Builder {

        private int nodes = 1;
        private final Map<String, String> brokerProperties = new LinkedHashMap<>();
        private String classpath;
        private final List<String> jvmArgs = new ArrayList<>();
        private final Map<String, String> listeners = new LinkedHashMap<>();
        private final List<String> formatArgs = new ArrayList<>();
        private Duration startupTimeout = Duration.ofMinutes(2);
        private Duration stopTimeout = Duration.ofSeconds(15);

        private Builder() {
        }

        /**
         * @param nodes number of nodes, each broker and controller; default 1
         * @return this builder
         */
        public Builder nodes(int nodes) {
            if (nodes < 1) {
                throw new IllegalArgumentException("nodes must be at least 1: " + nodes);
            }
            this.nodes = nodes;
            return this;
        }

        /**
         * Sets or overrides one line of every node's {@code server.properties}. In the value, {@code ${port}} and
         * {@code ${controllerPort}} stand for the node's own client and controller ports, so an override of
         * {@code listeners} can keep them (e.g. to add a listener advertised through a proxy).
         *
         * @param key   broker config name
         * @param value its value
         * @return this builder
         */
        public Builder brokerProperty(String key, String value) {
            brokerProperties.put(Objects.requireNonNull(key), Objects.requireNonNull(value));
            return this;
        }

        /**
         * Adds a listener on a port of its own on every node, e.g. {@code listener("SASL_SSL", "SASL_SSL")}; its
         * settings go in with {@link #brokerProperty} ({@code listener.name.<name lower-cased>.*}). PLAINTEXT
         * stays the inter-broker listener and the one {@link #admin()} uses.
         *
         * @param name             listener name (upper case, not PLAINTEXT or CONTROLLER)
         * @param securityProtocol PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL
         * @return this builder
         */
        public Builder listener(String name, String securityProtocol) {
            if (name.equals("PLAINTEXT") || name.equals("CONTROLLER")) {
                throw new IllegalArgumentException(name + " is already a listener");
            }
            listeners.put(Objects.requireNonNull(name), Objects.requireNonNull(securityProtocol));
            return this;
        }

        /**
         * Adds arguments to {@code kafka-storage format}, e.g. {@code --add-scram SCRAM-SHA-256=[name=alice,password=...]}.
         *
         * @param args the arguments
         * @return this builder
         */
        public Builder formatArgs(String... args) {
            for (String arg : args) {
                formatArgs.add(Objects.requireNonNull(arg));
            }
            return this;
        }

        /**
         * Adds options to each broker JVM's command line, after the defaults
         * ({@code -Xms256m -Xmx1g}). Short tests on few cores start faster with
         * {@code -XX:TieredStopAtLevel=1 -XX:+UseSerialGC}; benchmarks should keep the full JIT.
         *
         * @param args JVM options
         * @return this builder
         */
        public Builder brokerJvmArgs(String... args) {
            for (String arg : args) {
                jvmArgs.add(Objects.requireNonNull(arg));
            }
            return this;
        }

        /**
         * Runs the brokers from another classpath, e.g. the jars of another Kafka version.
         * By default the one of this JVM is used.
         *
         * @param classpath a classpath containing {@code kafka.Kafka} and its dependencies
         * @return this builder
         */
        public Builder classpath(String classpath) {
            this.classpath = Objects.requireNonNull(classpath);
            return this;
        }

        /**
         * @param timeout how long {@link #start()} and a node restart may take; default 2 minutes
         * @return this builder
         */
        public Builder startupTimeout(Duration timeout) {
            this.startupTimeout = Objects.requireNonNull(timeout);
            return this;
        }

        /**
         * @param timeout how long {@link EmbeddedKafkaCluster#stop(int)} waits before SIGKILL; default 15 s
         * @return this builder
         */
        public Builder stopTimeout(Duration timeout) {
            this.stopTimeout = Objects.requireNonNull(timeout);
            return this;
        }

        /**
         * Forks the nodes and waits until all are registered and the group coordinator's topic exists.
         *
         * @return the running cluster; close it
         * @throws BrokerStartException if a node fails or is not ready in time (the message holds its log tail)
         */
        public EmbeddedKafkaCluster start() {
            EmbeddedKafkaCluster cluster;
            try {
                cluster = new EmbeddedKafkaCluster(this);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot prepare Kafka data folders", e);
            }
            try {
                cluster.startAll();
                return cluster;
            } catch (RuntimeException | Error e) {
                cluster.close();
                throw e;
            }
        }
    }
}
