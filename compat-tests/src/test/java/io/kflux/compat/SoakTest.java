package io.kflux.compat;

import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.compat.support.ContinuousProducer;
import io.kflux.compat.support.FaultProxy;
import io.kflux.compat.support.GroupKit;
import io.kflux.compat.support.GroupKit.KfluxMember;
import io.kflux.test.broker.EmbeddedKafkaCluster;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Issue #15's soak run (profile {@code soak}, not in CI): for {@code kflux.soak.minutes} (30 by default) a producer
 * writes 500 records/s to 12 partitions while a group of four kflux members consumes and acknowledges them through
 * a fault proxy; every 45 s one member leaves and a new one joins, and every 60 s the proxy injects a fault in turn
 * (reset every connection, a 6 s black hole, 1.5 s latency for 15 s, new connections refused for 8 s). A ledger is
 * printed every 10 s: produced (acknowledged by the broker), consumed (distinct), duplicates, the longest gap
 * without any record while production ran. At the end nothing acknowledged may be missing.
 *
 * <pre>
 * mvn -pl compat-tests -am verify -Psoak -Dtest=SoakTest -Dsurefire.failIfNoSpecifiedTests=false \
 *     -Dkflux.matrix.skip=true -Dkflux.soak.minutes=30
 * </pre>
 */
@Tag("soak")
class SoakTest {
    private static final String TOPIC = "soak";
    private static final int PARTITIONS = 12;

    @Test
    void aGroupUnderChurnAndNetworkFaultsLosesNothing() throws Exception {
        long minutes = Long.getLong("kflux.soak.minutes", 30);
        Random random = new Random(15);
        try (FaultProxy proxy = FaultProxy.onFreePort();
             EmbeddedKafkaCluster kafka = proxy.brokerBehind().start()) {
            kafka.createTopic(TOPIC, PARTITIONS, 1);
            Map<String, Object> props = GroupKit.props(proxy.address(), "soak", "cooperative-sticky",
                    "request.timeout.ms", 5_000, "reconnect.backoff.max.ms", 1_000, "auto.commit.interval.ms", 1_000);
            List<KfluxMember> running = new ArrayList<>();
            List<KfluxMember> all = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                KfluxMember m = new KfluxMember("m" + i, GroupKit.consumer(props, TOPIC, null)).start();
                running.add(m);
                all.add(m);
            }
            ContinuousProducer producer = new ContinuousProducer(kafka.bootstrapServers(), TOPIC, PARTITIONS, 500, "s-");
            long start = System.nanoTime();
            long end = start + TimeUnit.MINUTES.toNanos(minutes);
            long lastCount = 0;
            long lastChange = System.nanoTime();
            long maxGapMs = 0;
            int faults = 0;
            long lastSecond = 0;
            java.util.concurrent.ExecutorService faultThread = java.util.concurrent.Executors.newSingleThreadExecutor();
            java.util.concurrent.Future<?> fault = java.util.concurrent.CompletableFuture.completedFuture(null);
            try {
                // sampled every 100 ms, so the longest gap is measured to within 0.1 s; faults run on their own thread
                while (System.nanoTime() < end) {
                    Thread.sleep(100);
                    long consumedNow = all.stream().mapToLong(m -> m.values().size()).sum();
                    if (consumedNow != lastCount) {
                        lastCount = consumedNow;
                        lastChange = System.nanoTime();
                    }
                    maxGapMs = Math.max(maxGapMs, (System.nanoTime() - lastChange) / 1_000_000);
                    long second = (System.nanoTime() - start) / 1_000_000_000L;
                    if (second == lastSecond) {
                        continue;
                    }
                    lastSecond = second;
                    if (second % 45 == 0) {
                        KfluxMember leaving = running.remove(random.nextInt(running.size()));
                        leaving.stop();
                        KfluxMember joining = new KfluxMember("j" + second, GroupKit.consumer(props, TOPIC, null)).start();
                        running.add(joining);
                        all.add(joining);
                    }
                    if (second % 60 == 30 && fault.isDone()) {
                        int n = faults++;
                        fault = faultThread.submit(() -> {
                            fault(proxy, n);
                            return null;
                        });
                    }
                    if (second % 10 == 0) {
                        ledger("t+" + second + "s", producer, all, maxGapMs);
                    }
                    for (KfluxMember m : all) {
                        assertThat(m.error()).as(m.name() + " error").isNull();
                    }
                }
                fault.get(60, TimeUnit.SECONDS);
            } finally {
                faultThread.shutdownNow();
                proxy.heal();
            }
            List<String> produced = new ArrayList<>(producer.stop());
            producer.close();
            GroupKit.Tally tally = GroupKit.assertEveryRecordConsumed("soak", produced, all);
            ledger("final (" + minutes + " min, " + faults + " faults, " + (all.size() - 4) + " joins)", producer, all,
                    maxGapMs);
            System.out.printf("[soak] duplicates by value: %d%n", tally.duplicates().size());
            for (KfluxMember m : running) {
                m.stop();
            }
            for (KfluxMember m : all) {
                m.consumer.close(Duration.ofSeconds(10)).block(Duration.ofSeconds(20));
            }
        }
    }

    private static void fault(FaultProxy proxy, int n) throws Exception {
        switch (n % 4) {
            case 0 -> {
                System.out.printf("[soak] %s fault: reset every connection%n", Instant.now());
                proxy.resetAll();
            }
            case 1 -> {
                System.out.printf("[soak] %s fault: black hole for 6 s%n", Instant.now());
                proxy.blackHole(true);
                Thread.sleep(6_000);
                proxy.heal();
            }
            case 2 -> {
                System.out.printf("[soak] %s fault: 1.5 s latency for 15 s%n", Instant.now());
                proxy.latency(Duration.ofMillis(1_500));
                Thread.sleep(15_000);
                proxy.heal();
            }
            default -> {
                System.out.printf("[soak] %s fault: new connections refused for 8 s%n", Instant.now());
                proxy.refuseNewConnections(Duration.ofSeconds(8));
            }
        }
    }

    private static void ledger(String when, ContinuousProducer producer, List<KfluxMember> members, long maxGapMs) {
        Map<String, Integer> seen = new HashMap<>();
        for (KfluxMember m : members) {
            for (String v : m.values()) {
                seen.merge(v, 1, Integer::sum);
            }
        }
        long duplicates = seen.values().stream().mapToLong(c -> c - 1).sum();
        System.out.printf("[soak] %s produced %d, consumed %d distinct, %d duplicates, longest gap %d ms%n", when,
                producer.acknowledgedCount(), seen.size(), duplicates, maxGapMs);
    }
}
