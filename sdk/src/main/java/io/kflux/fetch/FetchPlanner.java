package io.kflux.fetch;

import io.kflux.TopicPartition;
import io.kflux.metadata.BrokerErrors;
import io.kflux.metadata.Cluster;
import io.kflux.metadata.Node;
import io.kflux.metadata.PartitionInfo;
import io.kflux.metadata.TopicInfo;
import io.kflux.protocol.Errors;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which partitions are fetched from which broker now: from the partitions' states, the metadata snapshot, the bytes
 * buffered and each broker's {@link NodeStatus}, a {@link FetchPlan}. No I/O and no clock of its own (the time is
 * passed in), so it is unit-tested on plain values ({@code FetchPlannerTest}); the fetcher sends the plan.
 *
 * <p>A partition is planned when {@link FetchState#FETCHABLE}, not paused, and not held back ({@link #isHeldBack}:
 * {@value #MAX_PENDING_FETCHES} results waiting to be emitted, one result waiting while its fetch offset is at the
 * end of its log, or the buffered bytes at {@code maxBufferedBytes}); a held-back partition's broker counts as
 * holding partitions back: its Fetch asks for no wait, and it gets none at all while its other partitions are all at
 * their end (a drained result plans again). Partitions without a leader or missing from metadata ask for metadata
 * and are reported when the wait lasts.
 *
 * <p><b>Gathering (issue #32).</b> A broker's Fetch is not sent as soon as one partition may be fetched: while a
 * subscriber is slower than the broker, its partitions' results drain one at a time, and a Fetch per drained result
 * carries one partition (seven times the official client's Fetches, twice the broker's CPU). A broker ready for a
 * Fetch gets it ({@link #isDue}) when none of its partitions holds {@value #MAX_PENDING_FETCHES} results (the
 * previous round drained: the Fetch carries every partition, and the next round is still pipelined with the
 * emission of the last one), or when its partitions' results waiting are down to half a result per fetchable
 * partition (the low-water mark: the answer comes while the rest is emitted), or when one of them has had no result
 * waiting for the gathering bound ({@link #gatherBound}: about the time half a round of results takes to drain, at
 * least {@link #GATHER_BOUND_NANOS}, at most {@link #MAX_GATHER_BOUND_NANOS}; the fetcher is woken then:
 * {@link FetchPlan#wakeAtNanos}). So a partition that is not fetched while others still hold results always has data
 * of its own waiting, or waits at most that bound while the subscriber has other results to emit; a broker with one
 * partition, or with its results nearly drained, is asked at once.
 *
 * <p><b>Re-asking after an empty long poll (issues #28, #32).</b> A long poll the broker answered with nothing after
 * holding it the whole {@code fetch.max.wait.ms} is followed by the next one after a short pause
 * ({@link #reaskPauseMs}: a fiftieth of {@code fetch.max.wait.ms}, at most {@value #MAX_REASK_PAUSE_MS} ms), not at
 * once. Where records come on a fixed rhythm, as a producer writing each partition once a second with 500 ms long
 * polls, a client re-asking at once ends its second long poll just before the next record about half the time and
 * sends a third, short Fetch for it (2.52 Fetches per consumer and second at 1,000 consumers, against the official
 * client's 2.40, whose threads re-ask a few ms late by scheduling alone); the pause moves the chain's end past the
 * record. The cost: a record written within the pause after an empty answer is fetched up to that pause later
 * (records that find a long poll waiting, and every record while answers bring data, are not delayed).
 */
final class FetchPlanner {
    /** The fetcher's log category, kept for these lines (log configurations name it). */
    private static final Logger log = LoggerFactory.getLogger(Fetcher.class);
    /**
     * Results of one partition that may wait with the emitter: one being emitted and one more, which pipelines the
     * next Fetch with the emission of the previous one.
     */
    static final int MAX_PENDING_FETCHES = 2;
    /**
     * The shortest gathering bound (issue #32): the longest a fetchable partition with no result waiting is kept out of
     * a Fetch while its broker's other partitions still hold results, when results drain fast or their pace is not
     * known yet.
     */
    static final long GATHER_BOUND_NANOS = 5_000_000L;
    /**
     * The longest gathering bound, whatever the pace of the subscriber: a tenth of {@code fetch.max.wait.ms}'s default
     * (500 ms). A slow subscriber takes about 10 ms to drain one 1 MiB result of 100 B records, 40 ms for half a round
     * of eight; shorter bounds sent a Fetch of its own for each partition sought back to 0 (the suite's bound case).
     */
    static final long MAX_GATHER_BOUND_NANOS = 50_000_000L;
    /** The longest pause before re-asking a broker whose long poll came back empty ({@link #reaskPauseMs}). */
    static final long MAX_REASK_PAUSE_MS = 10L;
    /** An assigned partition without a leader for this long gets a WARN. */
    static final long LEADERLESS_WARN_AFTER_NANOS = 2_000_000_000L;
    /** The longest time between two WARNs for the same partition still without a leader or metadata. */
    static final long LEADERLESS_WARN_MAX_INTERVAL_NANOS = 60_000_000_000L;

    private final FetchConfig config;

    FetchPlanner(FetchConfig config) {
        this.config = config;
    }

    /**
     * Plans the fetch round for {@code partitions} (in their order) under {@code cluster}: a Fetch for every broker
     * {@code nodes} finds ready that leads (or, KIP-392, is the preferred read replica of) a fetchable partition, and
     * whether metadata, a reset or a validation is needed. Moves partition states as metadata tells (topic deleted
     * and created again, truncation completed, higher leader epoch, lapsed read replica) and notes leaderless waits;
     * sends nothing.
     *
     * @param bufferedBytes fetched bytes not emitted yet: at {@code maxBufferedBytes} no partition is fetched
     * @param nowNanos      now on the fetcher's clock (leaderless warnings, read replica leases, throttles)
     * @return the plan; {@link FetchPlan#failure()} set (and nothing else) when an assigned topic is not authorized
     */
    FetchPlan plan(Collection<PartitionState> partitions, Cluster cluster, long bufferedBytes, NodeStatus nodes,
                   long nowNanos) {
        Map<Node, List<FetchTarget>> byNode = new LinkedHashMap<>();
        Set<Integer> heldBack = new HashSet<>();
        // brokers with a partition to fetch below its known end (or with no end known yet)
        Set<Integer> belowEnd = new HashSet<>();
        Map<Integer, Demand> demand = new HashMap<>();
        boolean needMetadata = false;
        boolean needReset = false;
        boolean needValidation = false;
        for (PartitionState ps : partitions) {
            if (ps.isPaused() || ps.state().awaitsFetch()) {
                continue;
            }
            UUID topicId = FetchRequestBuilder.topicId(cluster, ps.topicPartition().topic());
            if (ps.topicIdChanged(topicId)) {
                // Deleted and created again under its name: the old position means nothing in the new log (and its
                // leader epochs would read as a truncation), so it starts over by auto.offset.reset, as the
                // official consumer's does once its old position is out of range.
                log.warn("{}: the topic was deleted and created again (topic id {} -> {}); the position {} is reset by"
                        + " auto.offset.reset", ps.topicPartition(), ps.previousTopicId(), topicId, ps.position());
                ps.requireReset();
            }
            if (ps.state() == FetchState.TRUNCATING) {
                if (ps.pendingFetches() > 0) {
                    continue; // the emitter still holds (stale) results: the position may still move
                }
                long position = ps.position();
                long resumeAt = ps.completeTruncation();
                log.warn("{}: resuming at offset {} after log truncation{}", ps.topicPartition(), resumeAt,
                        position > resumeAt ? "; offsets " + resumeAt + " to " + (position - 1)
                                + " were emitted already and are read again from the new log" : "");
            }
            TopicInfo topic = cluster.topic(ps.topicPartition().topic());
            if (topic != null && topic.errorCode() == Errors.TOPIC_AUTHORIZATION_FAILED.code()) {
                // as the official consumer's poll() throws it: waiting for the ACLs to change would hang silently
                return FetchPlan.failed(BrokerErrors.of(topic.errorCode(), "Metadata for assigned partition "
                        + ps.topicPartition() + " failed: TOPIC_AUTHORIZATION_FAILED", topic.name(), null));
            }
            PartitionInfo info = cluster.partition(ps.topicPartition());
            if (info == null) {
                // An unknown topic or a partition past its count: no position can be looked up for it either.
                // Metadata is asked again (as the official client does) and the wait is reported.
                needMetadata = true;
                leaderless(ps, topic, nowNanos);
                continue;
            }
            Node leader = info.leaderId() < 0 ? null : cluster.node(info.leaderId());
            if (leader == null) {
                // neither fetched nor reset (ListOffsets goes to the leader too) until a leader is known
                needMetadata = true;
                leaderless(ps, topic, nowNanos);
                continue;
            }
            if (ps.leaderlessSinceNanos() != 0L) {
                if (ps.leaderlessWarnAfterNanos() > LEADERLESS_WARN_AFTER_NANOS) {
                    log.info("{} has a leader again (node {}) after {} ms without one: fetching resumes", ps.topicPartition(),
                            leader.id(), (nowNanos - ps.leaderlessSinceNanos()) / 1_000_000L);
                }
                ps.leaderless(0L, 0L);
            }
            if (!ps.hasPosition()) {
                // AWAITING_POSITION waits for the group's committed offset, RESETTING for its ListOffsets
                needReset |= ps.state() == FetchState.AWAITING_RESET;
                continue;
            }
            int epochBefore = ps.leaderEpochSeen(info.leaderEpoch());
            if (epochBefore >= 0) {
                // a new leader (or a new epoch of the same one): check the fetch position first
                log.debug("{}: leader epoch {} -> {}; validating fetch offset {} (last fetched epoch {})",
                        ps.topicPartition(), epochBefore, info.leaderEpoch(), ps.fetchOffset(), ps.lastFetchedEpoch());
            }
            if (!ps.state().isFetchable()) {
                needValidation |= ps.state() == FetchState.AWAITING_VALIDATION; // VALIDATING: its answer is awaited
                continue;
            }
            Node source = ReadReplicas.source(ps, cluster, leader, nowNanos);
            demand.computeIfAbsent(source.id(), id -> new Demand()).count(ps);
            if (isHeldBack(ps, bufferedBytes)) {
                heldBack.add(source.id());
                continue;
            }
            byNode.computeIfAbsent(source, n -> new ArrayList<>()).add(FetchTarget.of(ps, info.leaderEpoch()));
            if (!ps.fetchedToLogEnd(config.readCommitted())) {
                belowEnd.add(source.id());
            }
        }
        List<FetchPlan.NodeFetch> fetches = new ArrayList<>(byNode.size());
        long wakeAt = FetchPlan.NO_WAKE;
        for (Map.Entry<Node, List<FetchTarget>> e : byNode.entrySet()) {
            Node node = e.getKey();
            boolean holding = heldBack.contains(node.id());
            Demand d = demand.get(node.id());
            long gatherDeadline = d.starved == 0 ? FetchPlan.NO_WAKE
                    : nodes.gatheringSince(node.id(), nowNanos) + gatherBound(nodes, d);
            // Holding partitions back and the rest at their end: a no-wait Fetch would most likely bring nothing (an
            // empty round trip per answer with data while tailing) and a long poll would keep the held-back ones
            // waiting. The broker is asked once a held-back result drains (Fetcher.onConsumed plans again).
            if (!nodes.isReady(node.id(), nowNanos) || holding && !belowEnd.contains(node.id())) {
                continue;
            }
            if (isDue(d, gatherDeadline, nowNanos)) {
                fetches.add(new FetchPlan.NodeFetch(node, e.getValue(), holding));
            } else if (gatherDeadline != FetchPlan.NO_WAKE
                    && (wakeAt == FetchPlan.NO_WAKE || gatherDeadline - wakeAt < 0)) {
                wakeAt = gatherDeadline;
            }
        }
        // a broker with no partition starved (or none to fetch) is not gathering: a later one starts its bound afresh
        demand.forEach((nodeId, d) -> {
            if (d.starved == 0) {
                nodes.stopGathering(nodeId);
            }
        });
        return new FetchPlan(fetches, needMetadata, needReset, needValidation, null, wakeAt);
    }

    /**
     * How long a broker whose long poll came back with no record at all is left before its next Fetch, in ms: a
     * fiftieth of {@code fetch.max.wait.ms}, at most {@value #MAX_REASK_PAUSE_MS} (0, no pause, below 50 ms), and only
     * when the answer took the whole wait ({@code waitedNanos}, sent to answered on the fetcher's clock, at least
     * {@code fetch.max.wait.ms}): an empty answer that came early (a session reopened, a broker answering at once)
     * tells nothing of the records' rhythm. See the class comment for why; the fetcher holds the broker off for it
     * ({@link NodeStatus#holdOff}).
     */
    static long reaskPauseMs(FetchConfig config, long waitedNanos) {
        if (waitedNanos < config.maxWaitMs() * 1_000_000L) {
            return 0L;
        }
        return Math.min(MAX_REASK_PAUSE_MS, config.maxWaitMs() / 50);
    }

    /**
     * Whether a ready broker with partitions to fetch gets its Fetch now (gathering, issue #32): none of its
     * partitions holds {@value #MAX_PENDING_FETCHES} results (the Fetch carries all of them that may be fetched), its
     * fetchable partitions' results waiting are at most half their number (the low-water mark), or one has had none
     * since the broker started gathering {@link #gatherBound} ago ({@code gatherDeadline}, {@link FetchPlan#NO_WAKE}
     * when none is starved). Otherwise its partitions that may be fetched all still have a result waiting, or wait for
     * the bound while more than half a round of results waits to be emitted.
     */
    private static boolean isDue(Demand d, long gatherDeadline, long nowNanos) {
        return d.full == 0
                || 2 * d.waiting <= d.fetchable
                || gatherDeadline != FetchPlan.NO_WAKE && nowNanos - gatherDeadline >= 0;
    }

    /**
     * How long a broker's starved partition may wait for its Fetch while others hold results: the time half a round
     * of its results takes to drain at the emitter's recent pace ({@link NodeStatus#drainIntervalNanos}: by then the
     * round's Fetch is due anyway), within {@link #GATHER_BOUND_NANOS} and {@link #MAX_GATHER_BOUND_NANOS}.
     */
    private static long gatherBound(NodeStatus nodes, Demand d) {
        long halfRound = nodes.drainIntervalNanos() * Math.max(1, d.fetchable / 2);
        return Math.min(MAX_GATHER_BOUND_NANOS, Math.max(GATHER_BOUND_NANOS, halfRound));
    }

    /**
     * One broker's fetchable partitions (held back or not) in one plan: how many, how many hold
     * {@value #MAX_PENDING_FETCHES} results, how many have none waiting (an empty one is never held back unless the
     * buffer is full), and their results waiting in all.
     */
    private static final class Demand {
        int fetchable;
        int full;
        int starved;
        int waiting;

        void count(PartitionState ps) {
            fetchable++;
            int pending = ps.pendingFetches();
            waiting += pending;
            if (pending >= MAX_PENDING_FETCHES) {
                full++;
            } else if (pending == 0) {
                starved++;
            }
        }
    }

    /**
     * True when a partition fetched from {@code nodeId} is held back now ({@link #isHeldBack}, the rule
     * {@link #plan} applies): then the broker is left idle after an empty no-wait Fetch, and a drained result wakes it.
     */
    boolean hasHeldBack(int nodeId, Collection<PartitionState> partitions, Cluster cluster, long bufferedBytes,
                        long nowNanos) {
        for (PartitionState ps : partitions) {
            if (ps.isPaused() || !ps.hasPosition()) {
                continue;
            }
            PartitionInfo info = cluster.partition(ps.topicPartition());
            Node leader = info == null || info.leaderId() < 0 ? null : cluster.node(info.leaderId());
            if (leader != null && ReadReplicas.source(ps, cluster, leader, nowNanos).id() == nodeId
                    && (isHeldBack(ps, bufferedBytes))) {
                return true;
            }
        }
        return false;
    }

    /**
     * Whether {@code ps} is left out of the next Fetch (the one rule for {@link #plan} and {@link #hasHeldBack}):
     * <ul>
     * <li>{@value #MAX_PENDING_FETCHES} of its results wait to be emitted (one being emitted, one prefetched);</li>
     * <li>one result waits and its fetch offset is at (or past) the end of its log as last answered (the high
     *     watermark, under {@code read_committed} the last stable offset; not held back while no end is known).
     *     Prefetching it would find nothing new, so the broker would hold that Fetch for {@code fetch.max.wait.ms},
     *     and with one Fetch in flight per broker a {@code seek} made meanwhile (for instance back to 0 once the
     *     last record is emitted) would be fetched only when the long poll returns (issue #17: gaps of about
     *     500 ms where the official client, which never fetches a partition with buffered data, had none). Held
     *     back, it is long-polled once its result is emitted ({@code Fetcher.onConsumed} plans again), and a seek
     *     meanwhile moves its fetch offset off the end, so the new position is fetched at once;</li>
     * <li>the fetched-but-not-emitted bytes are at {@code maxBufferedBytes}.</li>
     * </ul>
     * Below the end, one waiting result does not hold a partition back: its next records are fetched while the
     * previous ones are emitted.
     */
    private boolean isHeldBack(PartitionState ps, long bufferedBytes) {
        int pending = ps.pendingFetches();
        return pending >= MAX_PENDING_FETCHES
                || pending > 0 && ps.fetchedToLogEnd(config.readCommitted())
                || bufferedBytes >= config.maxBufferedBytes();
    }

    /**
     * An assigned partition without a leader, or missing from metadata (unknown topic, partition past the topic's
     * count), cannot be fetched: a WARN once that lasted {@link #LEADERLESS_WARN_AFTER_NANOS} (an election normally
     * takes far less, a topic being created too), then again each time the duration doubled, at least every
     * {@link #LEADERLESS_WARN_MAX_INTERVAL_NANOS}: waiting goes on (as the official consumer's does; metadata is
     * requested every retry.backoff.ms meanwhile), but never silently.
     */
    private void leaderless(PartitionState ps, TopicInfo topic, long now) {
        if (ps.leaderlessSinceNanos() == 0L) {
            ps.leaderless(now | 1L, LEADERLESS_WARN_AFTER_NANOS);
            return;
        }
        long lasted = now - ps.leaderlessSinceNanos();
        if (lasted >= ps.leaderlessWarnAfterNanos()) {
            TopicPartition tp = ps.topicPartition();
            if (topic != null && topic.partition(tp.partition()) != null) {
                log.warn("{} has had no leader for {} ms (no replica of it is online, or its leader is not among the"
                        + " brokers in metadata): its records cannot be fetched until a leader is elected", tp,
                        lasted / 1_000_000L);
            } else {
                log.warn("{} has not been in the cluster's metadata for {} ms ({}): still waiting; metadata is"
                        + " requested again every retry.backoff.ms ({} ms) and the partition is fetched once it"
                        + " appears", tp, lasted / 1_000_000L, missingReason(tp, topic), config.retryBackoffMs());
            }
            ps.leaderless(ps.leaderlessSinceNanos(), Math.min(ps.leaderlessWarnAfterNanos() * 2,
                    lasted + LEADERLESS_WARN_MAX_INTERVAL_NANOS));
        }
    }

    /** Why {@code tp} is not in metadata, from its topic's entry (null when metadata has none). */
    private static String missingReason(TopicPartition tp, TopicInfo topic) {
        if (topic == null || topic.errorCode() == Errors.UNKNOWN_TOPIC_OR_PARTITION.code()) {
            return "topic '" + tp.topic() + "' does not exist";
        }
        if (topic.errorCode() != 0) {
            return "metadata of topic '" + tp.topic() + "' has error " + Errors.forCode(topic.errorCode());
        }
        return "topic '" + tp.topic() + "' has " + topic.partitions().size() + " partitions, numbered from 0";
    }
}
