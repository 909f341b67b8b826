package io.kflux.group;

import io.kflux.util.StateTransitions;
import java.util.EnumSet;
import java.util.Set;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import reactor.core.Disposable;

/**
 * How long a member may go without its coordinator confirming its session, for both protocols (issue #15). The
 * coordinator expires a member it has not heard from for the session timeout and hands its partitions to others; a
 * member cut off from its coordinator cannot learn that, so it must conclude it on its own. Without this a member
 * behind a black hole kept emitting what it had buffered, and fetched and emitted its partitions' backlog when the
 * network came back, all of it consumed again by the partitions' new owner.
 *
 * <p>Silence for the session timeout does not prove the session gone, though: when the coordinator's node dies or
 * freezes, the coordinator moves, and the new one loads the group with fresh sessions and keeps every member (the
 * official consumer goes on there without a rebalance). A member that finds the new coordinator a moment after its
 * own deadline (its lookups first wait out {@code request.timeout.ms} on the dead node) must not give up partitions
 * it still owns. So the deadline puts the session {@link Phase#IN_DOUBT in doubt}: the consumer holds back every
 * record ({@link GroupListener#onSessionInDoubt}), so nothing is emitted from a session that may be over, while the
 * member keeps trying its coordinator. An answer that confirms the session ends the doubt and emission goes on (no
 * record repeated, no rebalance); an answer that says the member is gone (UNKNOWN_MEMBER_ID, FENCED_MEMBER_EPOCH,
 * ILLEGAL_GENERATION) takes the member's usual loss path; no answer for a second session timeout
 * ({@link #graceMs}) ends the session here ({@code expired}: partitions reported lost, a new join). Records stay held
 * back until a new session is confirmed.
 *
 * <p>A request the coordinator holds before answering (the classic JoinGroup, held for up to the rebalance timeout)
 * keeps the session alive at the broker while it is held, but the member cannot tell a held request from one whose
 * answer was lost (after which the broker expires the member a session timeout on). So the deadline runs while such a
 * request is out ({@code awaiting}): past it the records are held back; the grace does not end the session while the
 * request is still out (the broker may be holding it, and keeping the member); the request's end without an answer
 * ({@link #unanswered()}) confirms nothing and starts the grace again, for the member to reach its coordinator.
 *
 * <p>The clock runs from the member's last confirmation, dated when the confirmed heartbeat was sent: the broker
 * restarted its session clock somewhere between that send and the answer, so the member's deadline is never later
 * than the broker's, however slow the answer's way back (dated at the answer, a slow return path let the member emit
 * past the broker's expiry). Being early costs only a short hold. A JoinGroup answer is dated when it arrives (the
 * broker starts the new generation's sessions when it completes the join, just before). It is checked at the
 * deadline by a timer, not only by the heartbeat loop, because that loop stops while the coordinator is being looked
 * for, which is exactly when the session runs out. Loop-only: every method runs on the member's event loop, and the timer hops onto it.
 */
final class SessionTimer {
    /** Schedules a task on the member's loop after a delay. */
    interface Scheduling {
        Disposable schedule(long delayMs, Runnable task);
    }

    /**
     * Where the session stands as this member sees it. Drives the timer: what {@link #check()} does at a deadline and
     * whether records are held back ({@link #IN_DOUBT}, {@link #LOST}).
     */
    enum Phase implements StateTransitions<Phase> {
        /** No session checked: none held yet, or the member stopped. Nothing held back. */
        IDLE {
            @Override public Set<Phase> previousValidStates() {
                return EnumSet.allOf(Phase.class);
            }
        },
        /** Confirmed less than a session timeout ago; the check runs at the deadline. */
        ALIVE {
            @Override public Set<Phase> previousValidStates() {
                return EnumSet.of(IDLE, IN_DOUBT, LOST);
            }
        },
        /**
         * The deadline passed unconfirmed: records held back, the member tries its coordinator until the grace ends (a
         * grace that ends while a request the coordinator holds is out runs again).
         */
        IN_DOUBT {
            @Override public Set<Phase> previousValidStates() {
                return EnumSet.of(ALIVE);
            }
        },
        /**
         * The session is over (the grace ended, or the member learned it meanwhile): records stay held back until a
         * new session is confirmed, so none of the lost partitions' buffered records slips out before they stop.
         */
        LOST {
            @Override public Set<Phase> previousValidStates() {
                return EnumSet.of(IN_DOUBT, LOST);
            }
        }
    }

    private final long timeoutMs;
    private final long graceMs;
    private final LongSupplier now;
    private final Scheduling scheduling;
    private final BooleanSupplier held;
    private final BooleanSupplier awaiting;
    private final Consumer<Boolean> holdBack;
    private final Consumer<String> expired;
    private Phase phase = Phase.IDLE;
    private long confirmedMs;
    private Disposable timer;
    /**
     * Which armed check may act: a check whose timer fired while the loop was busy runs after whatever the loop was
     * doing, and when that armed a new check (a confirmation), the late one must not act too (two chains of checks
     * would both fire at the next deadline, the second ending at once the doubt the first began).
     */
    private long armed;

