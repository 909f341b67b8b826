package io.kflux.bench;

import io.kflux.bench.BenchmarkSuite.Case;
import io.kflux.bench.BenchmarkSuite.Result;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.ToDoubleFunction;

/**
 * The suite's results and their Markdown tables: one drain table per CPU mode, the e2e latency table and the scale
 * table. Every figure is a median over the rounds with its order-statistics confidence interval
 * ({@link MedianInterval}); ratios are medians of per-round ratios against the official client's drain of the same
 * round, with theirs.
 */
final class SuiteTables {

    private static final String BASELINE = "official";

    private final List<String> clients;
    private final Map<String, Map<Case, Map<String, List<Result>>>> drains = new LinkedHashMap<>();
    private final TreeSet<Integer> sampleSizes = new TreeSet<>();
    private Map<String, List<Result>> latencies = Map.of();
    private Map<String, List<Result>> scale = Map.of();

    SuiteTables(List<String> clients) {
        this.clients = clients;
    }

    void addDrains(String mode, Case c, Map<String, List<Result>> byClient) {
        drains.computeIfAbsent(mode, k -> new LinkedHashMap<>()).put(c, byClient);
    }

    void addLatencies(Map<String, List<Result>> byClient) {
        latencies = byClient;
    }

    void addScale(Map<String, List<Result>> byClient) {
        scale = byClient;
    }

    void print() {
        drains.forEach(this::printDrains);
        printLatencies();
        printScale();
        if (!sampleSizes.isEmpty()) {
            System.out.println();
            StringBuilder coverage = new StringBuilder();
            for (int n : sampleSizes) {
                coverage.append(coverage.length() == 0 ? "" : ", ").append(String.format("%.1f %% for %d values",
                        MedianInterval.coverage(n, MedianInterval.rank(n)) * 100, n));
            }
            System.out.println("Intervals in parentheses: distribution-free confidence intervals of the median from"
                    + " order statistics (coverage " + coverage + ").");
        }
    }

    private void printDrains(String mode, Map<Case, Map<String, List<Result>>> cases) {
        System.out.println();
        System.out.println("Drains, " + (mode.equals("one-core") ? "contender pinned to one core, broker to another"
                : "no pinning (a spare core)") + ":");
        System.out.println();
        System.out.println("| case | contender | records/s | steady records/s | ns CPU/record | of it JIT / GC"
                + " | B allocated/record | set-up | window (passes) | worst gap, stalls | records/s vs official"
                + " | CPU/record vs official |");
        System.out.println("|---|---|---|---|---|---|---|---|---|---|---|---|");
        for (Map.Entry<Case, Map<String, List<Result>>> e : cases.entrySet()) {
            Map<String, List<Result>> byClient = e.getValue();
            for (String client : clients) {
                List<Result> rs = byClient.get(client);
                if (rs == null) {
                    continue;
                }
                System.out.printf("| %s | %s | %s | %s | %s | %.0f / %.0f | %,.0f | %.2f s | %.1f s (%.0f) | %d ms, %d"
                                + " | %s | %s |%n", e.getKey().name(), client,
                        interval(rs, Result::recordsPerSecond, SuiteTables::perSecond),
                        perSecond(median(rs, Result::steadyRecordsPerSecond)),
                        interval(rs, Result::cpuNanosPerRecord, v -> String.format("%.0f", v)),
                        median(rs, r -> r.groupNanosPerRecord("cpuJit")),
                        median(rs, r -> r.groupNanosPerRecord("cpuGc")),
                        median(rs, Result::allocatedPerRecord), median(rs, r -> r.get("setupNanos") / 1e9),
                        median(rs, r -> r.get("nanos") / 1e9), median(rs, r -> r.get("passes")),
                        rs.stream().mapToLong(r -> r.get("maxGapNanos")).max().orElse(0) / 1_000_000,
                        rs.stream().mapToLong(r -> r.get("stalls")).sum(),
                        ratio(byClient.get(BASELINE), rs, Result::recordsPerSecond),
                        ratio(byClient.get(BASELINE), rs, Result::cpuNanosPerRecord));
            }
        }
        printBrokerSide(cases);
        System.out.println();
        System.out.println("records/s: records over the measured window (first to last record, set-up apart);"
                + " steady: the same without stalls (gaps of " + io.kflux.bench.runner.Tally.STALL_NANOS / 1_000_000
                + " ms or more); ns CPU/record: process CPU time (user + sys, all threads) over the window;"
                + " stalls: summed over the rounds.");
    }

