package io.kflux.bench.runner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What the suite derives from two readings of the brokers' metrics (no broker needed). */
class BrokerViewTest {

    private static BrokerView.Snapshot at(long seconds, Map<String, Long> requests, long fetches, double fetchMsSum,
                                          Map<String, Long> threads) {
        return new BrokerView.Snapshot(seconds * 1_000_000_000L, 0, requests, fetches, fetchMsSum, 0, threads, 0, 0, 0, 0);
    }

    @Test
    void ratesArePerSecondAndPerConsumerAndSkipApisWithoutRequests() {
        BrokerView.Snapshot before = at(10, Map.of("Fetch", 1_000L, "Metadata", 7L), 900, 0, Map.of());
        BrokerView.Snapshot after = at(30, Map.of("Fetch", 9_000L, "Metadata", 7L, "Produce", 400L), 900, 0, Map.of());

        Map<String, Double> rates = after.ratesSince(before, 100);

        // 8,000 Fetches in 20 s by 100 consumers: 4 per consumer per second; Metadata unchanged is left out
        assertThat(rates).containsOnlyKeys("Fetch", "Produce");
        assertThat(rates.get("Fetch")).isCloseTo(4.0, within(1e-9));
        assertThat(rates.get("Produce")).isCloseTo(0.2, within(1e-9));
        assertThat(after.requestsSince(before, "Fetch")).isEqualTo(8_000);
        assertThat(BrokerView.format(rates)).isEqualTo("Fetch:4.000;Produce:0.200");
        assertThat(BrokerView.format(Map.of())).isEqualTo("-");
    }

    @Test
    void fetchMeanIsTheWindowsOwnFromCumulativeCountsAndMeans() {
        // 100 Fetches of 10 ms before, then 100 more of 490 ms: the window's mean is 490, not the all-time 250
        BrokerView.Snapshot before = at(0, Map.of(), 100, 100 * 10.0, Map.of());
        BrokerView.Snapshot after = at(20, Map.of(), 200, 100 * 10.0 + 100 * 490.0, Map.of());

        assertThat(after.fetchMeanMsSince(before)).isCloseTo(490.0, within(1e-9));
        assertThat(before.fetchMeanMsSince(before)).isNaN();
    }

    @Test
    void jitIsTheCompilerThreadsAndThreadsAreListedLargestFirst() {
        BrokerView.Snapshot before = at(0, Map.of(), 0, 0, Map.of("C_CompilerThre", 1_000_000_000L,
                "data-plane-kafk", 2_000_000_000L, "GC_Thread#", 0L));
        BrokerView.Snapshot after = at(20, Map.of(), 0, 0, Map.of("C_CompilerThre", 8_020_000_000L,
                "data-plane-kafk", 7_960_000_000L, "GC_Thread#", 100_000_000L));

        assertThat(after.jitNanosSince(before)).isEqualTo(7_020_000_000L);
        assertThat(after.threadCpuSince(before, 2)).isEqualTo("C_CompilerThre:7020;data-plane-kafk:5960");
    }

    @Test
    void startCountsArePerConsumerNotPerSecondAndWindowCountersAreDeltas() {
        BrokerView.Snapshot before = new BrokerView.Snapshot(0, 0, Map.of("Metadata", 10L, "ListOffsets", 5L), 0, 0,
                0, Map.of(), 0, 40, 3, 100.0);
        BrokerView.Snapshot after = new BrokerView.Snapshot(30_000_000_000L, 0,
                Map.of("Metadata", 2_010L, "ListOffsets", 1_005L, "ApiVersions", 2_000L), 0, 0, 0, Map.of(), 0, 2_040, 3,
                4_100.0);

        // 2,000 Metadata requests by 1,000 consumers over 30 s: 2 each, whatever the duration
        assertThat(after.countsSince(before, 1_000)).containsOnly(Map.entry("ApiVersions", 2.0),
                Map.entry("ListOffsets", 1.0), Map.entry("Metadata", 2.0));
        assertThat(after.connectionsCreatedSince(before)).isEqualTo(2_000);
        assertThat(after.sessionEvictionsSince(before)).isZero();
        assertThat(after.fetchLocalMsSince(before)).isCloseTo(4_000.0, within(1e-9));
    }

    @Test
    void pidsOptionIsOptional() {
        assertThat(BrokerView.pids(null)).isEmpty();
        assertThat(BrokerView.pids("")).isEmpty();
        assertThat(BrokerView.pids("12,34")).isEqualTo(List.of(12L, 34L));
    }
}
