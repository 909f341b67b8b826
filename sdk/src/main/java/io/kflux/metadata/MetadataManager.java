package io.kflux.metadata;

import io.kflux.network.IoLoops;
import io.kflux.network.BrokerConnection;
import io.kflux.network.MisroutedConnectionException;
import io.kflux.network.NodeConnections;
import io.kflux.protocol.Errors;
import io.kflux.protocol.Types;
import io.kflux.protocol.message.MetadataRequest;
import io.kflux.protocol.message.MetadataRequest.MetadataRequestTopic;
import io.kflux.protocol.message.MetadataResponse;
import io.kflux.protocol.message.MetadataResponse.MetadataResponseTopic;
import io.kflux.util.SharedAttempt;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * Keeps the consumer's {@link Cluster} snapshot: asks any reachable broker (a known one first, the
 * bootstrap list when none answers) for the topics of interest. The one owner of metadata refreshes:
 * concurrent refresh requests share one Metadata round trip, the periodic refresh
 * ({@code metadata.max.age.ms}, {@link #refreshEvery}) runs here, and every new snapshot, whoever asked
 * for it, is published to {@link #updates()} (the group member watches its topics there). Callers decide
 * when to ask for more (after leader/topic errors, for missing topics) and how to retry.
 *
 * <p><b>Rebootstrap (KIP-899, KIP-1102).</b> With {@code metadata.recovery.strategy=rebootstrap} (the official
 * default) the bootstrap servers are asked again, their names resolved anew at connect, when the chosen known broker
 * cannot be connected, when no Metadata answer has come from any known broker for
 * {@code metadata.recovery.rebootstrap.trigger.ms} of failed attempts (brokers that accept connections but do not
 * answer), and at once when a broker answers REBOOTSTRAP_REQUIRED (Metadata v13+, error 129); the snapshot then loses
 * its brokers until the bootstrap servers' answer replaces them. With {@code none} the bootstrap servers are used only
 * while no broker is known: a failed known broker fails the refresh, which the caller retries.
 *
 * <p><b>Misrouted connections (KIP-1242).</b> Every snapshot's cluster id goes to {@link NodeConnections#clusterId},
 * which names it in later connections to known brokers; one refused as misrouted drops the known brokers and asks the
 * bootstrap servers, and a WARN names both clusters when the answer comes from another one.
 */
public final class MetadataManager {
    private static final Logger log = LoggerFactory.getLogger(MetadataManager.class);

    private final NodeConnections connections;
    private final List<InetSocketAddress> bootstrap;
    private final boolean allowAutoTopicCreation;
    private final SharedAttempt<Cluster> inFlight = new SharedAttempt<>();
    private final Sinks.Many<Cluster> updates = Sinks.many().multicast().directBestEffort();
    private volatile Cluster cluster = Cluster.EMPTY;
    private volatile Set<String> topics = Set.of();
    private volatile boolean allTopics;
    /** {@code metadata.recovery.strategy} is {@code rebootstrap} (see the class comment). */
    private final boolean rebootstrap;
    /** {@code metadata.recovery.rebootstrap.trigger.ms}, in ns. */
    private final long rebootstrapTriggerNanos;
    /** {@link System#nanoTime()} of the first Metadata attempt not answered since the last answer; 0 after an answer. */
    private volatile long unansweredSinceNanos;

    public MetadataManager(NodeConnections connections, List<InetSocketAddress> bootstrap, boolean allowAutoTopicCreation) {
        this.connections = connections;
        this.bootstrap = List.copyOf(bootstrap);
        this.allowAutoTopicCreation = allowAutoTopicCreation;
        this.rebootstrap = "rebootstrap".equalsIgnoreCase(connections.config().value("metadata.recovery.strategy", String.class));
        this.rebootstrapTriggerNanos = Duration.ofMillis(
                connections.config().value("metadata.recovery.rebootstrap.trigger.ms", Long.class)).toNanos();
    }

    public Cluster current() {
        return cluster;
    }

    /** Sets the topics the snapshot must cover; {@code all} asks for every topic (pattern subscriptions). */
    public void interest(Collection<String> topicNames, boolean all) {
        this.topics = Set.copyOf(topicNames);
        this.allTopics = all;
    }

    /**
     * Every snapshot a refresh produces from now on, on the thread that received it. Best effort: a subscriber
     * that is still busy with one misses the next (it can read {@link #current()}); never completes.
     */
    public Flux<Cluster> updates() {
        return updates.asFlux();
    }

    /**
     * Refreshes every {@code maxAge} ({@code metadata.max.age.ms}) for as long as the returned Flux is subscribed,
     * skipping a tick while the previous refresh runs; a failed refresh is skipped (the next tick tries again).
     *
     * @return each periodic snapshot
     */
    public Flux<Cluster> refreshEvery(Duration maxAge) {
        return Flux.interval(maxAge, IoLoops.timers())
                .onBackpressureDrop()
                .concatMap(t -> refresh().onErrorResume(e -> {
                    log.debug("periodic metadata refresh failed: {}", e.toString());
                    return Mono.empty();
                }), 1);
    }

    /** A fresh snapshot; joins a refresh already under way. Fails when no broker answers. */
    public Mono<Cluster> refresh() {
        // Not cached once finished (SharedAttempt): a subscriber that asks for another refresh from its onNext gets a
        // new round trip, not this completed one replayed at once, which made Fetcher spin on the I/O thread.
        return inFlight.join(this::fetch);
    }

    private Mono<Cluster> fetch() {
        return fetch(false);
    }

    /** One Metadata round trip; {@code rebootstrapped}: this one already follows a REBOOTSTRAP_REQUIRED. */
    private Mono<Cluster> fetch(boolean rebootstrapped) {
        Set<String> wanted = topics;
        boolean all = allTopics;
        List<MetadataRequestTopic> requested = new ArrayList<>();
        for (String t : wanted) {
            requested.add(MetadataRequestTopic.byName(t));
        }
        MetadataRequest request = new MetadataRequest(all ? null : requested, allowAutoTopicCreation, false, false);
        return broker(true)
                .flatMap(c -> c.exchange(request))
                .flatMap(response -> {
                    if (response.errorCode() == Errors.REBOOTSTRAP_REQUIRED.code()) {
                        return rebootstrapRequired(rebootstrapped);
                    }
                    answered();
                    Cluster next = Cluster.from(response, cluster, false, System.nanoTime());
                    clusterIdOf(next);
                    cluster = next;
                    updates.tryEmitNext(next); // best effort, see updates()
                    log.debug("metadata: {} brokers, {} topics", next.nodes().size(), next.topics().size());
                    return Mono.just(next);
                });
    }

    /**
     * KIP-1102: the broker says the client's metadata is stale. Rebootstrap drops the known brokers and asks the
     * bootstrap servers at once (once: a bootstrap server saying it too fails the refresh); {@code none} fails it.
     */
    private Mono<Cluster> rebootstrapRequired(boolean rebootstrapped) {
        if (!rebootstrap || rebootstrapped) {
            return Mono.error(BrokerErrors.of(Errors.REBOOTSTRAP_REQUIRED.code(), "metadata refresh refused: "
                    + "REBOOTSTRAP_REQUIRED" + (rebootstrap ? " from the bootstrap servers too"
                    : " (metadata.recovery.strategy=none)"), null, null));
        }
        log.info("a broker answered REBOOTSTRAP_REQUIRED: asking bootstrap.servers {} again (KIP-1102)",
                io.kflux.util.HostPort.of(bootstrap));
        cluster = cluster.withoutNodes();
        return fetch(true);
    }

    /**
     * Tells the connections which cluster later connections must reach (KIP-1242) and says so when the bootstrap
     * servers now lead to another cluster than before: the answer to a misrouted connection names none.
     */
    private void clusterIdOf(Cluster next) {
        String before = cluster.clusterId();
        String now = next.clusterId();
        if (before != null && now != null && !before.equals(now)) {
            log.warn("the brokers now answer for cluster {}, not cluster {} as before: bootstrap.servers {} lead to "
                    + "another cluster", now, before, io.kflux.util.HostPort.of(bootstrap));
        }
        connections.clusterId(now);
    }

    /** A Metadata answer came: the rebootstrap trigger's clock stops. */
    private void answered() {
        unansweredSinceNanos = 0;
    }

    /**
     * The topic ids of {@code names}, for requests that name topics by id (OffsetCommit/OffsetFetch v10+). Ids the
     * snapshot knows are answered at once unless {@code fresh}; otherwise one Metadata request for exactly these
     * names asks a broker (without changing the snapshot or the topics of interest, and never creating topics).
     * A topic the broker does not know, or a broker without topic ids, is absent from the map: the caller's
     * request then falls back to a version that names topics (see {@code ApiRequest.maxVersion()}).
     *
     * @param fresh ask a broker even when the snapshot knows every id: a broker answered UNKNOWN_TOPIC_ID, so the
     *              topic may have been deleted and created again under the same name with a new id
     * @return name -> id, only non-zero ids; fails when no broker answers
     */
    public Mono<Map<String, UUID>> topicIds(Collection<String> names, boolean fresh) {
        Map<String, UUID> known = new HashMap<>();
        if (!fresh) {
            Cluster snapshot = cluster;
            for (String name : names) {
                TopicInfo t = snapshot.topic(name);
                if (t != null && !Types.isZero(t.topicId())) {
                    known.put(name, t.topicId());
                }
            }
            if (known.size() == names.size()) {
                return Mono.just(known);
            }
        }
        List<MetadataRequestTopic> asked = names.stream().filter(n -> !known.containsKey(n))
                .map(MetadataRequestTopic::byName).toList();
        MetadataRequest request = new MetadataRequest(asked, false, false, false);
        return broker(true).flatMap(c -> c.exchange(request)).map(response -> {
            if (response.errorCode() == Errors.REBOOTSTRAP_REQUIRED.code()) {
                if (rebootstrap) {
                    cluster = cluster.withoutNodes(); // KIP-1102: the next request asks the bootstrap servers
                }
                return known; // not an answer: the caller's request names the other topics (ApiRequest.maxVersion())
            }
            answered();
            Map<String, UUID> ids = new HashMap<>(known);
            for (MetadataResponseTopic t : response.topics()) {
                if (t.errorCode() == 0 && !Types.isZero(t.topicId())) {
                    ids.put(t.name(), t.topicId());
                }
            }
            return ids;
        });
    }

    /**
     * A connection to any broker, for requests any broker answers (Metadata, FindCoordinator): the least loaded
     * healthy known broker ({@link BrokerChoice}), the bootstrap servers when none is known or connecting to the
     * chosen one fails.
     */
    public Mono<BrokerConnection> anyBroker() {
        return broker(false);
    }

    /**
     * As {@link #anyBroker()}; {@code forMetadata}: a Metadata request will be sent, which starts the rebootstrap
     * trigger's clock if it is not running (only a Metadata answer stops it, so only a Metadata attempt starts it).
     */
    private Mono<BrokerConnection> broker(boolean forMetadata) {
        return Mono.defer(() -> {
            List<Node> known = new ArrayList<>(cluster.nodes().values());
            if (known.isEmpty()) {
                return connections.bootstrap(bootstrap);
            }
            long now = System.nanoTime();
            long since = unansweredSinceNanos;
            if (since == 0) {
                if (forMetadata) {
                    unansweredSinceNanos = now;
                }
            } else if (rebootstrap && now - since >= rebootstrapTriggerNanos) {
                log.info("no Metadata answer from the known brokers {} for {} ms: asking bootstrap.servers {} again "
                        + "(metadata.recovery.rebootstrap.trigger.ms, KIP-1102)", known,
                        Duration.ofNanos(now - since).toMillis(), io.kflux.util.HostPort.of(bootstrap));
                cluster = cluster.withoutNodes();
                return connections.bootstrap(bootstrap);
            }
            Node node = BrokerChoice.leastLoaded(known, connections::load,
                    ThreadLocalRandom.current().nextInt(known.size()));
            Mono<BrokerConnection> chosen = connections.connection(node.id(), node.host(), node.port());
            if (!rebootstrap) {
                return chosen;
            }
            return chosen.onErrorResume(e -> {
                if (e instanceof MisroutedConnectionException) {
                    cluster = cluster.withoutNodes(); // KIP-1242: every known address may have moved
                }
                log.debug("connecting to {} failed, trying the bootstrap servers (KIP-899): {}", node, e.toString());
                return connections.bootstrap(bootstrap);
            });
        });
    }

}