    /**
     * What the broker did for each drain case (issue #32), from the broker's own metrics over the measured drain
     * (set-up, the staggered lead-in and close included): consumer Fetches and their answer bytes per drain of the
     * topic, bytes per Fetch and the broker's process CPU per drain. A measured JVM reads its window's records plus
     * the lead-in (half the topic) and the records discarded after seeks: that over the topic's records is its
     * number of drains. Skipped when the runs had no broker view (an external cluster).
     */
    private void printBrokerSide(Map<Case, Map<String, List<Result>>> cases) {
        boolean viewed = cases.values().stream().flatMap(m -> m.values().stream()).flatMap(List::stream)
                .anyMatch(r -> r.fields().containsKey("brokerFetches") && r.get("brokerFetches") > 0);
        if (!viewed) {
            return;
        }
        System.out.println();
        System.out.println("| case | contender | Fetches per drain | KB per Fetch | broker CPU per drain | Fetches vs"
                + " official | broker CPU vs official |");
        System.out.println("|---|---|---|---|---|---|---|");
        for (Map.Entry<Case, Map<String, List<Result>>> e : cases.entrySet()) {
            Case c = e.getKey();
            ToDoubleFunction<Result> drains = r -> (r.get("records") + r.get("discarded") + c.records() / 2.0)
                    / c.records();
            ToDoubleFunction<Result> fetches = r -> r.get("brokerFetches") / drains.applyAsDouble(r);
            ToDoubleFunction<Result> cpu = r -> r.get("brokerCpuNanos") / 1e6 / drains.applyAsDouble(r);
            Map<String, List<Result>> byClient = e.getValue();
            for (String client : clients) {
                List<Result> rs = byClient.get(client);
                if (rs == null) {
                    continue;
                }
                System.out.printf("| %s | %s | %s | %s | %s ms | %s | %s |%n", c.name(), client,
                        interval(rs, fetches, v -> String.format("%.0f", v)),
                        interval(rs, r -> r.get("brokerBytesOut") / 1024.0 / Math.max(1, r.get("brokerFetches")),
                                v -> String.format("%,.0f", v)),
                        interval(rs, cpu, v -> String.format("%.0f", v)),
                        ratio(byClient.get(BASELINE), rs, fetches), ratio(byClient.get(BASELINE), rs, cpu));
            }
        }
        System.out.println();
        System.out.println("The broker's side, from its own metrics over each measured drain (set-up, the staggered"
                + " lead-in and close included): consumer Fetches (FetchConsumer), bytes of Fetch answers"
                + " (BytesOutPerSec) and the broker process's CPU, per drain of the topic (window records + lead-in"
                + " + records discarded after seeks, over the topic's records).");
    }

    private void printLatencies() {
        if (latencies.isEmpty()) {
            return;
        }
        System.out.println();
        System.out.println("| e2e contender | p50 ms | p99 ms | p99.9 ms | max ms (worst round) | records per run |");
        System.out.println("|---|---|---|---|---|---|");
        for (String client : clients) {
            List<Result> rs = latencies.get(client);
            if (rs == null) {
                continue;
            }
            System.out.printf("| %s | %s | %s | %s | %.1f | %,.0f |%n", client,
                    interval(rs, r -> r.get("p50Micros") / 1e3, v -> String.format("%.2f", v)),
                    interval(rs, r -> r.get("p99Micros") / 1e3, v -> String.format("%.2f", v)),
                    interval(rs, r -> r.get("p999Micros") / 1e3, v -> String.format("%.2f", v)),
                    rs.stream().mapToLong(r -> r.get("maxMicros")).max().orElse(0) / 1e3,
                    median(rs, r -> r.get("records")));
        }
    }

