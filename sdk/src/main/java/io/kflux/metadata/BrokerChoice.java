package io.kflux.metadata;

import io.kflux.network.NodeLoad;
import java.util.Comparator;
import java.util.List;
import java.util.function.IntFunction;

/**
 * Which known broker gets a request any broker answers (Metadata, FindCoordinator): the least loaded healthy one.
 * The one place this choice is made ({@link MetadataManager#anyBroker()} calls it).
 *
 * <p>As the official client's least-loaded node, a broker with an open connection and nothing waiting on it comes
 * first, and the search starts at a random broker so consumers spread their lookups. Unlike it, a broker whose last
 * connection attempt failed or whose connection dropped (a request timeout drops it) comes after every other, until
 * a connect to it succeeds again: a broker that stopped answering (frozen, black-holed) still accepts TCP
 * connections and would otherwise be picked again and cost each lookup a full {@code request.timeout.ms} while the
 * consumer looks for its moved coordinator. Among troubled brokers the one that failed longest ago comes first.
 * A broker not connected costs a connect, counted like one request waiting: a connected broker with one request
 * in flight (a long-polling Fetch) ties with it and wins the tie; one with more waiting loses.
 */
final class BrokerChoice {
    private static final Comparator<NodeLoad> ORDER = Comparator
            .comparing(NodeLoad::troubled)
            .thenComparingLong(l -> l.troubled() ? l.lastFailureNanos() : 0) // nanoTime order: fine within one JVM
            .thenComparingInt(l -> l.connected() ? l.requestsWaiting() : 1)
            .thenComparing(l -> !l.connected());

    private BrokerChoice() {
    }

    /**
     * @param known a non-empty list of brokers
     * @param load  each broker's load, by node id
     * @param start where the search starts (any int; taken modulo the size): among equals the first one from there
     * @return the chosen broker
     */
    static Node leastLoaded(List<Node> known, IntFunction<NodeLoad> load, int start) {
        int n = known.size();
        Node best = null;
        NodeLoad bestLoad = null;
        for (int i = 0; i < n; i++) {
            Node node = known.get(Math.floorMod(start + i, n));
            NodeLoad l = load.apply(node.id());
            if (best == null || ORDER.compare(l, bestLoad) < 0) {
                best = node;
                bestLoad = l;
            }
        }
        return best;
    }
}
