package io.kflux.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.ConsumerRecord;
import io.kflux.Deserializers;
import io.kflux.TopicPartition;
import io.kflux.fetch.CompletedFetch;
import io.kflux.fetch.PartitionState;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.SimpleRecord;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;
import reactor.core.scheduler.Schedulers;

/** The order in which the emitter hands out buffered fetch results of one partition. */
class RecordEmitterOrderTest {
    private static final TopicPartition TP = new TopicPartition("t", 0);

    private final List<Long> emitted = new ArrayList<>();
    /** Partition and offset of each emitted record, in emission order. */
    private final List<String> emittedFrom = new ArrayList<>();
    private final Map<Long, Long> skipped = new ConcurrentHashMap<>();
    private final List<CompletedFetch> refused = new ArrayList<>();
    // the emitter's worker runs only when the test says so, as a busy worker would
    private final java.util.ArrayDeque<Runnable> tasks = new java.util.ArrayDeque<>();
    private RecordEmitter<String, String> emitter;

    @BeforeEach
    void createEmitter() {
        CoreSubscriber<ConsumerRecord<String, String>> subscriber = new CoreSubscriber<>() {
            @Override
            public void onSubscribe(Subscription s) {
            }

            @Override
            public void onNext(ConsumerRecord<String, String> r) {
                emitted.add(r.offset());
                emittedFrom.add(r.partition() + "@" + r.offset());
            }

            @Override
            public void onError(Throwable t) {
                throw new AssertionError(t);
            }

            @Override
            public void onComplete() {
            }
        };
        RecordEmitter.Progress progress = new RecordEmitter.Progress() {
            @Override
            public void positioned(TopicPartition tp, long position, int epoch) {
            }

            @Override
            public void leaderEpoch(TopicPartition tp, long offset, int epoch) {
            }

            @Override
            public void skipped(TopicPartition tp, long from, long to) {
                skipped.put(from, to);
            }
        };
        RecordEmitter.Returns returns = new RecordEmitter.Returns() {
            @Override
            public void consumed(CompletedFetch cf) {
            }

            @Override
            public void outOfOrder(CompletedFetch cf) {
                refused.add(cf);
            }
        };
        emitter = new RecordEmitter<>(Downstream.records(subscriber, 500), Deserializers.string(), Deserializers.string(),
                io.kflux.DeserializationErrorHandler.fail(), null, true,
                returns, () -> { }, Schedulers.fromExecutor(tasks::add).createWorker(), progress,
                io.kflux.util.LogContext.NONE);
        subscriber.onSubscribe(emitter);
    }

    private void runWorker() {
        for (Runnable t; (t = tasks.poll()) != null; ) {
            t.run();
        }
    }

    /**
     * A paused partition's parked result is emitted before a newer result of the same partition that the Fetch sent
     * on resume brought in before the emitter saw the resume. Emitting the newer one first jumped the position over
     * the parked records: they were never emitted, yet passed over as a gap and so committed.
     */
    @Test
    void parkedResultsOfAResumedPartitionGoBeforeNewerOnes() {
        PartitionState ps = new PartitionState(TP);
        ps.seek(0);

        emitter.offer(fetch(ps, 0, 5));
        emitter.request(2);
        runWorker();
        assertThat(emitted).containsExactly(0L, 1L);
        ps.paused(true);
        emitter.request(1);
        runWorker(); // the first result is parked with offsets 2 to 4 not emitted
        assertThat(emitted).containsExactly(0L, 1L);

        // resume (as DefaultKafkaFluxConsumer does on the loop: unpark, then plan, which sends a Fetch); the Fetch
        // answers before the emitter's worker got to the resume
        ps.paused(false);
        emitter.unpark();
        emitter.offer(fetch(ps, 5, 5));
        emitter.request(100);
        runWorker();

        assertThat(emitted).as("offsets emitted").containsExactly(0L, 1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L);
        assertThat(skipped).as("offsets passed over as gaps").isEmpty();
        assertThat(refused).isEmpty();
    }

    /**
     * Whatever order results arrive in, one fetched from past the position is handed back unseen instead of being
     * emitted with the offsets in between passed over (and so committed) as a gap.
     */
    @Test
    void aResultFetchedPastThePositionIsHandedBackUnemitted() {
        PartitionState ps = new PartitionState(TP);
        ps.seek(0);
        CompletedFetch ahead = fetch(ps, 5, 5);

        emitter.offer(ahead);
        emitter.offer(fetch(ps, 0, 5));
        emitter.request(100);
        runWorker();

        assertThat(refused).containsExactly(ahead);
        assertThat(ahead.records().refCnt()).as("the refused result is released").isZero();
        assertThat(emitted).containsExactly(0L, 1L, 2L, 3L, 4L);
        assertThat(skipped).as("offsets passed over as gaps").isEmpty();
        assertThat(ps.position()).isEqualTo(5L);
    }

    /**
     * While the group member's session is in doubt (issue #15) nothing fetched is emitted, also not the rest of a
     * result already being emitted; once a session is confirmed, emission goes on from where it stopped.
     */
    @Test
    void heldBackRecordsAreEmittedOnlyAfterRelease() {
        PartitionState ps = new PartitionState(TP);
        ps.seek(0);
        emitter.offer(fetch(ps, 0, 5));
        emitter.request(2);
        runWorker();
        assertThat(emitted).containsExactly(0L, 1L);

        emitter.holdBack(true);
        emitter.offer(fetch(ps, 5, 5));
        emitter.request(100);
        runWorker();
        assertThat(emitted).containsExactly(0L, 1L);
        assertThat(ps.position()).isEqualTo(2L);

        emitter.holdBack(false);
        runWorker();
        assertThat(emitted).containsExactly(0L, 1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L);
        assertThat(skipped).isEmpty();
    }