    /**
     * @param timeoutMs  the session timeout, ms; also the grace after it ({@link Phase#IN_DOUBT})
     * @param now        the member's clock, ms
     * @param held       whether the member holds a session now (its state says so); checked at each deadline and
     *                   at each confirmation (only a confirmation of a held session ends holding back)
     * @param awaiting   whether a request the coordinator holds before answering (JoinGroup) is out now: the grace
     *                   does not end the session meanwhile
     * @param holdBack   told, on the loop, to hold back records (true) or to emit again (false)
     * @param expired    told, on the loop, that the session ran out, with the reason for the log
     */
    SessionTimer(long timeoutMs, LongSupplier now, Scheduling scheduling, BooleanSupplier held,
                 BooleanSupplier awaiting, Consumer<Boolean> holdBack, Consumer<String> expired) {
        this.timeoutMs = timeoutMs;
        this.graceMs = timeoutMs;
        this.now = now;
        this.scheduling = scheduling;
        this.held = held;
        this.awaiting = awaiting;
        this.holdBack = holdBack;
        this.expired = expired;
    }

    /** {@link #confirmed(long)} dated now: a JoinGroup answer (the broker started the new sessions just before). */
    void confirmed() {
        confirmed(now.getAsLong());
    }

    /**
     * The coordinator answered for this membership (a heartbeat or JoinGroup answer). Call it after the answer was
     * applied to the member's state: a confirmation ends holding back only when the member then holds a session (an
     * UNKNOWN_MEMBER_ID answer does not).
     *
     * @param asOfMs when the session was confirmed on the member's clock: for a heartbeat, when it was sent
     */
    void confirmed(long asOfMs) {
        confirmedMs = Math.max(confirmedMs, asOfMs);
        switch (phase) {
            case IDLE -> {
                moveTo(Phase.ALIVE);
                arm(Math.max(0L, timeoutMs - silentMs()));
            }
            case ALIVE -> { } // the armed check measures from confirmedMs
            case IN_DOUBT, LOST -> {
                if (!held.getAsBoolean()) {
                    cancelTimer();
                    moveTo(Phase.LOST);
                } else if (silentMs() < timeoutMs) {
                    moveTo(Phase.ALIVE);
                    arm(timeoutMs - silentMs());
                    holdBack.accept(false);
                } // else dated past its own deadline (an answer slower than the session): proves nothing now
            }
        }
    }

    /** Milliseconds since the last confirmation. */
    long silentMs() {
        return now.getAsLong() - confirmedMs;
    }

    /**
     * A request the coordinator holds before answering ({@code awaiting}: a JoinGroup) ended without an answer (timed
     * out, its connection lost, or the coordinator moved): it confirms nothing, since its answer may have been lost
     * after the broker completed it. When the session is in doubt, the grace runs again from now, so the member gets
     * to reach its coordinator after waiting on that request.
     */
    void unanswered() {
        if (phase == Phase.IN_DOUBT) {
            arm(graceMs);
        }
    }

    /**
     * Stops the deadline check because the member stopped; {@link #confirmed()} arms it again. A member that failed
     * ({@code fatal}) keeps records held back (the session was not confirmed again, and the consumer ends with the
     * member's error); else they are released.
     *
     * @param fatal whether the member ended on an error it cannot recover from
     */
    void stop(boolean fatal) {
        cancelTimer();
        boolean wasHolding = phase == Phase.IN_DOUBT || phase == Phase.LOST;
        if (fatal && wasHolding) {
            moveTo(Phase.LOST);
            return;
        }
        moveTo(Phase.IDLE);
        if (wasHolding) {
            holdBack.accept(false);
        }
    }

    private void moveTo(Phase next) {
        phase = StateTransitions.check("session", phase, next);
    }

    private void cancelTimer() {
        armed++;
        if (timer != null) {
            timer.dispose();
            timer = null;
        }
    }

    private void arm(long delayMs) {
        cancelTimer();
        long token = armed;
        timer = scheduling.schedule(delayMs, () -> check(token));
    }

    private void check(long token) {
        if (token != armed) {
            return; // cancelled, or another check armed since this one's timer fired
        }
        timer = null;
        switch (phase) {
            case ALIVE -> {
                if (!held.getAsBoolean()) {
                    moveTo(Phase.IDLE); // no session now; the next confirmation arms the check again
                    return;
                }
                long silent = silentMs();
                if (silent < timeoutMs) {
                    arm(timeoutMs - silent);
                    return;
                }
                moveTo(Phase.IN_DOUBT);
                holdBack.accept(true);
                arm(graceMs);
            }
            case IN_DOUBT -> {
                if (awaiting.getAsBoolean()) {
                    arm(graceMs); // the coordinator may be holding the request, and the member with it
                    return;
                }
                moveTo(Phase.LOST);
                if (held.getAsBoolean()) {
                    expired.accept("no answer from the group coordinator for " + silentMs() + " ms (session timeout "
                            + timeoutMs + " ms, then as long again to reach it)");
                }
            }
            case IDLE, LOST -> { } // a check cancelled too late to stop
        }
    }
}
