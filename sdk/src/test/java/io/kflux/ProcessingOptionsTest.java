package io.kflux;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

/**
 * onFailure and skipFailures exclude each other instead of the later one replacing the earlier silently;
 * commitAfterRecords has its default and survives the other options' copies.
 */
class ProcessingOptionsTest {
    @Test
    void onFailureAndSkipFailuresExcludeEachOther() {
        ProcessingOptions<String, String> base = ProcessingOptions.ordering(Ordering.KEY);
        assertThatThrownBy(() -> base.skipFailures().onFailure((r, e) -> Mono.empty()))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("onFailure(...) after skipFailures()");
        assertThatThrownBy(() -> base.onFailure((r, e) -> Mono.empty()).skipFailures())
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("skipFailures() after onFailure(...)");
        assertThat(base.skipFailures().skipFailures().failurePolicy()).isEqualTo(ProcessingOptions.FailurePolicy.SKIP);
        java.util.function.BiFunction<ConsumerRecord<String, String>, Throwable, Mono<Void>> second = (r, e) -> Mono.empty();
        assertThat(base.onFailure((r, e) -> Mono.never()).onFailure(second).failureHandler())
                .as("a second onFailure replaces the handler").isSameAs(second);
        assertThat(base.failurePolicy()).isEqualTo(ProcessingOptions.FailurePolicy.END_STREAM);
    }

    @Test
    void commitAfterRecordsDefaultsTo10000AndIsKeptByEveryCopy() {
        ProcessingOptions<String, String> base = ProcessingOptions.ordering(Ordering.KEY);
        assertThat(base.commitAfterRecords()).isEqualTo(ProcessingOptions.DEFAULT_COMMIT_AFTER_RECORDS)
                .isEqualTo(10_000);
        ProcessingOptions<String, String> set = base.commitAfterRecords(500).maxInFlight(10).maxWaiting(5)
                .retry(1, java.time.Duration.ZERO).skipFailures().revokeTimeout(java.time.Duration.ofSeconds(1));
        assertThat(set.commitAfterRecords()).isEqualTo(500);
        assertThat(set.toString()).contains("commitAfterRecords=500");
        assertThat(base.commitAfterRecords(0).commitAfterRecords()).isZero();
        assertThatThrownBy(() -> base.commitAfterRecords(-1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("commitAfterRecords must not be negative");
    }
}
