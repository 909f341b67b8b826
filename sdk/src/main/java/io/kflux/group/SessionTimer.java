package io.kflux.group;

import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import reactor.core.Disposable;

/**
 * How long a member may go without its coordinator confirming its session, for both protocols (issue #15). The
 * coordinator expires a member it has not heard from for the session timeout and hands its partitions to others; a
 * member cut off from its coordinator cannot learn that, so it must conclude it on its own: when no answer confirmed
 * the session for the session timeout, the member owns nothing any more. The member then reports its partitions lost
 * (no commit, no emission, no fetch) and joins again once the coordinator is back. Without this a member behind a
 * black hole kept emitting what it had buffered, and fetched and emitted its partitions' backlog when the network
 * came back, all of it consumed again by the partitions' new owner.
 *
 * <p>The clock runs from the member's last confirmation, which comes after the broker received the request it
 * answers: the member's deadline is never earlier than the broker's. It is checked at the deadline by a timer, not
 * only by the heartbeat loop, because that loop stops while the coordinator is being looked for, which is exactly
 * when the session runs out. Loop-only: every method runs on the member's event loop, and the timer hops onto it.
 */
final class SessionTimer {
    /** Schedules a task on the member's loop after a delay. */
    interface Scheduling {
        Disposable schedule(long delayMs, Runnable task);
    }

    private final long timeoutMs;
    private final LongSupplier now;
    private final Scheduling scheduling;
    private final BooleanSupplier held;
    private final Consumer<String> expired;
    private long confirmedMs;
    private Disposable timer;

    /**
     * @param timeoutMs  the session timeout, ms
     * @param now        the member's clock, ms
     * @param held       whether the member holds a session now (its state says so); checked at each deadline
     * @param expired    told, on the loop, that the session ran out, with the reason for the log
     */
    SessionTimer(long timeoutMs, LongSupplier now, Scheduling scheduling, BooleanSupplier held,
                 Consumer<String> expired) {
        this.timeoutMs = timeoutMs;
        this.now = now;
        this.scheduling = scheduling;
        this.held = held;
        this.expired = expired;
    }

    /**
     * The coordinator confirmed the session now (a heartbeat or JoinGroup answer for this membership). Arms the
     * deadline check if it is not armed.
     */
    void confirmed() {
        confirmedMs = now.getAsLong();
        if (timer == null) {
            arm(timeoutMs);
        }
    }

    /** Milliseconds since the last confirmation. */
    long silentMs() {
        return now.getAsLong() - confirmedMs;
    }

    /** True when the session timeout passed without a confirmation. */
    boolean isExpired() {
        return silentMs() >= timeoutMs;
    }

    /** Stops the deadline check (closed or failed member); {@link #confirmed()} arms it again. */
    void cancel() {
        if (timer != null) {
            timer.dispose();
            timer = null;
        }
    }

    private void arm(long delayMs) {
        cancel();
        timer = scheduling.schedule(delayMs, this::check);
    }

    private void check() {
        timer = null;
        if (!held.getAsBoolean()) {
            return; // no session now; the next confirmation arms the check again
        }
        long silent = silentMs();
        if (silent >= timeoutMs) {
            expired.accept("no answer from the group coordinator for " + silent + " ms (session timeout "
                    + timeoutMs + " ms)");
        } else {
            arm(timeoutMs - silent);
        }
    }
}
