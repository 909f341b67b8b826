package io.kflux.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.ConsumerRecord;
import io.kflux.DeserializationErrorHandler;
import io.kflux.Deserializer;
import io.kflux.Deserializers;
import io.kflux.RecordBatch;
import io.kflux.TopicPartition;
import io.kflux.fetch.CompletedFetch;
import io.kflux.fetch.PartitionState;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.MemoryRecordsBuilder;
import org.apache.kafka.common.record.Record;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.utils.BufferSupplier;
import org.junit.jupiter.api.Test;
import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;
import reactor.core.scheduler.Schedulers;

/**
 * Under receiveBatches() the records after the first of each wire batch are taken in a run that moves the position
 * once (issue #28). These tests hold it to what receive() does record by record: the same records, the same
 * acknowledgement-tracking events (compaction gaps, skipped poison records, leader epochs), the same position; and a
 * seek that lands during a run is never undone, not even one back to where the run started.
 */
class RecordEmitterRunTest {
    private static final TopicPartition TP = new TopicPartition("t", 0);

    /** What one emitter did: offsets in emission order, each batch's end as -1, and the tracking events. */
    private final List<Long> emitted = new ArrayList<>();
    private final List<String> events = new ArrayList<>();
    private final java.util.ArrayDeque<Runnable> tasks = new java.util.ArrayDeque<>();
    private Consumer<String> onValue = v -> { };

    private final RecordEmitter.Progress progress = new RecordEmitter.Progress() {
        @Override
        public AckHandle positioned(TopicPartition tp, long position, int epoch) {
            events.add("positioned " + position + " epoch " + epoch);
            return null;
        }

        @Override
        public void leaderEpoch(TopicPartition tp, long offset, int epoch) {
            events.add("epoch " + epoch + " from " + offset);
        }

        @Override
        public void skipped(TopicPartition tp, long from, long to) {
            events.add("skipped " + from + "-" + to);
        }
    };

    /** Values: "poison" fails, as a deserializer would on bad bytes; the others are read as they are. */
    private Deserializer<String> values() {
        return (topic, headers, data) -> {
            String v = StandardCharsets.UTF_8.decode(data).toString();
            onValue.accept(v);
            if (v.equals("poison")) {
                throw new IllegalArgumentException("poison");
            }
            return v;
        };
    }

    private RecordEmitter<String, String> perRecord() {
        CoreSubscriber<ConsumerRecord<String, String>> subscriber = new Collecting<>() {
            @Override
            public void onNext(ConsumerRecord<String, String> r) {
                emitted.add(r.offset());
            }
        };
        return emitter(Downstream.records(subscriber), subscriber);
    }

    private RecordEmitter<String, String> batches(int maxBatch) {
        CoreSubscriber<RecordBatch<String, String>> subscriber = new Collecting<>() {
            @Override
            public void onNext(RecordBatch<String, String> b) {
                b.records().forEach(r -> emitted.add(r.offset()));
            }
        };
        return emitter(Downstream.batches(subscriber, maxBatch), subscriber);
    }

    private RecordEmitter<String, String> emitter(Downstream<String, String> downstream, CoreSubscriber<?> subscriber) {
        RecordEmitter<String, String> emitter = new RecordEmitter<>(downstream, Deserializers.string(), values(),
                DeserializationErrorHandler.logAndSkip(), null, true, cf -> { }, () -> { },
                Schedulers.fromExecutor(tasks::add).createWorker(), progress, io.kflux.util.LogContext.NONE);
        subscriber.onSubscribe(emitter);
        return emitter;
    }

    private abstract static class Collecting<T> implements CoreSubscriber<T> {
        @Override
        public void onSubscribe(Subscription s) {
        }

        @Override
        public void onError(Throwable t) {
            throw new AssertionError(t);
        }

        @Override
        public void onComplete() {
        }
    }

    private void runWorker() {
        for (Runnable t; (t = tasks.poll()) != null; ) {
            t.run();
        }
    }

    /** What draining {@link #compactedWithPoison} from offset 1 does: offsets, events, position, epoch. */
    private List<Object> drain(RecordEmitter<String, String> emitter) {
        emitted.clear();
        events.clear();
        PartitionState ps = new PartitionState(TP);
        ps.seek(1);
        emitter.offer(compactedWithPoison(ps));
        emitter.request(Long.MAX_VALUE);
        runWorker();
        return List.of(List.copyOf(emitted), List.copyOf(events), ps.position(), ps.lastEmittedEpoch());
    }

