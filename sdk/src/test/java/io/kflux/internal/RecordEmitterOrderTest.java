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
            public AckHandle positioned(TopicPartition tp, long position, int epoch) {
                return null;
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
        emitter = new RecordEmitter<>(Downstream.records(subscriber), Deserializers.string(), Deserializers.string(),
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
