package io.kflux.group;

import io.kflux.KafkaFluxException;
import io.kflux.TopicPartition;
import io.kflux.group.ClassicGroupMember.Generation;
import io.kflux.group.CoordinatorIo.CoordinatorChannel;
import io.kflux.group.assignor.Assignment;
import io.kflux.group.assignor.ConsumerProtocolCodec;
import io.kflux.group.assignor.PartitionAssignor;
import io.kflux.group.assignor.Subscription;
import io.kflux.metadata.Cluster;
import io.kflux.network.NetworkException;
import io.kflux.network.UnsupportedVersionException;
import io.kflux.protocol.ApiRequest;
import io.kflux.protocol.Errors;
import io.kflux.protocol.message.JoinGroupRequest;
import io.kflux.protocol.message.JoinGroupRequest.JoinGroupRequestProtocol;
import io.kflux.protocol.message.JoinGroupResponse;
import io.kflux.protocol.message.SyncGroupRequest;
import io.kflux.protocol.message.SyncGroupRequest.SyncGroupRequestAssignment;
import io.kflux.protocol.message.SyncGroupResponse;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;

/**
 * The classic member's rebalance flow, one step at a time: the listener's revoke before joining, JoinGroup (again with
 * the member id KIP-394 hands out), the leader's assignment from fresh metadata ({@link LeaderAssignment}, KIP-814's
 * skipAssignment), SyncGroup, and taking the assignment (cooperative, KIP-429: revoke what moved, then rejoin).
 * Each request's answer is taken only under the flow epoch it was sent in ({@link ClassicMembership#flowEpoch()}):
 * an abandoned step's answer is ignored. What an answer means is {@link ClassicAnswers}'; where the member goes next
 * is {@link ClassicMembership}'s; this sends, and tells them. Loop-only state.
 */
final class ClassicJoinFlow {
    private static final Logger log = LoggerFactory.getLogger(ClassicJoinFlow.class);
    /** The broker holds a JoinGroup for up to the rebalance timeout: allow this much more for the answer. */
    static final long JOIN_GROUP_TIMEOUT_LAPSE_MS = 5_000;

    private final ClassicGroupMember member;
    private final GroupConfig config;
    private final ClassicMembership core;
    private final ClassicHeartbeat heartbeat;
    private final ListenerCalls listenerCalls;
    private final LeaderAssignment leaderAssignment;
    private final ClassicSubscriptionCheck subscription;
    private final GroupIo io;
    private final String logPrefix;

    /** The JoinGroup, SyncGroup, leader metadata refresh or retry timer of the current rebalance step. */
    private Disposable step;

    ClassicJoinFlow(ClassicGroupMember member, GroupConfig config, ClassicMembership core, ClassicHeartbeat heartbeat,
                    ListenerCalls listenerCalls, LeaderAssignment leaderAssignment,
                    ClassicSubscriptionCheck subscription, GroupIo io, String logPrefix) {
        this.member = member;
        this.config = config;
        this.core = core;
        this.heartbeat = heartbeat;
        this.listenerCalls = listenerCalls;
        this.leaderAssignment = leaderAssignment;
        this.subscription = subscription;
        this.io = io;
        this.logPrefix = logPrefix;
    }

    /** Cancels the request or timer of the step under way; the core's flow epoch retires its answers. */
    void abandonStep() {
        if (step != null) {
            step.dispose();
        }
        step = null;
    }

    /**
     * First step of a rebalance: tells the listener what this member gives up before it joins. Lost when the
     * generation is gone (the group already gave the partitions to others); eager: everything is revoked;
     * cooperative: only partitions of topics no longer subscribed (the rest is kept and reported as owned).
     */
    void prepareJoin() {
        long epoch = core.prepareJoin();
        Generation atStart = core.generation();
        boolean lost = !atStart.valid();
        heartbeat.ensure();
        listenerCalls.drop(lost ? ListenerCalls.Drop.LOST : ListenerCalls.Drop.REVOKED,
                () -> core.toDropBeforeJoin(lost), dropped -> {
                    core.dropped(dropped);
                    afterPrepare(epoch, atStart);
                });
    }

    private void afterPrepare(long epoch, Generation atStart) {
        switch (core.afterPrepare(epoch, atStart, member.coordinatorChannel() != null)) {
            case NOTHING -> { }
            case PREPARE_AGAIN -> prepareJoin(); // the generation was reset while the listener ran: the rest is lost
            case PROCEED -> member.proceed(); // the coordinator moved while the listener ran: joins once it is found again
            case SEND_JOIN -> sendJoin();
        }
    }