    @Test
    void runsDoWhatReceiveDoesRecordByRecord() {
        List<Object> perRecord = drain(perRecord());
        assertThat(perRecord.get(0)).as("below the position, compacted and poison records are not emitted")
                .isEqualTo(List.of(2L, 4L, 5L, 8L, 10L, 11L, 12L, 14L, 15L, 16L, 18L, 19L));
        assertThat(perRecord.get(1)).as("gaps, poison records and the epoch change are told").isEqualTo(List.of(
                "positioned 1 epoch -1", "skipped 1-2", "epoch 5 from 2", "skipped 3-4", "skipped 6-8",
                "skipped 9-10", "epoch 6 from 10", "skipped 13-14", "skipped 17-18"));
        assertThat(perRecord.subList(2, 4)).isEqualTo(List.of(20L, 6));
        for (int maxBatch : new int[] {1, 2, 3, 500}) {
            assertThat(drain(batches(maxBatch))).as("receiveBatches() with max.poll.records " + maxBatch)
                    .isEqualTo(perRecord);
        }
    }

    /**
     * A seek back to the offset a run started from leaves the position where it was, so only the seek epoch tells
     * that the run's records are stale: they are dropped, and the seek stands.
     */
    @Test
    void aSeekBackToWhereTheRunStartedIsNotUndone() {
        RecordEmitter<String, String> emitter = batches(500);
        PartitionState ps = new PartitionState(TP);
        ps.seek(0);
        onValue = v -> {
            if (v.equals("v3")) {
                ps.seek(1); // the first record (0) moved the position to 1; the run started there
            }
        };
        emitter.offer(RecordEmitterOrderTest.fetch(ps, 0, 6));
        emitter.request(5);
        runWorker();
        assertThat(emitted).as("the first record went out before the seek; the run's went with it")
                .containsExactly(0L);
        assertThat(ps.position()).isEqualTo(1L);
    }

    /**
     * Offsets 0-9 of leader epoch 5 with 1, 3, 6, 7 and 9 compacted away (a batch keeps its last offset, so 9 is a
     * gap at its tail), then 10-19 of epoch 6 whose values at 13 and 17 fail to deserialize.
     */
    private static CompletedFetch compactedWithPoison(PartitionState ps) {
        MemoryRecordsBuilder first = builder(0L, 5);
        for (long o = 0; o < 10; o++) {
            first.append(1_000L + o, utf8("k" + o), utf8("v" + o));
        }
        MemoryRecords compacted = retainOnly(first.build(), Set.of(0L, 2L, 4L, 5L, 8L));
        MemoryRecordsBuilder second = builder(10L, 6);
        for (long o = 10; o < 20; o++) {
            second.append(1_000L + o, utf8("k" + o), utf8(o == 13 || o == 17 ? "poison" : "v" + o));
        }
        ByteBuf buf = Unpooled.buffer();
        buf.writeBytes(compacted.buffer().duplicate());
        buf.writeBytes(second.build().buffer().duplicate());
        return new CompletedFetch(ps, ps.seekEpoch(), 1L, 20L, buf, buf.readableBytes(), -1L, List.of());
    }

    private static MemoryRecordsBuilder builder(long baseOffset, int leaderEpoch) {
        return MemoryRecords.builder(ByteBuffer.allocate(1024),
                org.apache.kafka.common.record.RecordBatch.MAGIC_VALUE_V2, Compression.NONE, TimestampType.CREATE_TIME,
                baseOffset, -1L, 1L, (short) 0, 0, false, leaderEpoch);
    }

    /** What the log cleaner leaves of {@code records}: the batch keeps its last offset. */
    private static MemoryRecords retainOnly(MemoryRecords records, Set<Long> offsets) {
        ByteBuffer out = ByteBuffer.allocate(records.sizeInBytes() + 64);
        records.filterTo(new MemoryRecords.RecordFilter(0L, 0L) {
            @Override
            protected BatchRetentionResult checkBatchRetention(org.apache.kafka.common.record.RecordBatch batch) {
                return new BatchRetentionResult(BatchRetention.DELETE_EMPTY, false);
            }

            @Override
            protected boolean shouldRetainRecord(org.apache.kafka.common.record.RecordBatch batch, Record record) {
                return offsets.contains(record.offset());
            }
        }, out, BufferSupplier.NO_CACHING);
        out.flip();
        return MemoryRecords.readableRecords(out);
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
