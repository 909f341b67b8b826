package io.kflux.telemetry;

import static io.kflux.telemetry.TelemetryCore.Action.GET_SUBSCRIPTION;
import static io.kflux.telemetry.TelemetryCore.Action.NONE;
import static io.kflux.telemetry.TelemetryCore.Action.PUSH;
import static io.kflux.telemetry.TelemetryCore.Action.TERMINATING_PUSH;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kflux.protocol.Errors;
import io.kflux.protocol.message.GetTelemetrySubscriptionsResponse;
import io.kflux.util.StateTransitions;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** KIP-714's client machine in virtual time: when it asks, when it pushes, what each error does. */
class TelemetryCoreTest {
    private static final UUID ID = UUID.fromString("6f1c2e4a-93b0-4d7e-8a55-0c2d9e7f1b33");
    private static final UUID ZERO = new UUID(0, 0);

    private static GetTelemetrySubscriptionsResponse subscribed(int intervalMs, String... prefixes) {
        return new GetTelemetrySubscriptionsResponse(0, (short) 0, ID, 11, List.of((byte) 0), intervalMs, 1 << 20,
                true, List.of(prefixes));
    }

    private static GetTelemetrySubscriptionsResponse failed(Errors error) {
        return new GetTelemetrySubscriptionsResponse(0, error.code(), ZERO, 0, List.of(), 0, 0, false, List.of());
    }

    /** A core at time 0 with the given jitter draw, subscribed at time 0 with a 1 s interval. */
    private static TelemetryCore pushing(double draw) {
        TelemetryCore core = new TelemetryCore(0, () -> draw);
        assertThat(core.poll(0)).isEqualTo(GET_SUBSCRIPTION);
        core.onSubscription(0, subscribed(1000, "org.apache.kafka.consumer."));
        return core;
    }

    @Test
    void asksAtOnceThenPushesAfterAJitteredFirstIntervalAndEveryIntervalAfter() {
        TelemetryCore core = new TelemetryCore(500, () -> 0.25);
        assertThat(core.poll(499)).isEqualTo(NONE);
        assertThat(core.poll(500)).isEqualTo(GET_SUBSCRIPTION);
        assertThat(core.state()).isEqualTo(TelemetryState.SUBSCRIPTION_IN_PROGRESS);
        assertThat(core.nextActionAtMs()).isEqualTo(Long.MAX_VALUE);
        assertThat(core.poll(10_000)).as("one request out at a time").isEqualTo(NONE);

        core.onSubscription(1000, subscribed(2000, "org.apache.kafka.consumer."));
        assertThat(core.clientInstanceId()).isEqualTo(ID);
        assertThat(core.state()).isEqualTo(TelemetryState.PUSH_NEEDED);
        assertThat(core.nextActionAtMs()).as("interval x (0.5 + 0.25)").isEqualTo(1000 + 1500);
        assertThat(core.poll(2499)).isEqualTo(NONE);
        assertThat(core.poll(2500)).isEqualTo(PUSH);
        core.onPush(2510, (short) 0);
        assertThat(core.nextActionAtMs()).as("no jitter after the first push").isEqualTo(4510);
        assertThat(core.poll(4510)).isEqualTo(PUSH);
    }

    /** A later receive() of the same consumer asks with the id a broker gave it, which the broker then answers with zero. */
    @Test
    void anIdAssignedEarlierIsKeptWhenTheBrokerAnswersWithZero() {
        TelemetryCore core = new TelemetryCore(0, () -> 0.5, ID);
        assertThat(core.clientInstanceId()).as("asked with").isEqualTo(ID);
        assertThat(core.poll(0)).isEqualTo(GET_SUBSCRIPTION);
        core.onSubscription(0, new GetTelemetrySubscriptionsResponse(0, (short) 0, ZERO, 12, List.of((byte) 0), 1000,
                1 << 20, true, List.of("org.apache.kafka.consumer.")));
        assertThat(core.state()).isEqualTo(TelemetryState.PUSH_NEEDED);
        assertThat(core.clientInstanceId()).isEqualTo(ID);
        assertThat(core.subscription().clientInstanceId()).isEqualTo(ID);
    }

    @Test
    void theFirstPushFallsWithinHalfToOneAndAHalfIntervals() {
        assertThat(pushing(0.0).nextActionAtMs()).isEqualTo(500);
        assertThat(pushing(0.999_999).nextActionAtMs()).isBetween(1499L, 1500L);
    }

    @Test
    void aSubscriptionWithoutMetricsIsAskedForAgainAfterItsInterval() {
        TelemetryCore core = new TelemetryCore(0, () -> 0.5);
        core.poll(0);
        core.onSubscription(100, subscribed(3000));
        assertThat(core.state()).isEqualTo(TelemetryState.SUBSCRIPTION_NEEDED);
        assertThat(core.nextActionAtMs()).isEqualTo(3100);
        assertThat(core.poll(3100)).isEqualTo(GET_SUBSCRIPTION);
        core.onSubscription(3200, subscribed(3000, ""));
        assertThat(core.subscription().selects("org.apache.kafka.consumer.anything")).isTrue();
        assertThat(core.state()).isEqualTo(TelemetryState.PUSH_NEEDED);
    }

    @Test
    void unknownSubscriptionAndUnsupportedCompressionFetchTheSubscriptionAtOnce() {
        for (Errors error : List.of(Errors.UNKNOWN_SUBSCRIPTION_ID, Errors.UNSUPPORTED_COMPRESSION_TYPE)) {
            TelemetryCore core = pushing(0.5);
            assertThat(core.poll(1000)).isEqualTo(PUSH);
            core.onPush(1020, error.code());
            assertThat(core.state()).as(error.name()).isEqualTo(TelemetryState.SUBSCRIPTION_NEEDED);
            assertThat(core.poll(1020)).as(error.name()).isEqualTo(GET_SUBSCRIPTION);
        }
    }

