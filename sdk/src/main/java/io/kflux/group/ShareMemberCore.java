package io.kflux.group;

import io.kflux.KafkaFluxException;
import io.kflux.TopicPartition;
import io.kflux.metadata.BrokerErrors;
import io.kflux.network.NetworkException;
import io.kflux.network.UnsupportedVersionException;
import io.kflux.protocol.Errors;
import io.kflux.protocol.message.ShareGroupHeartbeatRequest;
import io.kflux.protocol.message.ShareGroupHeartbeatResponse;
import io.kflux.util.Backoff;
import io.kflux.util.StateTransitions;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.function.Function;

/**
 * The share group member (KIP-932) as a pure machine: events in (start, coordinator found or lost, a heartbeat
 * answered or failed, a timer, metadata, leave), {@link Action}s out, the time passed in as milliseconds of a
 * monotonic clock. No I/O, no timers, no threads: {@link ShareGroupMember} drives it on the consumer's loop, and the
 * unit tests drive it with virtual time. States in {@link ShareMemberState}; whether the coordinator is known and
 * a heartbeat is out in {@link ShareHeartbeatPhase}; the assignment by topic id in {@link TargetAssignment},
 * resolved to names through metadata (unknown ids: {@link AwaitTopicIds}).
 *
 * <p>Rules: heartbeat with epoch 0 and the subscription to join, then every {@code heartbeatIntervalMs} the
 * coordinator answered (its default, 5 s, until it answers); a share member owns its assignment as soon as it is
 * named (no revocation step). FENCED_MEMBER_EPOCH / UNKNOWN_MEMBER_ID, or the session expired on the member's side
 * ({@link #sessionExpired}, timed by the driver's {@link SessionTimer} as for the consumer group members): the
 * assignment is dropped as lost and the member joins again with epoch 0. NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE and network failures: the coordinator is looked for
 * again. Other retriable codes: the next heartbeat after {@code retry.backoff.ms}, growing. GROUP_AUTHORIZATION_FAILED,
 * TOPIC_AUTHORIZATION_FAILED, a broker without ShareGroupHeartbeat v1 and any other code end the member.
 * Leaving sends epoch -1 (once the coordinator is known; a failure to reach it ends in LEFT all the same).
 */
final class ShareMemberCore {
    /** What the driver does next. */
    sealed interface Action permits Send, Assign, FindCoordinator, AwaitTopicIds, Fail, Left {
    }

    /** Send this heartbeat to the coordinator now and report its answer or failure. */
    record Send(ShareGroupHeartbeatRequest request) implements Action {
    }

    /**
     * The member's whole assignment is now {@code partitions} (with each one's topic id). {@code lost}: the coordinator
     * took the previous one away (fenced, or the session expired), so the records acquired on it are not this
     * member's any more (the broker releases them); false when it only changed or the member leaves.
     */
    record Assign(Map<TopicPartition, UUID> partitions, boolean lost) implements Action {
        /** An assignment that replaces the previous one without losing it. */
        Assign(Map<TopicPartition, UUID> partitions) {
            this(partitions, false);
        }
    }

    /** The coordinator is unknown or lost: look for it, then report {@link #coordinatorFound}. */
    record FindCoordinator(String reason) implements Action {
    }

    /** Assigned topic ids metadata does not know yet: refresh it and report {@link #metadata}. */
    record AwaitTopicIds(Set<UUID> unknown) implements Action {
    }

    /** The member ended on an error no retry mends. */
    record Fail(KafkaFluxException error) implements Action {
    }

    /** The member left the group (or never joined and will not). */
    record Left() implements Action {
    }

    private final String groupId;
    private final String memberId;
    private final List<String> topics;
    private final String rackId;
    /** The interval the coordinator names and the backoff after failures in a row. */
    private final HeartbeatCadence cadence;
    private ShareMemberState state = ShareMemberState.UNJOINED;
    private ShareHeartbeatPhase heartbeat = ShareHeartbeatPhase.NO_COORDINATOR;
    private int epoch = ShareGroupHeartbeatRequest.JOIN_EPOCH;
    private long nextHeartbeatMs;
    private TargetAssignment target;
    private Map<TopicPartition, UUID> assigned = Map.of();

    /**
     * @param memberId the member id this member generated (KIP-932: the client chooses it, a UUID)
     * @param topics   the subscribed topic names
     * @param rackId   {@code client.rack}; null or empty for none (the broker refuses an empty rack id)
     */
    ShareMemberCore(String groupId, String memberId, List<String> topics, String rackId, Backoff backoff) {
        this.groupId = groupId;
        this.memberId = memberId;
        this.topics = List.copyOf(topics);
        this.rackId = rackId == null || rackId.isEmpty() ? null : rackId;
        this.cadence = new HeartbeatCadence(backoff);
    }

    ShareMemberState state() {
        return state;
    }

    int epoch() {
        return epoch;
    }

