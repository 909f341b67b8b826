package io.kflux.group;

import io.kflux.group.ClassicGroupMember.Generation;
import io.kflux.group.CoordinatorIo.CoordinatorChannel;
import io.kflux.network.NetworkException;
import io.kflux.network.UnsupportedVersionException;
import io.kflux.protocol.Errors;
import io.kflux.protocol.message.HeartbeatRequest;
import io.kflux.protocol.message.HeartbeatResponse;
import io.kflux.util.StateTransitions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;

/**
 * The classic protocol's heartbeat loop of one {@link ClassicGroupMember}: a Heartbeat every
 * {@code heartbeat.interval.ms} while the member's state allows one (at most one in flight), and the session
 * ({@link SessionTimer}: no answer within {@code session.timeout.ms}, whether or not the coordinator is known, and the
 * member's session is over: {@link ClassicGroupMember#sessionExpired}), and what each answer means for the member
 * (judged by {@link ClassicAnswers}: rejoin, reset, fail). Loop-only state; timers and answers hop onto the member's
 * loop.
 */
final class ClassicHeartbeat {
    private static final Logger log = LoggerFactory.getLogger(ClassicHeartbeat.class);

    private final ClassicGroupMember member;
    private final GroupConfig config;
    private final ClassicMembership core;
    private final ClassicSubscriptionCheck subscription;
    private final String logPrefix;
    private Disposable timer;
    private Disposable call;
    /** Whether the loop has a Heartbeat out (IN_FLIGHT_THEN_AGAIN is the KIP-848 member's; not used here). */
    private HeartbeatPhase phase = HeartbeatPhase.IDLE;
    /** Numbers each Heartbeat sent; the one out is {@link #outId}, so a late answer of an earlier one ends nothing. */
    private long seq;
    private long outId;
    private final SessionTimer session;

    ClassicHeartbeat(ClassicGroupMember member, GroupConfig config, ClassicMembership core,
                     ClassicSubscriptionCheck subscription, String logPrefix) {
        this.member = member;
        this.config = config;
        this.core = core;
        this.subscription = subscription;
        this.logPrefix = logPrefix;
        this.session = new SessionTimer(config.sessionTimeoutMs(), member::now, member::schedule,
                member::sessionHeld, member::joinAwaited, member::onSessionInDoubt, member::sessionExpired);
    }

    /** Starts the loop when the member's state allows heartbeats and none is scheduled. */
    void ensure() {
        if (timer != null || !member.heartbeatAllowed()) {
            return;
        }
        timer = member.schedule(config.heartbeatIntervalMs(), this::tick);
    }

    /**
     * A coordinator was found again: heartbeat at once (not after an interval) when the state allows, so the session
     * is confirmed, or found gone, while there is time left of it.
     */
    void resume() {
        if (!member.heartbeatAllowed()) {
            return;
        }
        dispose(timer);
        timer = member.schedule(0, this::tick);
    }

    /**
     * The coordinator answered a Heartbeat sent at {@code sentAtMs} (member's clock, ms): the session is confirmed as
     * of that send. Called after the member applied the answer: it confirms the session only when the member then holds
     * one ({@link SessionTimer#confirmed(long)}).
     */
    void answered(long sentAtMs) {
        session.confirmed(sentAtMs);
    }

    /** A JoinGroup answer gave the member a new generation, whose session the broker started just before. */
    void joined() {
        session.confirmed();
    }

    /** The JoinGroup out ended without an answer: it confirms nothing ({@link SessionTimer#unanswered()}). */
    void joinUnanswered() {
        session.unanswered();
    }

    /** Stops the timer; an answer in flight is still taken when it comes. */
    void stop() {
        dispose(timer);
        timer = null;
        ended();
    }

    /**
     * Stops the timer and abandons the request in flight (closed or failed member). A failed member keeps records
     * held back ({@link SessionTimer#stop(boolean)}): its session was not confirmed again.
     */
    void cancel(boolean failed) {
        stop();
        dispose(call);
        call = null;
        session.stop(failed);
    }

