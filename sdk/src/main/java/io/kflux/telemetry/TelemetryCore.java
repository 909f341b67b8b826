package io.kflux.telemetry;

import io.kflux.protocol.Errors;
import io.kflux.protocol.Types;
import io.kflux.protocol.message.GetTelemetrySubscriptionsResponse;
import io.kflux.util.StateTransitions;
import java.util.UUID;
import java.util.function.DoubleSupplier;

/**
 * The client side of KIP-714 as a pure machine: what to send when, and what each answer means. No I/O, times passed
 * in (milliseconds of any monotonic clock), randomness passed in, so tests run it in virtual time.
 *
 * <p>Timing (KIP-714, "Client behavior"): the first GetTelemetrySubscriptions goes out at once; the first push after
 * a new subscription waits the push interval times a random factor in [0.5, 1.5) so clients started together spread
 * their pushes; later pushes follow every interval. A subscription without metrics is asked for again after its
 * interval. Before any interval is known, retries wait {@link #DEFAULT_INTERVAL_MS}, the KIP's default.
 *
 * <p>Errors (KIP-714's error table): UNKNOWN_SUBSCRIPTION_ID and UNSUPPORTED_COMPRESSION_TYPE fetch the
 * subscription again at once; TELEMETRY_TOO_LARGE and THROTTLING_QUOTA_EXCEEDED drop this push and push again after
 * the interval; INVALID_REQUEST, INVALID_RECORD and UNSUPPORTED_VERSION (a broker without the API) end telemetry for
 * this client; any other error fetches the subscription again after the interval.
 */
public final class TelemetryCore {
    /** KIP-714: the interval used until a broker tells one (5 minutes). */
    public static final long DEFAULT_INTERVAL_MS = 300_000L;
    static final double JITTER_LOW = 0.5;
    static final double JITTER_HIGH = 1.5;

    /** What the driver sends now. */
    public enum Action { NONE, GET_SUBSCRIPTION, PUSH, TERMINATING_PUSH }

    private final DoubleSupplier random;
    private TelemetryState state = TelemetryState.SUBSCRIPTION_NEEDED;
    private UUID clientInstanceId = Types.ZERO_UUID;
    private TelemetrySubscription subscription;
    private long dueAtMs;

    /**
     * @param nowMs  the current time; the first subscription request is due then
     * @param random uniform doubles in [0, 1) for the first push's jitter
     */
    public TelemetryCore(long nowMs, DoubleSupplier random) {
        this(nowMs, random, Types.ZERO_UUID);
    }

    /**
     * @param nowMs            the current time; the first subscription request is due then
     * @param random           uniform doubles in [0, 1) for the first push's jitter
     * @param clientInstanceId the id a broker assigned this client before (an earlier {@code receive()} of the same
     *                         consumer), or the zero uuid: KIP-714 keeps one id for a client's lifetime
     */
    public TelemetryCore(long nowMs, DoubleSupplier random, UUID clientInstanceId) {
        this.random = random;
        this.dueAtMs = nowMs;
        this.clientInstanceId = clientInstanceId;
    }

    public TelemetryState state() {
        return state;
    }

    /** The instance id the broker assigned, the zero uuid until then. */
    public UUID clientInstanceId() {
        return clientInstanceId;
    }

    /** The subscription in force, null before the first one. */
    public TelemetrySubscription subscription() {
        return subscription;
    }

    /** When {@link #poll} next returns an action; {@link Long#MAX_VALUE} while a request is out or after the end. */
    public long nextActionAtMs() {
        return switch (state) {
            case SUBSCRIPTION_NEEDED, PUSH_NEEDED, TERMINATING_PUSH_NEEDED -> dueAtMs;
            default -> Long.MAX_VALUE;
        };
    }

    /**
     * The action due at {@code nowMs}, moving to its in-progress state; the driver sends the request and reports its
     * answer (or failure) back.
     */
    public Action poll(long nowMs) {
        if (nowMs < nextActionAtMs()) {
            return Action.NONE;
        }
        return switch (state) {
            case SUBSCRIPTION_NEEDED -> {
                move(TelemetryState.SUBSCRIPTION_IN_PROGRESS);
                yield Action.GET_SUBSCRIPTION;
            }
            case PUSH_NEEDED -> {
                move(TelemetryState.PUSH_IN_PROGRESS);
                yield Action.PUSH;
            }
            case TERMINATING_PUSH_NEEDED -> {
                move(TelemetryState.TERMINATING_PUSH_IN_PROGRESS);
                yield Action.TERMINATING_PUSH;
            }
            default -> Action.NONE;
        };
    }