    private void sendJoin() {
        subscription.rematch();
        core.joinSent(System.nanoTime());
        heartbeat.stop(); // the broker holds the JoinGroup; heartbeats resume with the new generation
        CoordinatorChannel ch = member.coordinatorChannel();
        Generation current = core.generation();
        JoinGroupRequest request = new JoinGroupRequest(config.groupId(), config.sessionTimeoutMs(),
                config.maxPollIntervalMs(), current.memberId(), config.groupInstanceId(), config.protocolType(),
                joinProtocols(current), ClassicLeave.truncate(core.rejoinReason()));
        long timeoutMs = Math.max(config.requestTimeoutMs(),
                config.maxPollIntervalMs() + JOIN_GROUP_TIMEOUT_LAPSE_MS);
        log.debug("{}sending JoinGroup (member id '{}', generation {}, topics {}, owned {})", logPrefix,
                current.memberId(), current.generationId(), core.joinedTopics(), core.owned());
        sendStep(ch, request, timeoutMs, "JoinGroup", r -> onJoinResponse(ch, r));
    }

    /** Sends the request of the step under way; its answer or failure counts only while that step is current. */
    private <R> void sendStep(CoordinatorChannel ch, ApiRequest<R> request, long timeoutMs, String what,
                              Consumer<R> onAnswer) {
        long epoch = core.flowEpoch();
        step = ch.send(request, timeoutMs).subscribe(
                r -> member.onLoop(() -> {
                    if (epoch == core.flowEpoch()) {
                        onAnswer.accept(r);
                    }
                }),
                e -> member.onLoop(() -> {
                    if (epoch == core.flowEpoch()) {
                        onFailure(ch, what, e);
                    }
                }));
    }

    /** One JoinGroup protocol per assignor, in preference order, each with this member's subscription (v3). */
    private List<JoinGroupRequestProtocol> joinProtocols(Generation current) {
        List<TopicPartition> ownedSorted = new ArrayList<>(core.owned());
        ownedSorted.sort(ListenerCalls.PARTITION_ORDER);
        List<JoinGroupRequestProtocol> protocols = new ArrayList<>();
        for (PartitionAssignor assignor : config.assignors()) {
            protocols.add(new JoinGroupRequestProtocol(assignor.name(), ConsumerProtocolCodec.subscriptionMetadata(
                    assignor, core.joinedTopics(), ownedSorted, current.generationId(), config.rackOrNull())));
        }
        return protocols;
    }

    private void onJoinResponse(CoordinatorChannel ch, JoinGroupResponse response) {
        step = null;
        Errors error = Errors.forCode(response.errorCode());
        switch (ClassicAnswers.join(error)) {
            case JOINED -> {
                member.metrics().joined(core.stepNanos(System.nanoTime()));
                if (response.protocolType() != null && !response.protocolType().equals(config.protocolType())) {
                    member.fail(member.protocolError(Errors.INCONSISTENT_GROUP_PROTOCOL, "JoinGroup answered protocol "
                            + "type " + response.protocolType() + ", expected " + config.protocolType()));
                    return;
                }
                core.joined(new Generation(response.generationId(), response.memberId(), response.protocolName()));
                log.info("{}joined generation {} as {} ({}, assignor {})", logPrefix, response.generationId(),
                        response.memberId(), response.isLeader() ? "leader" : "follower", response.protocolName());
                heartbeat.joined(); // the session of the new generation starts now (SYNCING holds it)
                heartbeat.ensure();
                if (response.isLeader()) {
                    onLeaderElected(response);
                } else {
                    member.resetLeader();
                    sendSync(List.of());
                }
            }
            case JOIN_AGAIN -> {
                if (error == Errors.MEMBER_ID_REQUIRED) {
                    // KIP-394: the broker handed out a member id; join again with it right away.
                    core.memberIdGiven(response.memberId());
                }
                sendJoin();
            }
            case RESET_AND_PREPARE -> {
                member.resetGeneration(error == Errors.UNKNOWN_MEMBER_ID, error + " from JoinGroup");
                core.rejoinReason(error + " from JoinGroup");
                prepareJoin();
            }
            case COORDINATOR_LOST -> member.coordinatorLost(ch, error + " from JoinGroup");
            case FENCED -> member.fail(member.fencedInstance("JoinGroup"));
            case FATAL -> member.fail(member.protocolError(error, "JoinGroup"));
            case RETRY_LATER -> retryJoinLater(error.toString()); // COORDINATOR_LOAD_IN_PROGRESS among others
        }
    }

