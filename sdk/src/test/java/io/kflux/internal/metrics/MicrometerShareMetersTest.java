package io.kflux.internal.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

/** The share consumer's meters count what the fetcher reports and go on close. */
class MicrometerShareMetersTest {
    private static final String P = "kafka.consumer.share.fetch.manager.";

    @Test
    void countsFetchesRecordsAndAcknowledgements() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        ShareMeters meters = ShareMeters.create(registry, "c1");
        meters.shareFetchCompleted(4_000_000, 0, 1_000, 10);
        meters.shareFetchCompleted(2_000_000, 5, 500, 4);
        meters.shareAcknowledgementsAnswered(14, 0);
        meters.shareAcknowledgementsAnswered(3, 2);

        assertThat(registry.get(P + "fetch.total").functionCounter().count()).isEqualTo(2);
        assertThat(registry.get(P + "records.consumed.total").functionCounter().count()).isEqualTo(14);
        assertThat(registry.get(P + "bytes.consumed.total").functionCounter().count()).isEqualTo(1_500);
        assertThat(registry.get(P + "acknowledgements.send.total").functionCounter().count()).isEqualTo(17);
        assertThat(registry.get(P + "acknowledgements.error.total").functionCounter().count()).isEqualTo(2);
        assertThat(registry.get(P + "fetch.latency.max").gauge().value()).isEqualTo(4.0);
        assertThat(registry.get(P + "fetch.latency.avg").gauge().value()).isEqualTo(3.0);
        assertThat(registry.get(P + "records.per.request.max").gauge().value()).isEqualTo(10);
        assertThat(registry.get(P + "fetch.throttle.time.max").gauge().value()).isEqualTo(5);
        assertThat(registry.get(P + "fetch.total").functionCounter().getId().getTag("client.id")).isEqualTo("c1");
        assertThat(registry.getMeters()).hasSize(18);

        meters.close();
        assertThat(registry.getMeters()).isEmpty();
        assertThat(meters.enabled()).isFalse();
    }

    @Test
    void withoutARegistryNothingIsPublished() {
        assertThat(ShareMeters.create(null, "c1")).isSameAs(ShareMeters.NONE);
        assertThat(ShareMeters.NONE.enabled()).isFalse();
    }
}