    String memberId() {
        return memberId;
    }

    Map<TopicPartition, UUID> assigned() {
        return assigned;
    }

    /** Whether the member holds a session the coordinator times out: an epoch, in a state that heartbeats. */
    boolean sessionHeld() {
        return state == ShareMemberState.STABLE && epoch > 0;
    }

    /** When {@link #tick} has something to do, in the clock's ms; {@link Long#MAX_VALUE} when nothing is timed. */
    long wakeAtMs() {
        return state.heartbeats() && heartbeat == ShareHeartbeatPhase.IDLE ? nextHeartbeatMs
                : Long.MAX_VALUE;
    }

    /** Starts joining. */
    List<Action> start(long nowMs) {
        if (state != ShareMemberState.UNJOINED) {
            return List.of();
        }
        move(ShareMemberState.JOINING);
        nextHeartbeatMs = nowMs;
        return due(nowMs);
    }

    /** The coordinator is known now. */
    List<Action> coordinatorFound(long nowMs) {
        if (heartbeat == ShareHeartbeatPhase.NO_COORDINATOR) {
            heartbeat = StateTransitions.check(heartbeat, ShareHeartbeatPhase.IDLE);
        }
        cadence.reset();
        nextHeartbeatMs = nowMs;
        return due(nowMs);
    }

    /** The coordinator was lost; a heartbeat out to it is abandoned (its answer, if any, is not reported). */
    List<Action> coordinatorLost(String reason) {
        if (heartbeat != ShareHeartbeatPhase.NO_COORDINATOR) {
            heartbeat = StateTransitions.check(heartbeat, ShareHeartbeatPhase.NO_COORDINATOR);
        }
        return state.heartbeats() ? List.of(new FindCoordinator(reason)) : List.of();
    }

    /** The timer fired. */
    List<Action> tick(long nowMs) {
        return due(nowMs);
    }

    /** A metadata snapshot arrived: assigned topic ids may be known now. */
    List<Action> metadata(Function<UUID, String> topicNames) {
        if (state != ShareMemberState.STABLE || target == null) {
            return List.of();
        }
        return resolve(topicNames);
    }

    /** Leaves the group: epoch -1 now, or once the coordinator is known. */
    List<Action> leave(long nowMs) {
        if (state == ShareMemberState.UNJOINED) {
            move(ShareMemberState.LEFT);
            return List.of(new Left());
        }
        if (state.isTerminal() || state == ShareMemberState.LEAVING) {
            return List.of();
        }
        boolean joined = epoch > 0;
        move(ShareMemberState.LEAVING);
        assigned = Map.of();
        if (!joined && heartbeat != ShareHeartbeatPhase.IN_FLIGHT) {
            move(ShareMemberState.LEFT); // the coordinator never gave it an epoch
            return List.of(new Assign(Map.of()), new Left());
        }
        nextHeartbeatMs = nowMs;
        List<Action> out = new ArrayList<>();
        out.add(new Assign(Map.of()));
        out.addAll(due(nowMs));
        return out;
    }

    /** The coordinator answered {@code sent}. */
    List<Action> answered(ShareGroupHeartbeatRequest sent, ShareGroupHeartbeatResponse response, long nowMs,
                          Function<UUID, String> topicNames) {
        idle();
        if (state.isTerminal()) {
            return List.of();
        }
        if (state == ShareMemberState.LEAVING) {
            if (sent.memberEpoch() != ShareGroupHeartbeatRequest.LEAVE_EPOCH) {
                nextHeartbeatMs = nowMs; // the heartbeat out when leave() came: the leave goes now
                return due(nowMs);
            }
            move(ShareMemberState.LEFT);
            return List.of(new Left());
        }
        Errors error = Errors.forCode(response.errorCode());
        String message = "ShareGroupHeartbeat for group " + groupId + " answered " + error
                + (response.errorMessage() == null || response.errorMessage().isEmpty() ? "" : ": "
                + response.errorMessage());
        switch (error) {
            case NONE -> {
                return joined(sent, response, nowMs, topicNames);
            }
            case FENCED_MEMBER_EPOCH, UNKNOWN_MEMBER_ID -> {
                return rejoin(nowMs);
            }
            case NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE -> {
                return coordinatorLost(error.toString());
            }
            default -> {
                if (error.retriable()) {
                    cadence.failed();
                    nextHeartbeatMs = nowMs + cadence.retryDelayMs();
                    return List.of();
                }
                return fail(BrokerErrors.of(response.errorCode(), message, topics.size() == 1 ? topics.get(0) : null,
                        groupId));
            }
        }
    }

    /**
     * No answer confirmed the session for the session timeout and as long again ({@link SessionTimer}): the coordinator
     * has removed this member, whether or not it could say so. As FENCED_MEMBER_EPOCH: the assignment is lost, and the
     * member joins again with epoch 0. Nothing when no session is held (joining, leaving, ended).
     */
    List<Action> sessionExpired(long nowMs) {
        return sessionHeld() ? rejoin(nowMs) : List.of();
    }