    private void retryJoinLater(String why) {
        member.metrics().rebalanceFailed();
        long delay = member.backoff.delayMs(core.joinRetryScheduled());
        log.info("{}JoinGroup failed ({}); retrying in {} ms", logPrefix, why, delay);
        long epoch = core.flowEpoch();
        step = member.schedule(delay, () -> {
            if (epoch == core.flowEpoch() && !core.inactive()) {
                if (member.coordinatorChannel() == null) {
                    member.awaitCoordinator();
                } else {
                    sendJoin();
                }
            }
        });
    }

    private void onFailure(CoordinatorChannel ch, String what, Throwable e) {
        step = null;
        if (e instanceof UnsupportedVersionException) {
            // the network layer's error in the public type, which is what receive() promises to end with
            member.fail(new io.kflux.UnsupportedVersionException(e.getMessage(), e));
        } else if (e instanceof NetworkException) {
            member.metrics().rebalanceFailed();
            member.coordinatorLost(ch, what + " failed: " + e.getMessage());
        } else {
            retryJoinLater(e.toString());
        }
    }

    private void onLeaderElected(JoinGroupResponse response) {
        Map<String, Subscription> subscriptions;
        try {
            subscriptions = leaderAssignment.elect(response.members(), core.subscribed());
        } catch (KafkaFluxException e) {
            member.fail(e);
            return;
        }
        subscription.updateInterest();
        boolean skip = response.skipAssignment();
        PartitionAssignor assignor = assignor(response.protocolName());
        if (assignor == null && !skip) {
            member.fail(new KafkaFluxException("the coordinator chose assignor '" + response.protocolName()
                    + "', which this member does not have"));
            return;
        }
        long epoch = core.flowEpoch();
        step = io.refreshMetadata()
                .onErrorResume(e -> {
                    log.warn("{}metadata refresh before assigning failed ({}); assigning with the last snapshot",
                            logPrefix, e.toString());
                    return Mono.fromSupplier(io::cluster);
                })
                .subscribe(cluster -> member.onLoop(() -> {
                    if (epoch != core.flowEpoch()) {
                        return;
                    }
                    if (skip) {
                        // KIP-814: a static leader that rejoined must not reassign; it keeps watching the group's
                        // topics, with counts from fresh metadata: a topic its snapshot did not know yet would
                        // otherwise look new and make it rebalance the group for nothing.
                        step = null;
                        log.info("{}leader of generation {} with skipAssignment: not reassigning", logPrefix,
                                response.generationId());
                        subscription.checked(cluster);
                        leaderAssignment.skipAssignment(cluster);
                        sendSync(List.of());
                    } else {
                        assignAndSync(assignor, subscriptions, cluster);
                    }
                }));
    }

    private void assignAndSync(PartitionAssignor assignor, Map<String, Subscription> subscriptions, Cluster cluster) {
        step = null;
        subscription.checked(cluster);
        if (!subscription.topicErrorsPass(cluster)) {
            return;
        }
        List<SyncGroupRequestAssignment> assignments;
        try {
            assignments = leaderAssignment.assign(assignor, subscriptions, cluster);
        } catch (KafkaFluxException e) {
            member.fail(e);
            return;
        }
        sendSync(assignments);
        subscription.watchMissingTopics(cluster);
    }

    private void sendSync(List<SyncGroupRequestAssignment> assignments) {
        CoordinatorChannel ch = member.coordinatorChannel();
        Generation sent = core.generation();
        SyncGroupRequest request = new SyncGroupRequest(config.groupId(), sent.generationId(), sent.memberId(),
                config.groupInstanceId(), config.protocolType(), sent.protocolName(), assignments);
        core.syncSent(System.nanoTime());
        sendStep(ch, request, config.requestTimeoutMs(), "SyncGroup", r -> onSyncResponse(ch, sent, r));
    }

