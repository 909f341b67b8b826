package io.kflux.fetch;

import io.kflux.TopicPartition;
import io.kflux.protocol.Errors;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The client side of one broker's incremental fetch session (KIP-227). All methods run on the
 * consumer's event loop; one request at a time (the fetcher keeps one Fetch in flight per broker).
 *
 * <p>The session holds exactly the partitions of the last request built: each request is built
 * from the partitions the fetcher wants fetched now ({@link #build}). A full request (session id
 * 0 or an old id, epoch {@value #INITIAL_EPOCH}) lists them all and asks the broker to open a
 * session; an incremental one (the session's id and next epoch) lists only the partitions that
 * are new or whose fetch state changed (fetch offset, leader epochs, max bytes), and forgets the
 * ones no longer wanted. So a partition the fetcher must not fetch now (paused, results still
 * waiting to be emitted, buffer full, being validated, without a position, moved to another
 * leader) is removed from the session, and the broker cannot return data for it; that is also
 * what the official client does: its session always equals its fetchable partitions.
 *
 * <p>Responses: a full response without a session id (the broker's session cache is full, or a
 * Fetch version below 7) leaves the next request full. A top-level error means the session is
 * gone or out of step: {@code FETCH_SESSION_ID_NOT_FOUND} starts over with id 0, any other error
 * (e.g. {@code INVALID_FETCH_SESSION_EPOCH}) and a failed request close the session by naming
 * its id with epoch {@value #INITIAL_EPOCH} in the next, full, request, which opens a new one.
 * The epoch increments with each request answered and wraps from {@link Integer#MAX_VALUE} to 1.
 */
final class FetchSession {
    private static final Logger log = LoggerFactory.getLogger(FetchSession.class);
    static final int NO_SESSION_ID = 0;
    static final int INITIAL_EPOCH = 0;
    static final int FINAL_EPOCH = -1;

    /** What a partition was last sent with; a change of any field sends it again. */
    record PartitionFetch(TopicPartition partition, UUID topicId, long fetchOffset, int currentLeaderEpoch,
                          int lastFetchedEpoch, int maxBytes) {
    }

    /**
     * The session part of one Fetch request.
     *
     * @param sessionId the session id to send (0 to open a session)
     * @param epoch     the epoch to send ({@value #INITIAL_EPOCH} for a full request)
     * @param full      whether all session partitions are listed
     * @param toSend    the partitions to list in the request
     * @param toForget  the partitions to list in {@code forgottenTopicsData} (incremental only)
     * @param session   every partition of the session after this request, which the response may name
     */
    record Request(int sessionId, int epoch, boolean full, List<PartitionFetch> toSend, List<PartitionFetch> toForget,
                   Map<TopicPartition, PartitionFetch> session) {
    }

    private final int nodeId;
    private int sessionId;
    private int nextEpoch;
    private LinkedHashMap<TopicPartition, PartitionFetch> partitions = new LinkedHashMap<>();

    FetchSession(int nodeId) {
        this(nodeId, NO_SESSION_ID, INITIAL_EPOCH);
    }

    /** A session in a given state (tests). */
    FetchSession(int nodeId, int sessionId, int nextEpoch) {
        this.nodeId = nodeId;
        this.sessionId = sessionId;
        this.nextEpoch = nextEpoch;
    }

    int sessionId() {
        return sessionId;
    }

    int nextEpoch() {
        return nextEpoch;
    }

    /** Whether the next request is a full one. */
    boolean nextIsFull() {
        return nextEpoch == INITIAL_EPOCH || nextEpoch == FINAL_EPOCH;
    }

    Set<TopicPartition> partitions() {
        return Collections.unmodifiableSet(partitions.keySet());
    }

    /** Builds the next request for {@code wanted} (in the order given); the session becomes {@code wanted}. */
    Request build(Collection<PartitionFetch> wanted) {
        if (!nextIsFull() && topicIdChanged(wanted)) {
            // A topic was recreated under the same name: start a new session rather than
            // replacing partitions in place (which forgotten-topics semantics differ on by version).
            log.debug("A topic id changed in the fetch session {} of node {}; opening a new one", sessionId, nodeId);
            nextEpoch = INITIAL_EPOCH;
        }
        LinkedHashMap<TopicPartition, PartitionFetch> next = new LinkedHashMap<>();
        for (PartitionFetch p : wanted) {
            next.put(p.partition(), p);
        }
        if (nextIsFull()) {
            partitions = next;
            List<PartitionFetch> all = List.copyOf(next.values());
            return new Request(sessionId, nextEpoch, true, all, List.of(), Collections.unmodifiableMap(next));
        }
        List<PartitionFetch> toSend = new ArrayList<>();
        List<PartitionFetch> toForget = new ArrayList<>();
        for (PartitionFetch previous : partitions.values()) {
            if (!next.containsKey(previous.partition())) {
                toForget.add(previous);
            }
        }
        for (PartitionFetch p : next.values()) {
            if (!p.equals(partitions.get(p.partition()))) {
                toSend.add(p);
            }
        }
        partitions = next;
        return new Request(sessionId, nextEpoch, false, toSend, toForget, Collections.unmodifiableMap(next));
    }

    private boolean topicIdChanged(Collection<PartitionFetch> wanted) {
        for (PartitionFetch p : wanted) {
            PartitionFetch previous = partitions.get(p.partition());
            if (previous != null && !previous.topicId().equals(p.topicId())) {
                return true;
            }
        }
        return false;
    }

    /**
     * Takes the broker's answer to {@code request}: the top-level error, the session id and the
     * partitions the response names. Returns whether the response's partition data may be used;
     * when false it must be dropped (the fetch offsets stay, the next request is a full one).
     */
    boolean onResponse(Request request, short errorCode, int responseSessionId, Set<TopicPartition> responded,
                       int throttleTimeMs) {
        Errors error = Errors.forCode(errorCode);
        if (!error.isNone()) {
            log.debug("Node {} could not use fetch session {} (epoch {}): {}", nodeId, request.sessionId(),
                    request.epoch(), Errors.nameOf(errorCode));
            if (error == Errors.FETCH_SESSION_ID_NOT_FOUND) {
                sessionId = NO_SESSION_ID;
            }
            nextEpoch = INITIAL_EPOCH;
            return false;
        }
        if (request.full()) {
            if (responded.isEmpty() && throttleTimeMs > 0 && !request.session().isEmpty()) {
                // KIP-219: a throttled full fetch is answered empty; try again with a full one.
                sessionId = NO_SESSION_ID;
                nextEpoch = INITIAL_EPOCH;
                return false;
            }
            if (!request.session().keySet().containsAll(responded)) {
                log.info("Node {} answered a full fetch with partitions it was not asked for: {} (asked: {})",
                        nodeId, responded, request.session().keySet());
                sessionId = NO_SESSION_ID;
                nextEpoch = INITIAL_EPOCH;
                return false;
            }
            sessionId = responseSessionId;
            nextEpoch = responseSessionId == NO_SESSION_ID ? INITIAL_EPOCH : nextEpoch(INITIAL_EPOCH);
            return true;
        }
        if (!request.session().keySet().containsAll(responded)) {
            log.info("Node {} answered incremental fetch session {} with partitions outside it: {}", nodeId,
                    request.sessionId(), responded);
            nextEpoch = INITIAL_EPOCH;
            return false;
        }
        if (responseSessionId == NO_SESSION_ID) {
            // the broker closed the session; this answer is still valid
            sessionId = NO_SESSION_ID;
            nextEpoch = INITIAL_EPOCH;
        } else {
            nextEpoch = nextEpoch(nextEpoch);
        }
        return true;
    }

    /** The request failed (connection lost, timeout): the next request closes this session and opens a new one. */
    void onFailure() {
        nextEpoch = INITIAL_EPOCH;
    }

    /** The epoch after {@code epoch}: -1 stays -1, {@link Integer#MAX_VALUE} wraps to 1 (0 only opens a session). */
    static int nextEpoch(int epoch) {
        if (epoch < 0) {
            return FINAL_EPOCH;
        }
        return epoch == Integer.MAX_VALUE ? 1 : epoch + 1;
    }

    @Override
    public String toString() {
        return "FetchSession(node " + nodeId + ", id " + sessionId + ", next epoch " + nextEpoch + ", "
                + partitions.size() + " partitions)";
    }
}