    private void printScale() {
        if (scale.isEmpty()) {
            return;
        }
        System.out.println();
        System.out.println("| scale contender | consumers | OS threads (Java) | heap after GC | RSS | CPU, % of a core"
                + " | broker CPU, % of a core (of it JIT) | requests per consumer per second, by API (broker's count) | Fetch answered in"
                + " | broker's request threads on Fetches, ms/s"
                + " | broker: connections opened, fetch sessions evicted in the window | sockets | records/s received"
                + " | every consumer's first record (the median one's) | creation |");
        System.out.println("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|");
        for (String client : ScaleCase.CLIENTS) {
            List<Result> rs = scale.get(client);
            if (rs == null) {
                continue;
            }
            System.out.printf("| %s | %d | %.0f (%.0f) | %s MB | %s MB | %s | %s (%.1f) | %s | %.0f ms | %s | %.0f, %.0f | %.0f | %.0f"
                            + " | %s s (%.1f s) | %.1f s |%n",
                    client,
                    rs.get(0).get("consumers"), median(rs, r -> r.get("threads")),
                    median(rs, r -> r.get("javaThreads")),
                    interval(rs, r -> r.get("heapAfterGc") / 1048576.0, v -> String.format("%.0f", v)),
                    interval(rs, r -> r.get("rss") / 1048576.0, v -> String.format("%.0f", v)),
                    interval(rs, r -> r.get("cpuNanos") * 100.0 / r.get("nanos"), v -> String.format("%.1f", v)),
                    interval(rs, ScaleCase::brokerCpuPercent, v -> String.format("%.1f", v)),
                    median(rs, r -> r.get("brokerJitNanos") * 100.0 / Math.max(1, r.get("brokerNanos"))),
                    requestRates(rs),
                    median(rs, r -> r.get("fetchMeanMicros") / 1000.0),
                    interval(rs, r -> r.get("fetchLocalMicros") / 1e3 / Math.max(1e-9, r.get("brokerNanos") / 1e9),
                            v -> String.format("%.0f", v)),
                    median(rs, r -> r.get("brokerConnections")),
                    median(rs, r -> r.get("brokerSessionEvictions")), median(rs, r -> r.get("sockets")),
                    median(rs, Result::recordsPerSecond),
                    interval(rs, r -> r.get("firstRecordAllNanos") / 1e9, v -> String.format("%.1f", v)),
                    median(rs, r -> r.get("firstRecordMedianNanos") / 1e9), median(rs, r -> r.get("setupNanos") / 1e9));
        }
    }

    /**
     * The median over the rounds of each API's requests per consumer per second ({@code brokerRequests}, as
     * {@code api:rate;api:rate}), an API missing from a round counting as 0 there.
     */
    private static String requestRates(List<Result> rs) {
        List<Map<String, Double>> rounds = new ArrayList<>();
        java.util.Set<String> apis = new java.util.TreeSet<>();
        for (Result r : rs) {
            Map<String, Double> rates = new java.util.HashMap<>();
            String field = r.fields().getOrDefault("brokerRequests", "-");
            for (String pair : field.equals("-") ? new String[0] : field.split(";")) {
                int colon = pair.indexOf(':');
                rates.put(pair.substring(0, colon), Double.parseDouble(pair.substring(colon + 1)));
            }
            apis.addAll(rates.keySet());
            rounds.add(rates);
        }
        StringBuilder b = new StringBuilder();
        for (String api : apis) {
            double m = median(rounds, rates -> rates.getOrDefault(api, 0.0));
            if (m >= 0.0005) {
                b.append(b.length() == 0 ? "" : ", ").append(api).append(String.format(" %.3f", m));
            }
        }
        return b.length() == 0 ? "-" : b.toString();
    }

    private interface Format {
        String of(double value);
    }

    private <T> String interval(List<T> items, ToDoubleFunction<T> value, Format format) {
        double[] values = items.stream().mapToDouble(value).toArray();
        sampleSizes.add(values.length);
        MedianInterval mi = MedianInterval.of(values);
        return format.of(mi.median()) + " (" + format.of(mi.low()) + "-" + format.of(mi.high()) + ")";
    }

    /** Median of the per-round ratios contender / official, with its interval; blank for official itself. */
    private String ratio(List<Result> official, List<Result> other, ToDoubleFunction<Result> value) {
        if (official == null || official == other) {
            return "";
        }
        List<Double> ratios = new ArrayList<>();
        for (int i = 0; i < Math.min(official.size(), other.size()); i++) {
            ratios.add(value.applyAsDouble(other.get(i)) / value.applyAsDouble(official.get(i)));
        }
        return interval(ratios, d -> d, v -> String.format("%.2f", v));
    }

    static String perSecond(double perSecond) {
        return perSecond >= 1e6 ? String.format("%.2f M", perSecond / 1e6) : String.format("%.0f k", perSecond / 1e3);
    }

    private static <T> double median(List<T> items, ToDoubleFunction<T> value) {
        return MedianInterval.of(items.stream().mapToDouble(value).toArray()).median();
    }
}
