package io.kflux.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.ConsumerRecord;
import io.kflux.Deserializers;
import io.kflux.TopicPartition;
import io.kflux.fetch.CompletedFetch;
import io.kflux.fetch.PartitionState;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.SimpleRecord;
import org.junit.jupiter.api.Test;
import reactor.core.scheduler.Schedulers;
import reactor.test.subscriber.TestSubscriber;

/**
 * {@code process()}'s emitter ({@link Downstream#inTurns}): partitions take turns, a result giving way to another
 * partition's waiting result after a slice (inside a record batch too) and taking up where it stopped; results of one
 * partition stay in fetch order; nothing is passed over, re-read or refused. {@code receive()}'s emitter still hands
 * out one whole result after another. The worker is a task queue the test runs.
 */
class RecordEmitterRotationTest {
    private final ArrayDeque<Runnable> tasks = new ArrayDeque<>();
    private final List<String> skipped = new ArrayList<>();
    private final List<CompletedFetch> consumed = new ArrayList<>();
    private final List<CompletedFetch> refused = new ArrayList<>();
    private final PartitionState a = partition("t", 0);
    private final PartitionState b = partition("t", 1);

    @Test
    void partitionsTakeTurnsInSlices() {
        TestSubscriber<ConsumerRecord<String, String>> subscriber = withoutDemand();
        RecordEmitter<String, String> emitter = emitter(subscriber, 4);
        emitter.offer(fetch(a, 0, 3, 4));
        emitter.offer(fetch(b, 0, 3, 4));

        // demand in small steps, as process() asks: turns do not depend on how demand arrives
        for (int i = 0; i < 13; i++) { // the last request finds each result's end: both handed back
            subscriber.request(2);
            runWorker();
        }

        assertThat(emitted(subscriber)).containsExactly(
                "0@0", "0@1", "0@2", "0@3", "1@0", "1@1", "1@2", "1@3",
                "0@4", "0@5", "0@6", "0@7", "1@4", "1@5", "1@6", "1@7",
                "0@8", "0@9", "0@10", "0@11", "1@8", "1@9", "1@10", "1@11");
        assertThat(a.position()).isEqualTo(12L);
        assertThat(b.position()).isEqualTo(12L);
        assertThat(skipped).as("offsets passed over as gaps").isEmpty();
        assertThat(refused).isEmpty();
        assertThat(consumed).as("each result handed back once, when emitted").hasSize(2);
    }

    @Test
    void aSliceMayEndInsideARecordBatchAndTheResultGoesOnFromThereInItsNextTurn() {
        TestSubscriber<ConsumerRecord<String, String>> subscriber = TestSubscriber.create();
        // producers write batches of thousands of small records: a slice of 3 ends inside these batches of 4
        RecordEmitter<String, String> emitter = emitter(subscriber, 3);
        emitter.offer(fetch(a, 0, 2, 4));
        emitter.offer(fetch(b, 0, 1, 4));
        runWorker();

        assertThat(emitted(subscriber)).containsExactly(
                "0@0", "0@1", "0@2", "1@0", "1@1", "1@2", "0@3", "0@4", "0@5", "1@3", "0@6", "0@7");
        assertThat(skipped).isEmpty();
        assertThat(consumed).hasSize(2);
    }

    @Test
    void aResultThatGaveWayGoesBeforeANewerResultOfItsPartition() {
        TestSubscriber<ConsumerRecord<String, String>> subscriber = withoutDemand();
        RecordEmitter<String, String> emitter = emitter(subscriber, 4);
        emitter.offer(fetch(a, 0, 2, 4));
        emitter.offer(fetch(b, 0, 2, 4));
        subscriber.request(2);
        runWorker();
        emitter.offer(fetch(a, 8, 2, 4)); // prefetched while the first result of partition 0 is emitted

        subscriber.request(100);
        runWorker();

        assertThat(emitted(subscriber)).containsExactly(
                "0@0", "0@1", "0@2", "0@3", "1@0", "1@1", "1@2", "1@3", "0@4", "0@5", "0@6", "0@7",
                "1@4", "1@5", "1@6", "1@7", "0@8", "0@9", "0@10", "0@11", "0@12", "0@13", "0@14", "0@15");
        assertThat(refused).isEmpty();
        assertThat(skipped).isEmpty();
    }

    @Test
    void aResultWaitingForItsTurnWhosePartitionWasSeekedIsDroppedUnemitted() {
        TestSubscriber<ConsumerRecord<String, String>> subscriber = withoutDemand();
        RecordEmitter<String, String> emitter = emitter(subscriber, 4);
        CompletedFetch first = fetch(a, 0, 2, 4);
        emitter.offer(first);
        emitter.offer(fetch(b, 0, 2, 4));
        subscriber.request(5); // partition 0's first batch, then partition 1's first record: partition 0 gave way
        runWorker();
        a.seek(100);

        subscriber.request(100);
        runWorker();

        assertThat(emitted(subscriber)).containsExactly(
                "0@0", "0@1", "0@2", "0@3", "1@0", "1@1", "1@2", "1@3", "1@4", "1@5", "1@6", "1@7");
        assertThat(handedBack(first)).isEqualTo(1);
        assertThat(first.records().refCnt()).isZero();
        assertThat(a.position()).isEqualTo(100L);
    }

