package io.kflux.test.broker;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Kills the brokers of every cluster still open when this JVM exits: a forked broker is not a
 * daemon, so one left behind would hold its ports and about 400 MB until someone noticed.
 */
final class BrokerShutdownHook {

    private static final Set<EmbeddedKafkaCluster> OPEN = ConcurrentHashMap.newKeySet();
    private static volatile boolean installed;

    private BrokerShutdownHook() {
    }

    static void register(EmbeddedKafkaCluster cluster) {
        install();
        OPEN.add(cluster);
    }

    static void unregister(EmbeddedKafkaCluster cluster) {
        OPEN.remove(cluster);
    }

    private static synchronized void install() {
        if (!installed) {
            Runtime.getRuntime().addShutdownHook(new Thread(() -> OPEN.forEach(EmbeddedKafkaCluster::killNow),
                    "kflux-embedded-kafka-reaper"));
            installed = true;
        }
    }
}