    /**
     * A backlog of two partitions, each fetched in one result of several batches, is emitted interleaved: after
     * max.poll.records (500) records and at the next batch boundary a result gives way to the other partition's, and
     * takes up again where it stopped. Each partition's records stay in order, none is passed over or emitted twice.
     */
    @Test
    void resultsOfTwoPartitionsTakeTurnsAtBatchBoundariesAfterMaxPollRecords() {
        PartitionState p0 = new PartitionState(new TopicPartition("t", 0));
        PartitionState p1 = new PartitionState(new TopicPartition("t", 1));
        p0.seek(0);
        p1.seek(0);
        emitter.offer(fetchInBatches(p0, 0, 4, 300));
        emitter.offer(fetchInBatches(p1, 0, 4, 300));
        emitter.request(Long.MAX_VALUE);
        runWorker();

        assertThat(emittedFrom).as("600 (two batches) of one, then of the other, then the rest of each")
                .containsExactlyElementsOf(turns(new int[][] {{0, 0, 600}, {1, 0, 600}, {0, 600, 1200}, {1, 600, 1200}}));
        assertThat(skipped).isEmpty();
        assertThat(refused).isEmpty();
        assertThat(p0.position()).isEqualTo(1200L);
        assertThat(p1.position()).isEqualTo(1200L);
    }

    /**
     * A result that gives way stands before a newer result of its own partition already queued behind the other
     * partition's: handing out the newer one first would pass over the older one's rest as a gap.
     */
    @Test
    void aResultThatGivesWayStaysBeforeItsPartitionsNewerResult() {
        PartitionState p0 = new PartitionState(new TopicPartition("t", 0));
        PartitionState p1 = new PartitionState(new TopicPartition("t", 1));
        p0.seek(0);
        p1.seek(0);
        emitter.offer(fetchInBatches(p0, 0, 3, 400));
        emitter.offer(fetchInBatches(p1, 0, 1, 100));
        emitter.offer(fetchInBatches(p0, 1200, 1, 100));
        emitter.request(Long.MAX_VALUE);
        runWorker();

        assertThat(emittedFrom).containsExactlyElementsOf(turns(new int[][] {{0, 0, 800}, {1, 0, 100}, {0, 800, 1300}}));
        assertThat(skipped).isEmpty();
        assertThat(refused).isEmpty();
    }

    /** With nothing of another partition waiting, a result is emitted to its end without a restart. */
    @Test
    void aResultAloneDoesNotGiveWayToItsOwnPartition() {
        PartitionState ps = new PartitionState(TP);
        ps.seek(0);
        emitter.offer(fetchInBatches(ps, 0, 4, 300));
        emitter.offer(fetchInBatches(ps, 1200, 2, 300));
        emitter.request(Long.MAX_VALUE);
        runWorker();

        assertThat(emitted).containsExactlyElementsOf(java.util.stream.LongStream.range(0, 1800).boxed().toList());
        assertThat(skipped).isEmpty();
        assertThat(refused).isEmpty();
    }

    /** "partition@offset" of each record of each turn {partition, from offset, to offset exclusive}, in turn order. */
    private static List<String> turns(int[][] turns) {
        List<String> expected = new ArrayList<>();
        for (int[] turn : turns) {
            for (int offset = turn[1]; offset < turn[2]; offset++) {
                expected.add(turn[0] + "@" + offset);
            }
        }
        return expected;
    }

    /** A result of {@code batches} batches of {@code perBatch} records each from {@code baseOffset}, for {@code ps}. */
    static CompletedFetch fetchInBatches(PartitionState ps, long baseOffset, int batches, int perBatch) {
        ByteBuf buf = Unpooled.buffer();
        for (int b = 0; b < batches; b++) {
            long first = baseOffset + (long) b * perBatch;
            SimpleRecord[] records = new SimpleRecord[perBatch];
            for (int i = 0; i < perBatch; i++) {
                records[i] = new SimpleRecord(("k" + (first + i)).getBytes(StandardCharsets.UTF_8),
                        ("v" + (first + i)).getBytes(StandardCharsets.UTF_8));
            }
            buf.writeBytes(MemoryRecords.withRecords(first, Compression.NONE, records).buffer());
        }
        long end = baseOffset + (long) batches * perBatch;
        return new CompletedFetch(ps, ps.seekEpoch(), baseOffset, end, buf, buf.readableBytes(), -1L, List.of());
    }

    /** A result of {@code count} records from {@code baseOffset}, for {@code ps}. */
    static CompletedFetch fetch(PartitionState ps, long baseOffset, int count) {
        SimpleRecord[] records = new SimpleRecord[count];
        for (int i = 0; i < count; i++) {
            records[i] = new SimpleRecord(("k" + (baseOffset + i)).getBytes(StandardCharsets.UTF_8),
                    ("v" + (baseOffset + i)).getBytes(StandardCharsets.UTF_8));
        }
        MemoryRecords memory = MemoryRecords.withRecords(baseOffset, Compression.NONE, records);
        ByteBuf buf = Unpooled.wrappedBuffer(memory.buffer());
        return new CompletedFetch(ps, ps.seekEpoch(), baseOffset, baseOffset + count, buf, buf.readableBytes(), -1L,
                List.of());
    }
}
