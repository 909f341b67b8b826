package io.kflux.internal;

import static io.kflux.internal.RecordEmitterOrderTest.fetch;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kflux.ConsumerRecord;
import io.kflux.DeserializationErrorHandler;
import io.kflux.Deserializer;
import io.kflux.Deserializers;
import io.kflux.RecordBatch;
import io.kflux.RecordDeserializationException;
import io.kflux.TopicPartition;
import io.kflux.fetch.CompletedFetch;
import io.kflux.fetch.PartitionState;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;
import reactor.core.scheduler.Schedulers;

/** The emitter under receiveBatches(): one batch per unit of demand, cut by result, by max.poll.records, by events. */
class RecordEmitterBatchTest {
    private static final TopicPartition TP0 = new TopicPartition("t", 0);
    private static final TopicPartition TP1 = new TopicPartition("t", 1);

    private final List<RecordBatch<String, String>> batches = new ArrayList<>();
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private final List<CompletedFetch> returned = new ArrayList<>();
    private final java.util.ArrayDeque<Runnable> tasks = new java.util.ArrayDeque<>();
    /** Runs as each value is deserialized: lets a test change a partition's state while a batch is being built. */
    private Consumer<String> onValue = v -> { };

    private RecordEmitter<String, String> emitter(int maxBatch) {
        CoreSubscriber<RecordBatch<String, String>> subscriber = new CoreSubscriber<>() {
            @Override
            public void onSubscribe(Subscription s) {
            }

            @Override
            public void onNext(RecordBatch<String, String> b) {
                batches.add(b);
            }

            @Override
            public void onError(Throwable t) {
                failure.set(t);
            }

            @Override
            public void onComplete() {
            }
        };
        Deserializer<String> values = (topic, headers, data) -> {
            String v = StandardCharsets.UTF_8.decode(data).toString();
            onValue.accept(v);
            return v;
        };
        RecordEmitter<String, String> emitter = new RecordEmitter<>(Downstream.batches(subscriber, maxBatch),
                Deserializers.string(), values, DeserializationErrorHandler.fail(), null, true, returned::add,
                () -> { }, Schedulers.fromExecutor(tasks::add).createWorker(), RecordEmitter.Progress.NONE,
                io.kflux.util.LogContext.NONE);
        subscriber.onSubscribe(emitter);
        return emitter;
    }

    /** A partition positioned at offset 0. */
    private static PartitionState atZero(TopicPartition tp) {
        PartitionState ps = new PartitionState(tp);
        ps.seek(0);
        return ps;
    }

    /** Runs {@code action} as the record of value {@code value} is deserialized, i.e. while its batch is built. */
    private void whenBuilding(String value, Runnable action) {
        onValue = v -> {
            if (v.equals(value)) {
                action.run();
            }
        };
    }

    private void runWorker() {
        for (Runnable t; (t = tasks.poll()) != null; ) {
            t.run();
        }
    }

    private List<List<Long>> offsets() {
        List<List<Long>> out = new ArrayList<>();
        for (RecordBatch<String, String> b : batches) {
            out.add(b.records().stream().map(ConsumerRecord::offset).toList());
        }
        return out;
    }

    @Test
    void oneBatchPerUnitOfDemandAtMostMaxPollRecordsNeverSpanningResults() {
        RecordEmitter<String, String> emitter = emitter(5);
        PartitionState ps = atZero(TP0);
        emitter.offer(fetch(ps, 0, 12));
        emitter.offer(fetch(ps, 12, 3));

        emitter.request(1);
        runWorker();
        assertThat(offsets()).containsExactly(List.of(0L, 1L, 2L, 3L, 4L));
        assertThat(ps.position()).isEqualTo(5L);

        emitter.request(10);
        runWorker();
        assertThat(offsets()).containsExactly(List.of(0L, 1L, 2L, 3L, 4L), List.of(5L, 6L, 7L, 8L, 9L),
                List.of(10L, 11L), List.of(12L, 13L, 14L));
        assertThat(batches).allSatisfy(b -> assertThat(b.topicPartition()).isEqualTo(TP0));
        assertThat(batches.get(0).records().get(0).value()).isEqualTo("v0");
        assertThat(returned).as("both results emitted and handed back").hasSize(2);
        assertThat(emitter.demand()).isEqualTo(10 - 3);
        assertThat(failure.get()).isNull();
    }