    @Test
    void cancellingReleasesTheResultsWaitingForTheirTurn() {
        TestSubscriber<ConsumerRecord<String, String>> subscriber = withoutDemand();
        RecordEmitter<String, String> emitter = emitter(subscriber, 4);
        CompletedFetch first = fetch(a, 0, 2, 4);
        CompletedFetch second = fetch(b, 0, 2, 4);
        emitter.offer(first);
        emitter.offer(second);
        subscriber.request(6);
        runWorker();

        subscriber.cancel();
        runWorker();

        assertThat(first.records().refCnt()).isZero();
        assertThat(second.records().refCnt()).isZero();
        assertThat(handedBack(first)).isEqualTo(1);
        assertThat(handedBack(second)).isEqualTo(1);
    }

    @Test
    void receiveStillEmitsOneWholeResultAfterAnother() {
        TestSubscriber<ConsumerRecord<String, String>> subscriber = TestSubscriber.create();
        RecordEmitter<String, String> emitter = emitter(subscriber, 0);
        emitter.offer(fetch(a, 0, 2, 4));
        emitter.offer(fetch(b, 0, 2, 4));
        runWorker();

        List<String> expected = new ArrayList<>();
        IntStream.range(0, 8).forEach(i -> expected.add("0@" + i));
        IntStream.range(0, 8).forEach(i -> expected.add("1@" + i));
        assertThat(emitted(subscriber)).containsExactlyElementsOf(expected);
    }

    /** How often {@code result} was handed back (by identity: a released result's buffer has no hash code). */
    private long handedBack(CompletedFetch result) {
        return consumed.stream().filter(c -> c == result).count();
    }

    private static TestSubscriber<ConsumerRecord<String, String>> withoutDemand() {
        return TestSubscriber.<ConsumerRecord<String, String>>builder().initialRequest(0).build();
    }

    private static PartitionState partition(String topic, int partition) {
        PartitionState ps = new PartitionState(new TopicPartition(topic, partition));
        ps.seek(0);
        return ps;
    }

    private static List<String> emitted(TestSubscriber<ConsumerRecord<String, String>> subscriber) {
        return subscriber.getReceivedOnNext().stream().map(r -> r.partition() + "@" + r.offset()).toList();
    }

    /** {@code slice} 0: receive()'s emitter, else process()'s with that slice. */
    private RecordEmitter<String, String> emitter(TestSubscriber<ConsumerRecord<String, String>> subscriber,
                                                  int slice) {
        RecordEmitter.Progress progress = new RecordEmitter.Progress() {
            @Override
            public AckHandle positioned(TopicPartition tp, long position, int epoch) {
                return null;
            }

            @Override
            public void leaderEpoch(TopicPartition tp, long offset, int epoch) {
            }

            @Override
            public void skipped(TopicPartition tp, long from, long to) {
                skipped.add(tp + " " + from + "-" + to);
            }
        };
        RecordEmitter.Returns returns = new RecordEmitter.Returns() {
            @Override
            public void consumed(CompletedFetch cf) {
                consumed.add(cf);
            }

            @Override
            public void outOfOrder(CompletedFetch cf) {
                refused.add(cf);
            }
        };
        RecordEmitter<String, String> emitter = new RecordEmitter<>(
                slice == 0 ? Downstream.records(subscriber) : Downstream.inTurns(subscriber, slice),
                Deserializers.string(), Deserializers.string(), io.kflux.DeserializationErrorHandler.fail(), null,
                true, returns, () -> { }, Schedulers.fromExecutor(tasks::add).createWorker(), progress,
                io.kflux.util.LogContext.NONE);
        subscriber.onSubscribe(emitter);
        return emitter;
    }

    private void runWorker() {
        for (Runnable t; (t = tasks.poll()) != null; ) {
            t.run();
        }
    }

    /** A result of {@code batches} record batches of {@code perBatch} records each, from {@code baseOffset}. */
    private static CompletedFetch fetch(PartitionState ps, long baseOffset, int batches, int perBatch) {
        List<ByteBuffer> buffers = new ArrayList<>();
        int size = 0;
        for (int b = 0; b < batches; b++) {
            long first = baseOffset + (long) b * perBatch;
            SimpleRecord[] records = new SimpleRecord[perBatch];
            for (int i = 0; i < perBatch; i++) {
                records[i] = new SimpleRecord(("k" + (first + i)).getBytes(StandardCharsets.UTF_8),
                        ("v" + (first + i)).getBytes(StandardCharsets.UTF_8));
            }
            ByteBuffer buffer = MemoryRecords.withRecords(first, Compression.NONE, records).buffer();
            buffers.add(buffer);
            size += buffer.remaining();
        }
        ByteBuffer all = ByteBuffer.allocate(size);
        buffers.forEach(all::put);
        all.flip();
        ByteBuf buf = Unpooled.wrappedBuffer(all);
        long next = baseOffset + (long) batches * perBatch;
        return new CompletedFetch(ps, ps.seekEpoch(), baseOffset, next, buf, buf.readableBytes(), -1L, List.of());
    }
}