    private void onSyncResponse(CoordinatorChannel ch, Generation sent, SyncGroupResponse response) {
        step = null;
        Errors error = Errors.forCode(response.errorCode());
        if (error == Errors.NONE) {
            member.metrics().synced(core.stepNanos(System.nanoTime()));
            if (response.protocolType() != null && !response.protocolType().equals(config.protocolType())) {
                member.fail(member.protocolError(Errors.INCONSISTENT_GROUP_PROTOCOL, "SyncGroup answered protocol type "
                        + response.protocolType() + ", expected " + config.protocolType()));
                return;
            }
        }
        switch (ClassicAnswers.sync(error, sent, core.generation())) {
            case ASSIGNED -> {
                if (response.protocolName() != null && !response.protocolName().equals(sent.protocolName())) {
                    member.fail(member.protocolError(Errors.INCONSISTENT_GROUP_PROTOCOL, "SyncGroup answered protocol "
                            + response.protocolName() + ", expected " + sent.protocolName()));
                    return;
                }
                Assignment assignment;
                try {
                    assignment = ConsumerProtocolCodec.assignment(response.assignment());
                } catch (RuntimeException e) {
                    member.fail(new KafkaFluxException("the assignment from SyncGroup cannot be read: "
                            + e.getMessage(), e));
                    return;
                }
                onAssignment(sent, assignment);
            }
            case GENERATION_CHANGED -> {
                // A heartbeat reset the generation meanwhile: this assignment is stale, join again.
                core.rejoinReason("the generation was reset during SyncGroup");
                prepareJoin();
            }
            case PREPARE_JOIN -> {
                core.rejoinReason("the group began another rebalance");
                prepareJoin();
            }
            case RESET_AND_PREPARE -> {
                if (core.generation() == sent) {
                    // ILLEGAL_GENERATION keeps the member id: it may still be valid.
                    member.resetGeneration(error == Errors.UNKNOWN_MEMBER_ID, error + " from SyncGroup");
                }
                core.rejoinReason(error + " from SyncGroup");
                prepareJoin();
            }
            case COORDINATOR_LOST -> member.coordinatorLost(ch, error + " from SyncGroup");
            case FENCED -> member.fail(member.fencedInstance("SyncGroup"));
            case FATAL -> member.fail(member.protocolError(error, "SyncGroup"));
            case RETRY_LATER -> retryJoinLater(error + " from SyncGroup");
        }
    }

    /**
     * Applies a SyncGroup assignment: revoke what was owned but is no longer assigned (cooperative: then rejoin, so
     * those partitions can go to their new owner in a second round, KIP-429), take the new assignment, tell the
     * listener what was added. STABLE from here on; heartbeats continue during the listener calls.
     */
    private void onAssignment(Generation sent, Assignment assignment) {
        Set<TopicPartition> assigned = new HashSet<>(assignment.partitions());
        List<TopicPartition> assignedList = new ArrayList<>(assigned);
        assignedList.sort(ListenerCalls.PARTITION_ORDER);
        long took = core.settled(System.nanoTime());
        if (took >= 0) {
            member.metrics().rebalanced(took);
        }
        log.info("{}generation {}: assigned {}", logPrefix, sent.generationId(), assignedList);
        Set<String> unexpected = core.unexpectedTopics(assigned);
        if (!unexpected.isEmpty()) {
            // The subscription changed since the JoinGroup (or the leader is confused): do not take partitions of
            // topics this member does not want; join again with the current subscription.
            log.warn("{}assignment has topics {} outside the subscription {}; rejoining", logPrefix, unexpected,
                    core.subscribed());
            core.requestRejoin("the assignment does not match the subscription");
            member.proceed();
            return;
        }
        PartitionAssignor assignor = assignor(sent.protocolName());
        if (assignor != null) {
            try {
                assignor.onAssignment(assignment, sent.generationId());
            } catch (RuntimeException e) {
                log.warn("{}assignor '{}' failed in onAssignment", logPrefix, assignor.name(), e);
            }
        }
        long epoch = core.flowEpoch();
        Set<TopicPartition> revoked = core.revokedBy(assigned);
        heartbeat.ensure();
        listenerCalls.drop(ListenerCalls.Drop.REVOKED, () -> revoked, dropped -> {
            core.dropped(dropped);
            if (epoch != core.flowEpoch()) {
                return; // left, poll timeout or closed meanwhile: the new assignment is not taken
            }
            Set<TopicPartition> added = core.take(assigned);
            Set<TopicPartition> whole = core.owned();
            listenerCalls.assigned(added, whole, () -> {
                if (epoch == core.flowEpoch()) {
                    member.proceed();
                }
            });
        });
    }

    private PartitionAssignor assignor(String name) {
        for (PartitionAssignor a : config.assignors()) {
            if (a.name().equals(name)) {
                return a;
            }
        }
        return null;
    }
}