    /** A GetTelemetrySubscriptions answer. Ignored unless one is out (the client may have closed meanwhile). */
    public void onSubscription(long nowMs, GetTelemetrySubscriptionsResponse response) {
        if (state != TelemetryState.SUBSCRIPTION_IN_PROGRESS) {
            return;
        }
        Errors error = Errors.forCode(response.errorCode());
        if (error == Errors.NONE) {
            if (!Types.isZero(response.clientInstanceId())) {
                clientInstanceId = response.clientInstanceId();
            }
            if (Types.isZero(clientInstanceId)) { // the broker must assign one: without it no push is valid
                move(TelemetryState.TERMINATED);
                return;
            }
            subscription = new TelemetrySubscription(clientInstanceId, response.subscriptionId(),
                    response.acceptedCompressionTypes(), response.pushIntervalMs(), response.telemetryMaxBytes(),
                    response.deltaTemporality(), response.requestedMetrics());
            if (subscription.wantsMetrics()) {
                double factor = JITTER_LOW + (JITTER_HIGH - JITTER_LOW) * random.getAsDouble();
                dueAtMs = nowMs + (long) (intervalMs() * factor);
                move(TelemetryState.PUSH_NEEDED);
            } else {
                dueAtMs = nowMs + intervalMs();
                move(TelemetryState.SUBSCRIPTION_NEEDED);
            }
            return;
        }
        if (endsTelemetry(error)) {
            move(TelemetryState.TERMINATED);
            return;
        }
        dueAtMs = nowMs + Math.max(response.throttleTimeMs(), intervalMs());
        move(TelemetryState.SUBSCRIPTION_NEEDED);
    }

    /** A PushTelemetry answer's error code. Ignored unless a push is out; a terminating push's answer ends it all. */
    public void onPush(long nowMs, short errorCode) {
        if (state == TelemetryState.TERMINATING_PUSH_IN_PROGRESS) {
            move(TelemetryState.TERMINATED);
            return;
        }
        if (state != TelemetryState.PUSH_IN_PROGRESS) {
            return;
        }
        Errors error = Errors.forCode(errorCode);
        switch (error) {
            case NONE, TELEMETRY_TOO_LARGE, THROTTLING_QUOTA_EXCEEDED -> {
                dueAtMs = nowMs + intervalMs();
                move(TelemetryState.PUSH_NEEDED);
            }
            case UNKNOWN_SUBSCRIPTION_ID, UNSUPPORTED_COMPRESSION_TYPE -> {
                dueAtMs = nowMs;
                move(TelemetryState.SUBSCRIPTION_NEEDED);
            }
            default -> {
                if (endsTelemetry(error)) {
                    move(TelemetryState.TERMINATED);
                } else {
                    dueAtMs = nowMs + intervalMs();
                    move(TelemetryState.SUBSCRIPTION_NEEDED);
                }
            }
        }
    }

    /** The request out got no answer (no broker reachable, disconnected, timed out): try again after the interval. */
    public void onFailure(long nowMs) {
        switch (state) {
            case SUBSCRIPTION_IN_PROGRESS -> {
                dueAtMs = nowMs + intervalMs();
                move(TelemetryState.SUBSCRIPTION_NEEDED);
            }
            case PUSH_IN_PROGRESS -> {
                dueAtMs = nowMs + intervalMs();
                move(TelemetryState.PUSH_NEEDED);
            }
            case TERMINATING_PUSH_IN_PROGRESS -> move(TelemetryState.TERMINATED);
            default -> { }
        }
    }

    /** The broker does not offer the telemetry APIs: KIP-714 says do nothing, so telemetry ends for this client. */
    public void onUnsupported() {
        if (state != TelemetryState.TERMINATED) {
            move(TelemetryState.TERMINATED);
        }
    }

    /**
     * The client closes: with a subscription that wants metrics a terminating push is due at once (a push out then
     * has its answer ignored); without one telemetry ends here.
     *
     * @return true when a terminating push is due
     */
    public boolean close(long nowMs) {
        switch (state) {
            case PUSH_NEEDED, PUSH_IN_PROGRESS -> {
                dueAtMs = nowMs;
                move(TelemetryState.TERMINATING_PUSH_NEEDED);
                return true;
            }
            case SUBSCRIPTION_NEEDED, SUBSCRIPTION_IN_PROGRESS -> {
                move(TelemetryState.TERMINATED);
                return false;
            }
            default -> {
                return state == TelemetryState.TERMINATING_PUSH_NEEDED;
            }
        }
    }

    private long intervalMs() {
        return subscription != null && subscription.pushIntervalMs() > 0 ? subscription.pushIntervalMs()
                : DEFAULT_INTERVAL_MS;
    }

    private static boolean endsTelemetry(Errors error) {
        return error == Errors.INVALID_REQUEST || error == Errors.INVALID_RECORD || error == Errors.UNSUPPORTED_VERSION;
    }

    private void move(TelemetryState to) {
        state = StateTransitions.check(state, to);
    }
}
