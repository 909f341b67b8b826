package io.kflux.test.broker;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/** Renders the files a forked broker reads: {@code server.properties} and its log4j2 setup. */
final class BrokerProperties {

    private BrokerProperties() {
    }

    /**
     * Combined broker+controller nodes with a static voter set, which is what lets every node be
     * formatted independently with the same cluster id. Internal topics get replication 3 (or the
     * node count if smaller) and {@code min.insync.replicas} 2 from three nodes on, so that one
     * node can fail without making acks=all or the group coordinator unavailable. Extra listeners (name to
     * security protocol) are listed and advertised after PLAINTEXT, which stays the inter-broker listener.
     */
    static String server(BrokerNode node, List<BrokerNode> cluster, Map<String, String> listenerProtocols,
                         Map<String, String> overrides) {
        int replication = Math.min(cluster.size(), 3);
        int minIsr = cluster.size() >= 3 ? 2 : 1;
        int internalPartitions = cluster.size() == 1 ? 1 : 2 * cluster.size();
        String voters = cluster.stream()
                .map(n -> n.nodeId() + "@127.0.0.1:" + n.controllerPort())
                .collect(Collectors.joining(","));

        Map<String, String> props = new LinkedHashMap<>();
        props.put("process.roles", "broker,controller");
        props.put("node.id", Integer.toString(node.nodeId()));
        props.put("controller.quorum.voters", voters);
        StringBuilder listeners = new StringBuilder("PLAINTEXT://127.0.0.1:" + node.port());
        StringBuilder protocols = new StringBuilder("PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
        node.listenerPorts().forEach((name, port) -> {
            listeners.append(',').append(name).append("://127.0.0.1:").append(port);
            protocols.append(',').append(name).append(':').append(listenerProtocols.get(name));
        });
        props.put("listeners", listeners + ",CONTROLLER://127.0.0.1:" + node.controllerPort());
        props.put("advertised.listeners", listeners.toString());
        props.put("listener.security.protocol.map", protocols.toString());
        props.put("controller.listener.names", "CONTROLLER");
        props.put("inter.broker.listener.name", "PLAINTEXT");
        props.put("log.dirs", node.logDirs().toString());
        props.put("num.partitions", "1");
        props.put("default.replication.factor", Integer.toString(replication));
        props.put("min.insync.replicas", Integer.toString(minIsr));
        props.put("offsets.topic.replication.factor", Integer.toString(replication));
        props.put("offsets.topic.num.partitions", Integer.toString(internalPartitions));
        props.put("transaction.state.log.replication.factor", Integer.toString(replication));
        props.put("transaction.state.log.min.isr", Integer.toString(minIsr));
        props.put("transaction.state.log.num.partitions", Integer.toString(internalPartitions));
        props.put("share.coordinator.state.topic.replication.factor", Integer.toString(replication));
        props.put("share.coordinator.state.topic.min.isr", Integer.toString(minIsr));
        // the classic protocol's default 3 s wait before the first rebalance only slows tests down
        props.put("group.initial.rebalance.delay.ms", "0");
        props.put("auto.create.topics.enable", "false");
        // a node restarted within the session timeout of its previous incarnation is refused
        // (DUPLICATE_BROKER_REGISTRATION) until that session expires, and a killed or frozen node
        // keeps leading its partitions just as long: 9 s by default, shortened here for tests
        props.put("broker.session.timeout.ms", "6000");
        props.put("broker.heartbeat.interval.ms", "1000");
        // a node's own id and ports: overrides name them by placeholder (extra listeners, broker.rack per node)
        overrides.forEach((k, v) -> props.put(k, v.replace("${nodeId}", Integer.toString(node.nodeId()))
                .replace("${port}", Integer.toString(node.port()))
                .replace("${controllerPort}", Integer.toString(node.controllerPort()))));
        return render(props);
    }

    /**
     * Sends the broker's logging to its standard output, which the node redirects into its log
     * file: that one file then also holds JVM crashes and anything printed before log4j starts.
     */
    static String log4j() {
        return String.join("\n",
                "status = warn",
                "appender.out.type = Console",
                "appender.out.name = OUT",
                "appender.out.layout.type = PatternLayout",
                "appender.out.layout.pattern = [%d] %p %m (%c)%n",
                "rootLogger.level = INFO",
                "rootLogger.appenderRef.out.ref = OUT",
                // per-request and per-segment chatter would drown the lines that explain a failure
                "logger.request.name = kafka.request.logger",
                "logger.request.level = WARN",
                "logger.log.name = org.apache.kafka.storage.internals.log",
                "logger.log.level = WARN",
                "logger.cleaner.name = kafka.log.LogCleaner",
                "logger.cleaner.level = WARN",
                "");
    }

    static String render(Map<String, String> props) {
        StringBuilder text = new StringBuilder();
        props.forEach((key, value) -> text.append(key).append('=').append(escape(value)).append('\n'));
        return text.toString();
    }

    private static String escape(String value) {
        return value.replace("\\", "\\\\");
    }
}