    @Test
    void tooLargeAndThrottledSkipThisPushAndPushAgainAfterTheInterval() {
        for (Errors error : List.of(Errors.TELEMETRY_TOO_LARGE, Errors.THROTTLING_QUOTA_EXCEEDED)) {
            TelemetryCore core = pushing(0.5);
            core.poll(1000);
            core.onPush(1020, error.code());
            assertThat(core.state()).as(error.name()).isEqualTo(TelemetryState.PUSH_NEEDED);
            assertThat(core.nextActionAtMs()).as(error.name()).isEqualTo(2020);
        }
    }

    @Test
    void invalidRequestInvalidRecordAndUnsupportedVersionEndTelemetry() {
        for (Errors error : List.of(Errors.INVALID_REQUEST, Errors.INVALID_RECORD, Errors.UNSUPPORTED_VERSION)) {
            TelemetryCore core = pushing(0.5);
            core.poll(1000);
            core.onPush(1020, error.code());
            assertThat(core.state()).as(error.name()).isEqualTo(TelemetryState.TERMINATED);
            assertThat(core.poll(Long.MAX_VALUE - 1)).isEqualTo(NONE);
            assertThat(core.close(2000)).as("nothing to push once ended").isFalse();
        }
        TelemetryCore refused = new TelemetryCore(0, () -> 0.5);
        refused.poll(0);
        refused.onSubscription(5, failed(Errors.INVALID_REQUEST));
        assertThat(refused.state()).isEqualTo(TelemetryState.TERMINATED);
    }

    @Test
    void aBrokerWithoutTheApiMeansNoTelemetry() {
        TelemetryCore core = new TelemetryCore(0, () -> 0.5);
        core.poll(0);
        core.onUnsupported();
        assertThat(core.state()).isEqualTo(TelemetryState.TERMINATED);
        assertThat(core.nextActionAtMs()).isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void otherErrorsAndFailuresRetryAfterTheIntervalOrTheKipsDefault() {
        TelemetryCore core = new TelemetryCore(0, () -> 0.5);
        core.poll(0);
        core.onSubscription(10, failed(Errors.COORDINATOR_NOT_AVAILABLE));
        assertThat(core.state()).isEqualTo(TelemetryState.SUBSCRIPTION_NEEDED);
        assertThat(core.nextActionAtMs()).as("no interval known yet").isEqualTo(10 + TelemetryCore.DEFAULT_INTERVAL_MS);
        core.poll(core.nextActionAtMs());
        core.onFailure(400_000);
        assertThat(core.nextActionAtMs()).isEqualTo(400_000 + TelemetryCore.DEFAULT_INTERVAL_MS);

        TelemetryCore pushing = pushing(0.5);
        pushing.poll(1000);
        pushing.onFailure(1100);
        assertThat(pushing.state()).as("a lost push keeps the subscription").isEqualTo(TelemetryState.PUSH_NEEDED);
        assertThat(pushing.nextActionAtMs()).isEqualTo(2100);
        pushing.poll(2100);
        pushing.onPush(2110, Errors.UNKNOWN_SERVER_ERROR.code());
        assertThat(pushing.state()).isEqualTo(TelemetryState.SUBSCRIPTION_NEEDED);
        assertThat(pushing.nextActionAtMs()).isEqualTo(3110);
    }

    @Test
    void closeWithASubscriptionSendsOneTerminatingPushThenEnds() {
        TelemetryCore core = pushing(0.5);
        assertThat(core.close(300)).isTrue();
        assertThat(core.state()).isEqualTo(TelemetryState.TERMINATING_PUSH_NEEDED);
        assertThat(core.poll(300)).as("due at once, not at the interval").isEqualTo(TERMINATING_PUSH);
        core.onPush(310, (short) 0);
        assertThat(core.state()).isEqualTo(TelemetryState.TERMINATED);
        assertThat(core.poll(Long.MAX_VALUE - 1)).isEqualTo(NONE);
    }

    @Test
    void closeDuringAPushIgnoresThatPushsAnswerAndStillTerminates() {
        TelemetryCore core = pushing(0.5);
        assertThat(core.poll(1000)).isEqualTo(PUSH);
        assertThat(core.close(1001)).isTrue();
        core.onPush(1005, (short) 0);
        assertThat(core.state()).isEqualTo(TelemetryState.TERMINATING_PUSH_NEEDED);
        assertThat(core.poll(1005)).isEqualTo(TERMINATING_PUSH);
        core.onFailure(1500);
        assertThat(core.state()).as("a failed terminating push is not retried").isEqualTo(TelemetryState.TERMINATED);
    }

    @Test
    void closeBeforeAnySubscriptionEndsWithoutAPush() {
        TelemetryCore core = new TelemetryCore(0, () -> 0.5);
        core.poll(0);
        assertThat(core.close(5)).isFalse();
        core.onSubscription(6, subscribed(1000, ""));
        assertThat(core.state()).as("a late answer does not revive it").isEqualTo(TelemetryState.TERMINATED);
    }

    @Test
    void everyStateIsReachableOnlyThroughItsDeclaredPredecessors() {
        assertThatThrownBy(() -> StateTransitions.check(TelemetryState.SUBSCRIPTION_NEEDED, TelemetryState.PUSH_IN_PROGRESS))
                .isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> StateTransitions.check(TelemetryState.TERMINATED, TelemetryState.SUBSCRIPTION_NEEDED))
                .isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> StateTransitions.check(TelemetryState.SUBSCRIPTION_NEEDED,
                TelemetryState.TERMINATING_PUSH_NEEDED)).isInstanceOf(IllegalStateException.class);
    }
}