    /** A failed heartbeat is tried again after {@code retry.backoff.ms} (at most the interval). */
    void retrySoon() {
        if (!member.heartbeatAllowed()) {
            return;
        }
        dispose(timer);
        timer = member.schedule(Math.min(config.retryBackoffMs(), config.heartbeatIntervalMs()), this::tick);
    }

    private void tick() {
        timer = null;
        if (!member.heartbeatAllowed()) {
            return;
        }
        if (phase == HeartbeatPhase.IDLE) {
            send();
        }
        timer = member.schedule(config.heartbeatIntervalMs(), this::tick);
    }

    private void send() {
        Generation sent = member.generation();
        CoordinatorChannel ch = member.coordinatorChannel();
        long id = ++seq;
        outId = id;
        phase = StateTransitions.check(phase, HeartbeatPhase.IN_FLIGHT);
        HeartbeatRequest request = new HeartbeatRequest(config.groupId(), sent.generationId(), sent.memberId(),
                config.groupInstanceId());
        long sentAt = System.nanoTime();
        long sentAtMs = member.now();
        call = ch.send(request, config.requestTimeoutMs()).subscribe(
                r -> {
                    member.metrics().heartbeat(System.nanoTime() - sentAt);
                    member.onLoop(() -> onResponse(ch, sent, id, r, sentAtMs));
                },
                e -> member.onLoop(() -> onFailure(ch, id, e)));
    }

    private void onResponse(CoordinatorChannel ch, Generation sent, long id, HeartbeatResponse response,
                            long sentAtMs) {
        if (outId == id) {
            ended();
        }
        if (ch != member.coordinatorChannel() || member.state().isTerminal()) {
            return;
        }
        onAnswer(ch, sent, Errors.forCode(response.errorCode()), sentAtMs);
    }

    /** What a Heartbeat answer (from the current coordinator, for {@code sent}) means for the member. */
    private void onAnswer(CoordinatorChannel ch, Generation sent, Errors error, long sentAtMs) {
        switch (ClassicAnswers.heartbeat(error, sent, core.generation(), core.phase())) {
            case CONFIRMED -> {
                answered(sentAtMs);
                subscription.checkIfChanged();
            }
            case CONFIRMED_IN_REBALANCE -> answered(sentAtMs);
            case CONFIRMED_REBALANCING -> {
                answered(sentAtMs);
                member.requestRejoin("the group is rebalancing");
            }
            case RESET_AND_REJOIN -> {
                member.resetGeneration(error == Errors.UNKNOWN_MEMBER_ID, error + " from Heartbeat");
                member.requestRejoin(error + " from Heartbeat");
                // after the reset: it does not end holding back records of a session in doubt
                answered(sentAtMs);
            }
            case STALE_ANSWER -> answered(sentAtMs);
            case FENCED -> member.fail(member.fencedInstance("Heartbeat"));
            case IGNORED -> { }
            case COORDINATOR_LOST -> member.coordinatorLost(ch, error + " from Heartbeat");
            case FATAL -> member.fail(member.protocolError(error, "Heartbeat"));
            case RETRY -> {
                log.warn("{}Heartbeat failed with {}; retrying", logPrefix, error);
                retrySoon();
            }
        }
    }

    private void onFailure(CoordinatorChannel ch, long id, Throwable e) {
        if (outId == id) {
            ended();
        }
        if (ch != member.coordinatorChannel() || member.state().isTerminal()) {
            return;
        }
        if (e instanceof NetworkException && !(e instanceof UnsupportedVersionException)) {
            member.coordinatorLost(ch, "Heartbeat failed: " + e.getMessage());
        } else {
            log.warn("{}Heartbeat failed ({}); retrying", logPrefix, e.toString());
            retrySoon();
        }
    }

    /** The Heartbeat out was answered, failed, or is no longer waited for ({@link #stop()}). */
    private void ended() {
        if (phase != HeartbeatPhase.IDLE) {
            phase = StateTransitions.check(phase, HeartbeatPhase.IDLE);
        }
    }

    private static void dispose(Disposable d) {
        if (d != null) {
            d.dispose();
        }
    }
}