    /**
     * A batch is sized up front from its result's bytes and its first record's size; a result whose later records are
     * far smaller than the first (so the estimate falls short) still goes out whole and in order, up to
     * max.poll.records. Its list is unmodifiable and behaves as a List.
     */
    @Test
    void aBatchHoldsItsResultWhateverTheRecordSizes() {
        RecordEmitter<String, String> emitter = emitter(250);
        PartitionState ps = atZero(TP0);
        emitter.offer(mixedSizes(ps, 300));
        emitter.request(Long.MAX_VALUE);
        runWorker();

        assertThat(failure.get()).isNull();
        assertThat(batches).hasSize(2);
        List<Long> expected = java.util.stream.LongStream.range(0, 301).boxed().toList();
        assertThat(offsets().get(0)).isEqualTo(expected.subList(0, 250));
        assertThat(offsets().get(1)).isEqualTo(expected.subList(250, 301));
        List<ConsumerRecord<String, String>> records = batches.get(0).records();
        assertThat(records.get(0).value()).hasSize(1_000);
        assertThat(records.get(249).value()).isEqualTo("v249");
        assertThat(records).isInstanceOf(java.util.RandomAccess.class).hasSize(250)
                .isEqualTo(new ArrayList<>(records));
        assertThat(records.subList(1, 3)).extracting(ConsumerRecord::offset).containsExactly(1L, 2L);
        assertThatThrownBy(() -> records.get(250)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> records.get(-1)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> records.add(records.get(0))).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> records.set(0, records.get(1))).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> records.remove(0)).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(records::clear).isInstanceOf(UnsupportedOperationException.class);
        java.util.Iterator<ConsumerRecord<String, String>> it = batches.get(1).records().iterator();
        for (int i = 0; i < 51; i++) {
            assertThat(it.next().offset()).isEqualTo(250L + i);
        }
        assertThat(it.hasNext()).isFalse();
        assertThatThrownBy(it::next).isInstanceOf(java.util.NoSuchElementException.class);
        List<Long> walked = new ArrayList<>();
        batches.get(1).records().forEach(r -> walked.add(r.offset()));
        assertThat(walked).isEqualTo(expected.subList(250, 301));
        assertThat(ps.position()).isEqualTo(301L);
    }

    /** One record of a 1,000-byte value at offset 0, then a wire batch of {@code small} records of a few bytes. */
    private static CompletedFetch mixedSizes(PartitionState ps, int small) {
        org.apache.kafka.common.record.SimpleRecord[] rest = new org.apache.kafka.common.record.SimpleRecord[small];
        for (int i = 0; i < small; i++) {
            rest[i] = new org.apache.kafka.common.record.SimpleRecord(null,
                    ("v" + (1 + i)).getBytes(StandardCharsets.UTF_8));
        }
        java.nio.ByteBuffer big = org.apache.kafka.common.record.MemoryRecords.withRecords(0L,
                org.apache.kafka.common.compress.Compression.NONE,
                new org.apache.kafka.common.record.SimpleRecord(null, "x".repeat(1_000).getBytes(StandardCharsets.UTF_8)))
                .buffer();
        java.nio.ByteBuffer tail = org.apache.kafka.common.record.MemoryRecords.withRecords(1L,
                org.apache.kafka.common.compress.Compression.NONE, rest).buffer();
        io.netty.buffer.ByteBuf buf = io.netty.buffer.Unpooled.buffer(big.remaining() + tail.remaining());
        buf.writeBytes(big).writeBytes(tail);
        return new CompletedFetch(ps, ps.seekEpoch(), 0L, 1L + small, buf, buf.readableBytes(), -1L, List.of());
    }

    @Test
    void partitionsGetBatchesOfTheirOwn() {
        RecordEmitter<String, String> emitter = emitter(500);
        PartitionState p0 = new PartitionState(TP0);
        PartitionState p1 = new PartitionState(TP1);
        p0.seek(0);
        p1.seek(7);
        emitter.offer(fetch(p0, 0, 3));
        emitter.offer(fetch(p1, 7, 2));
        emitter.request(Long.MAX_VALUE);
        runWorker();
        assertThat(batches).extracting(RecordBatch::topicPartition).containsExactly(TP0, TP1);
        assertThat(offsets()).containsExactly(List.of(0L, 1L, 2L), List.of(7L, 8L));
    }

    /** A batch whose partition's revocation started while it was built is never handed over. */
    @Test
    void aBatchOfAPartitionRevokedWhileBuildingIsDropped() {
        RecordEmitter<String, String> emitter = emitter(500);
        PartitionState ps = atZero(TP0);
        CompletedFetch cf = fetch(ps, 0, 10);
        whenBuilding("v3", ps::revoke);
        emitter.offer(cf);
        emitter.request(5);
        runWorker();
        assertThat(batches).isEmpty();
        assertThat(returned).containsExactly(cf);
        assertThat(cf.records().refCnt()).isZero();
        assertThat(emitter.demand()).as("no demand used").isEqualTo(5);
    }

    /** Paused while a batch is built: the records taken so far go out, the rest waits for the resume. */
    @Test
    void aPauseCutsTheBatchAndTheResumeGoesOnFromThere() {
        RecordEmitter<String, String> emitter = emitter(500);
        PartitionState ps = atZero(TP0);
        whenBuilding("v2", () -> ps.paused(true));
        emitter.offer(fetch(ps, 0, 6));
        emitter.request(5);
        runWorker();
        assertThat(offsets()).containsExactly(List.of(0L, 1L, 2L));

        onValue = v -> { };
        ps.paused(false);
        emitter.unpark();
        runWorker();
        assertThat(offsets()).containsExactly(List.of(0L, 1L, 2L), List.of(3L, 4L, 5L));
        assertThat(ps.position()).isEqualTo(6L);
    }

    /** As receive(): the records before a poison record go out, then the flux ends with its error. */
    @Test
    void aDeserializationFailureEndsTheFluxAfterTheRecordsBeforeIt() {
        RecordEmitter<String, String> emitter = emitter(500);
        PartitionState ps = atZero(TP0);
        whenBuilding("v3", () -> { throw new IllegalArgumentException("poison"); });
        emitter.offer(fetch(ps, 0, 6));
        emitter.request(5);
        runWorker();
        assertThat(offsets()).containsExactly(List.of(0L, 1L, 2L));
        assertThat(failure.get()).isInstanceOf(RecordDeserializationException.class);
        assertThat(((RecordDeserializationException) failure.get()).offset()).isEqualTo(3L);
        assertThat(ps.position()).as("stays at the poison record").isEqualTo(3L);
    }

    /**
     * A seek while a batch is built: the records the position moved over before it go out, nothing of the old result
     * after it. Past the first record of a wire batch the position moves once per run (issue #28), so the records of
     * the run the seek landed in (1 and 2 here) are stale with it.
     */
    @Test
    void aSeekCutsTheBatch() {
        RecordEmitter<String, String> emitter = emitter(500);
        PartitionState ps = atZero(TP0);
        whenBuilding("v2", () -> ps.seek(100));
        emitter.offer(fetch(ps, 0, 6));
        emitter.request(5);
        runWorker();
        assertThat(offsets()).as("v2 was built as the seek landed: its run is stale, not emitted").containsExactly(
                List.of(0L));
        assertThat(ps.position()).isEqualTo(100L);
    }
}
