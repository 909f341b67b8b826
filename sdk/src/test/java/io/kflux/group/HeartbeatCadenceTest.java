package io.kflux.group;

import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.util.Backoff;
import org.junit.jupiter.api.Test;

/** {@link HeartbeatCadence}: the broker's interval and the backoff after failures, shared by KIP-848 and KIP-932. */
class HeartbeatCadenceTest {
    private final HeartbeatCadence cadence = new HeartbeatCadence(new Backoff(100, 1_000));

    @Test
    void theDefaultIntervalHoldsUntilTheCoordinatorNamesOne() {
        assertThat(cadence.intervalMs()).isEqualTo(HeartbeatCadence.DEFAULT_INTERVAL_MS).isEqualTo(5_000);
        assertThat(cadence.answered(0)).as("an answer without an interval keeps the default").isEqualTo(5_000);
        assertThat(cadence.answered(2_500)).isEqualTo(2_500);
        assertThat(cadence.answered(-1)).as("and then the one named last").isEqualTo(2_500);
        assertThat(cadence.intervalMs()).isEqualTo(2_500);
    }

    @Test
    void failuresInARowBackOffGrowingToTheMaximumAndAnAnswerOrACoordinatorStartsAgain() {
        // Backoff: 100 ms doubling per failure, +/-20 % jitter, at most 1,000 ms
        assertThat(cadence.failed()).isEqualTo(1);
        assertThat(cadence.retryDelayMs()).isBetween(80L, 120L);
        assertThat(cadence.failed()).isEqualTo(2);
        assertThat(cadence.retryDelayMs()).isBetween(160L, 240L);
        assertThat(cadence.failed()).isEqualTo(3);
        assertThat(cadence.retryDelayMs()).isBetween(320L, 480L);
        for (int i = 0; i < 5; i++) {
            cadence.failed();
        }
        assertThat(cadence.retryDelayMs()).isBetween(800L, 1_000L);
        cadence.answered(3_000);
        assertThat(cadence.failed()).as("an answer starts the backoff again").isEqualTo(1);
        assertThat(cadence.retryDelayMs()).isBetween(80L, 120L);
        cadence.failed();
        cadence.reset();
        assertThat(cadence.failed()).as("a coordinator found starts it again").isEqualTo(1);
        assertThat(cadence.intervalMs()).as("failures do not change the interval").isEqualTo(3_000);
    }
}