    /** The heartbeat out failed without an answer. */
    List<Action> failed(Throwable error, long nowMs) {
        idle();
        if (state.isTerminal()) {
            return List.of();
        }
        if (error instanceof UnsupportedVersionException) {
            return fail(new io.kflux.UnsupportedVersionException(error.getMessage()
                    + " (share groups need a broker with ShareGroupHeartbeat v1: Kafka 4.1 or later, production-ready"
                    + " from 4.2)", error));
        }
        if (state == ShareMemberState.LEAVING) {
            move(ShareMemberState.LEFT); // leaving is best effort: the session timeout removes the member
            return List.of(new Left());
        }
        if (error instanceof NetworkException) {
            return coordinatorLost("ShareGroupHeartbeat failed: " + error.getMessage());
        }
        cadence.failed();
        nextHeartbeatMs = nowMs + cadence.retryDelayMs();
        return List.of();
    }

    /** The coordinator no longer knows this membership: the assignment is lost; join again with epoch 0. */
    private List<Action> rejoin(long nowMs) {
        List<Action> out = new ArrayList<>();
        if (!assigned.isEmpty()) {
            out.add(new Assign(Map.of(), true));
        }
        assigned = Map.of();
        target = null;
        epoch = ShareGroupHeartbeatRequest.JOIN_EPOCH;
        if (state == ShareMemberState.STABLE) {
            move(ShareMemberState.JOINING);
        }
        nextHeartbeatMs = nowMs;
        out.addAll(due(nowMs));
        return out;
    }

    private List<Action> joined(ShareGroupHeartbeatRequest sent, ShareGroupHeartbeatResponse response, long nowMs,
                                Function<UUID, String> topicNames) {
        if (sent.memberEpoch() != epoch) {
            cadence.reset();
            nextHeartbeatMs = nowMs; // an answer for a membership given up meanwhile decides nothing
            return due(nowMs);
        }
        epoch = response.memberEpoch();
        nextHeartbeatMs = nowMs + cadence.answered(response.heartbeatIntervalMs());
        if (state == ShareMemberState.JOINING) {
            move(ShareMemberState.STABLE);
        }
        if (response.assignment() != null) {
            target = TargetAssignment.of(response.assignment());
            return resolve(topicNames);
        }
        return List.of();
    }

    private List<Action> resolve(Function<UUID, String> topicNames) {
        TargetAssignment.Step step = target.against(assigned.keySet(), topicNames);
        if (step instanceof TargetAssignment.AwaitTopicIds wait) {
            return List.of(new AwaitTopicIds(wait.unknown()));
        }
        if (step instanceof TargetAssignment.Move move) {
            Map<TopicPartition, UUID> next = new HashMap<>(assigned);
            next.keySet().removeAll(move.revoked());
            next.putAll(move.ids());
            assigned = Map.copyOf(next);
            return List.of(new Assign(assigned));
        }
        return List.of();
    }

    /** A heartbeat when one is due, allowed and possible; else what makes it possible. */
    private List<Action> due(long nowMs) {
        if (!state.heartbeats() || heartbeat == ShareHeartbeatPhase.IN_FLIGHT || nowMs < nextHeartbeatMs) {
            return List.of();
        }
        if (heartbeat == ShareHeartbeatPhase.NO_COORDINATOR) {
            return List.of(new FindCoordinator("no coordinator known yet"));
        }
        heartbeat = StateTransitions.check(heartbeat, ShareHeartbeatPhase.IN_FLIGHT);
        int sentEpoch = state == ShareMemberState.LEAVING ? ShareGroupHeartbeatRequest.LEAVE_EPOCH : epoch;
        boolean full = sentEpoch == ShareGroupHeartbeatRequest.JOIN_EPOCH;
        // the subscription goes with every heartbeat but the leave: a few bytes, and a new coordinator never has a
        // stale view of it
        return List.of(new Send(new ShareGroupHeartbeatRequest(groupId, memberId, sentEpoch, full ? rackId : null,
                sentEpoch == ShareGroupHeartbeatRequest.LEAVE_EPOCH ? null : topics)));
    }

    private void idle() {
        if (heartbeat == ShareHeartbeatPhase.IN_FLIGHT) {
            heartbeat = StateTransitions.check(heartbeat, ShareHeartbeatPhase.IDLE);
        }
    }

    private List<Action> fail(KafkaFluxException error) {
        move(ShareMemberState.FATAL);
        assigned = Map.of();
        return List.of(new Fail(error));
    }

    private void move(ShareMemberState next) {
        state = StateTransitions.check(this, state, next);
    }

    @Override
    public String toString() {
        return "share member " + memberId + " of group " + groupId + " (" + state + ", epoch " + epoch + ")";
    }
}
