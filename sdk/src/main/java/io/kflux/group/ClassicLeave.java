package io.kflux.group;

import io.kflux.group.ClassicGroupMember.Generation;
import io.kflux.group.CoordinatorIo.CoordinatorChannel;
import io.kflux.protocol.message.LeaveGroupRequest;
import io.kflux.protocol.message.LeaveGroupResponse;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;
import reactor.core.publisher.MonoSink;

/**
 * The classic member's two ways out of the group: {@code leave()} (the listener's revoke, or lost, then LeaveGroup
 * unless the member is static, KIP-345, ending LEFT) and a poll timeout (LeaveGroup with the official client's reason,
 * partitions lost at once, ending STALE). Where the member goes is {@link ClassicMembership}'s. Loop-only.
 */
final class ClassicLeave {
    private static final Logger log = LoggerFactory.getLogger(ClassicLeave.class);
    /** Reasons sent in JoinGroup/LeaveGroup are cut to this length, as the official client does. */
    static final int MAX_REASON_LENGTH = 255;

    private final ClassicGroupMember member;
    private final GroupConfig config;
    private final ClassicMembership core;
    private final ClassicHeartbeat heartbeat;
    private final ListenerCalls listenerCalls;
    private final ClassicJoinFlow flow;
    private final String logPrefix;

    ClassicLeave(ClassicGroupMember member, GroupConfig config, ClassicMembership core, ClassicHeartbeat heartbeat,
                 ListenerCalls listenerCalls, ClassicJoinFlow flow, String logPrefix) {
        this.member = member;
        this.config = config;
        this.core = core;
        this.heartbeat = heartbeat;
        this.listenerCalls = listenerCalls;
        this.flow = flow;
        this.logPrefix = logPrefix;
    }

    /** See {@link ClassicGroupMember#leave}: {@code sink} completes once the member is LEFT (or stopped). */
    void leave(String reason, MonoSink<Void> sink) {
        ClassicMembership.Leave how = core.leave();
        if (how == ClassicMembership.Leave.DONE) {
            sink.success();
            return;
        }
        member.awaitLeave(sink);
        if (how == ClassicMembership.Leave.JOIN_WAITERS) {
            return;
        }
        flow.abandonStep();
        heartbeat.stop();
        boolean lost = how == ClassicMembership.Leave.LOSE;
        listenerCalls.drop(lost ? ListenerCalls.Drop.LOST : ListenerCalls.Drop.REVOKED, core::owned, dropped -> {
            core.dropped(dropped);
            Generation g = core.generation();
            CoordinatorChannel ch = member.coordinatorChannel();
            Runnable done = () -> {
                core.left();
                member.resetLeader();
                member.leaveEnded();
            };
            if (config.groupInstanceId() != null || ch == null || g.memberId().isEmpty() || member.terminal()) {
                log.info("{}leaving the group without LeaveGroup ({})", logPrefix, config.groupInstanceId() != null
                        ? "static member: the coordinator keeps its partitions until session.timeout.ms"
                        : "no coordinator or member id");
                done.run();
                return;
            }
            send(ch, g, reason).subscribe(null, null, () -> member.onLoop(done));
        });
    }

    /** See {@link ClassicGroupMember#leaveOnPollTimeout()}. */
    void onPollTimeout() {
        CoordinatorChannel ch = member.coordinatorChannel();
        Generation g = core.pollExpired();
        if (config.groupInstanceId() == null && ch != null && !g.memberId().isEmpty()) {
            send(ch, g, ClassicGroupMember.POLL_TIMEOUT_REASON).subscribe();
        }
        flow.abandonStep();
        heartbeat.stop();
        member.resetLeader();
        listenerCalls.drop(ListenerCalls.Drop.LOST, core::owned, core::dropped);
    }

    /** LeaveGroup for {@code g}; completes (never fails) when answered or failed. */
    private Mono<Void> send(CoordinatorChannel ch, Generation g, String reason) {
        log.info("{}member {} sends LeaveGroup: {}", logPrefix, g.memberId(), reason);
        return member.bestEffortLeave(ch.send(LeaveGroupRequest.of(config.groupId(), g.memberId(), null,
                truncate(reason)), config.requestTimeoutMs()), "LeaveGroup", LeaveGroupResponse::errorCode);
    }

    /** A reason as JoinGroup/LeaveGroup carry it: cut to {@link #MAX_REASON_LENGTH}. */
    static String truncate(String reason) {
        if (reason == null) {
            return null;
        }
        return reason.length() <= MAX_REASON_LENGTH ? reason : reason.substring(0, MAX_REASON_LENGTH);
    }
}
