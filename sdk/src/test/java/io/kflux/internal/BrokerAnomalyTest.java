package io.kflux.internal;

import static io.kflux.internal.MalformedResponseTest.batch;
import static io.kflux.internal.MalformedResponseTest.concat;
import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.ConsumerRecord;
import io.kflux.CorruptRecordException;
import io.kflux.KafkaFluxConsumer;
import io.kflux.KafkaFluxException;
import io.kflux.TopicPartition;
import io.kflux.network.FakeKafkaBroker;
import io.kflux.protocol.message.ApiVersionsResponse;
import io.kflux.protocol.message.FetchRequest;
import io.kflux.protocol.message.MetadataResponse;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.LongStream;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A broker (a fake one on loopback) that sends valid frames saying the wrong thing: a wrong correlation id, an
 * answer of another API, a response to a request never sent, batches whose offsets go backwards (between batches and
 * inside one), a decreasing leader epoch, a high watermark below the fetch offset. Each is either handled with every
 * record emitted exactly once in offset order, or ends {@code receive()} with a typed error with the position right
 * after the last emitted record (so a new subscription resumes there and skips nothing).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class BrokerAnomalyTest {
    private static final String TOPIC = "anomalies";
    private static final TopicPartition TP = new TopicPartition(TOPIC, 0);
    private static final int RECORDS = 15;

    private FakeKafkaBroker broker;

    @BeforeEach
    void start() {
        broker = new FakeKafkaBroker().topic(TOPIC, 1).logRange(0, RECORDS);
    }

    @AfterEach
    void stop() {
        broker.close();
    }

    private KafkaFluxConsumer<String, String> consumer() {
        return broker.consumer(TP);
    }

    /** What a subscription emitted and how it ended. */
    private record Outcome(List<Long> offsets, Throwable error, long position) {
    }

    /** Consumes until {@code RECORDS} records or an error, and records both. */
    private Outcome consume(KafkaFluxConsumer<String, String> consumer) {
        List<Long> offsets = new CopyOnWriteArrayList<>();
        AtomicReference<Throwable> error = new AtomicReference<>();
        consumer.receive().map(ConsumerRecord::offset).doOnNext(offsets::add).take(RECORDS)
                .doOnError(error::set).onErrorComplete().blockLast(Duration.ofSeconds(30));
        return new Outcome(offsets, error.get(), ((DefaultKafkaFluxConsumer<?, ?>) consumer).currentPosition(TP));
    }

    /**
     * Either every record once, in order, or a typed error after a gapless prefix with the position right after it.
     * Returns the outcome for further checks.
     */
    private static Outcome assertNothingLostOrSkipped(Outcome o) {
        assertThat(o.offsets()).as("emitted offsets").isEqualTo(LongStream.range(0, o.offsets().size()).boxed().toList());
        if (o.error() == null) {
            assertThat(o.offsets()).hasSize(RECORDS);
        } else {
            assertThat(o.error()).as("how receive() ended").isInstanceOf(KafkaFluxException.class);
            assertThat(o.position()).as("position after a typed error").isEqualTo(o.offsets().size());
        }
        return o;
    }

    /** Answers the fetch at {@code 0} with {@code first}; later fetches with the rest of the log from their offset. */
    private void serveLog(java.util.function.Consumer<FakeKafkaBroker.FetchExchange> firstAfterFive) {
        AtomicBoolean anomalySent = new AtomicBoolean();
        broker.onFetch(ex -> {
            long at = ex.fetchOffset();
            if (at == 0) {
                ex.respond((short) 0, concat(batch(0, 5, 0)));
            } else if (at == 5 && anomalySent.compareAndSet(false, true)) {
                firstAfterFive.accept(ex);
            } else if (at < RECORDS) {
                ex.respond((short) 0, concat(batch(at, (int) (RECORDS - at), 0)));
            } else {
                ex.respondEmptyAfterMaxWait();
            }
        });
    }

    /**
     * The fetch at 5 goes out as soon as records 0-4 arrive, so the bad answer can end the flux before the emitter
     * got to them: records buffered but not emitted are dropped with their position (RecordEmitter#fail), so the
     * number emitted is anywhere from 0 to 5, and the position always says where a new subscription resumes.
     */
    @Test
    void responseWithAWrongCorrelationIdEndsWithATypedErrorAndSkipsNothing() {
        serveLog(ex -> ex.respondWithCorrelationShift(concat(batch(5, 10, 0)), 1));
        Outcome o = assertNothingLostOrSkipped(consume(consumer()));
        assertThat(o.error()).as("a response that is not the oldest request's").isNotNull()
                .hasMessageContaining("correlation id");
        assertThat(o.offsets()).as("records 5.. came only in the bad answer").hasSizeLessThanOrEqualTo(5);
    }

    @Test
    void answerOfAnotherApiToAFetchLosesNothing() {
        serveLog(ex -> ex.respondAs(MetadataResponse.SPEC, new MetadataResponse(0, List.of(), "c", 1, List.of(),
                MetadataResponse.AUTHORIZED_OPERATIONS_OMITTED, (short) 0), (short) 12, 0));
        assertNothingLostOrSkipped(consume(consumer()));
    }

    @Test
    void responseToARequestNeverSentLosesNothing() {
        serveLog(ex -> {
            ex.respondAs(ApiVersionsResponse.SPEC, new ApiVersionsResponse((short) 0, List.of(), 0, List.of(), -1L,
                    List.of(), false), (short) 3, 1000);
            ex.respond((short) 0, concat(batch(5, 10, 0)));
        });
        Outcome o = assertNothingLostOrSkipped(consume(consumer()));
        assertThat(o.error()).as("a frame answering no request in flight").isNotNull()
                .hasMessageContaining("correlation id");
    }

    @Test
    void batchesWhoseOffsetsGoBackwardsAreEmittedOnceInOrder() {
        serveLog(ex -> ex.respond((short) 0, concat(batch(2, 6, 0), batch(8, 2, 0), batch(4, 3, 0),
                batch(10, 5, 0))));
        Outcome o = assertNothingLostOrSkipped(consume(consumer()));
        assertThat(o.error()).isNull();
    }

    @Test
    void recordOffsetsGoingBackwardsInsideABatchEndWithCorruptRecordExceptionAtTheFirstUnemitted() {
        serveLog(ex -> ex.respond((short) 0, concat(offsetDeltaSetTo(batch(5, 10, 0), 3, 1))));
        Outcome o = assertNothingLostOrSkipped(consume(consumer()));
        assertThat(o.error()).isInstanceOf(CorruptRecordException.class);
        assertThat(((CorruptRecordException) o.error()).offset()).isEqualTo(8L);
        assertThat(o.offsets()).hasSize(8);
    }

    @Test
    void aDecreasingBatchLeaderEpochLosesNothing() {
        broker.onFetch(ex -> {
            long at = ex.fetchOffset();
            if (at == 0) {
                ex.respond((short) 0, concat(batch(0, 5, 7)));
            } else if (at == 5) {
                ex.respond((short) 0, concat(batch(5, 5, 6), batch(10, 5, 3)));
            } else if (at < RECORDS) {
                ex.respond((short) 0, concat(batch(at, (int) (RECORDS - at), 3)));
            } else {
                ex.respondEmptyAfterMaxWait();
            }
        });
        Outcome o = assertNothingLostOrSkipped(consume(consumer()));
        assertThat(o.error()).isNull();
    }

    /**
     * Metadata whose leader epoch goes down (a broker whose metadata lags names a former leader): the partition is not
     * moved back, every Fetch goes on carrying the highest epoch seen.
     */
    @Test
    void aLeaderEpochThatGoesDownInMetadataIsNotFollowed() {
        broker.metadataLeaderEpoch = n -> n == 1 ? 5 : 3;
        // answered at once: a held Fetch would let a later Metadata answer overtake it on the connection
        broker.onFetch(ex -> ex.respond((short) 0, null));
        KafkaFluxConsumer<String, String> consumer = FakeKafkaBroker.consumer(broker.properties(
                "fetch.max.wait.ms", 100, "metadata.max.age.ms", 200, "reconnect.backoff.ms", 20,
                "retry.backoff.ms", 20), List.of(TP));
        reactor.core.Disposable running = consumer.receive().subscribe();
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (broker.metadataRequests.get() < 2 && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            assertThat(broker.metadataRequests.get()).as("metadata answers, the later ones with the lower epoch")
                    .isGreaterThanOrEqualTo(2);
            int after = broker.fetchRequests.size() + 5; // fetches planned after the lower epoch arrived
            while (broker.fetchRequests.size() < after && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            assertThat(broker.fetchRequests).as("fetches (metadata answers: %d)", broker.metadataRequests.get())
                    .hasSizeGreaterThanOrEqualTo(after);
            assertThat(broker.fetchRequests.stream().map(r -> r.topics().get(0).partitions().get(0).currentLeaderEpoch()))
                    .as("current leader epoch of every Fetch").containsOnly(5);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        } finally {
            running.dispose();
            consumer.close().block(Duration.ofSeconds(10));
        }
    }

    @Test
    void aHighWatermarkBelowTheFetchOffsetNeitherResetsNorSkips() {
        serveLog(ex -> ex.respond((short) 0, null, 2L));
        int fetchesBefore = broker.fetchRequests.size();
        Outcome o = assertNothingLostOrSkipped(consume(consumer()));
        assertThat(o.error()).isNull();
        // a snapshot: the consumer's fetcher may still append while this reads (a live sub-list then fails with a
        // ConcurrentModificationException)
        List<FetchRequest> fetches = List.copyOf(broker.fetchRequests);
        assertThat(fetches.subList(fetchesBefore, fetches.size()).stream()
                .map(r -> r.topics().get(0).partitions().get(0).fetchOffset()))
                .as("fetch offsets never move back or jump").isSorted();
    }

    /** {@code batch} with record {@code index}'s offset delta set to {@code delta} (one-byte varints), CRC fixed. */
    static ByteBuffer offsetDeltaSetTo(ByteBuffer batch, int index, int delta) {
        byte[] b = new byte[batch.remaining()];
        batch.duplicate().get(b);
        int pos = 61;
        for (int i = 0; i < index; i++) {
            pos += 1 + (b[pos] >> 1); // a one-byte length varint, zigzag
        }
        // length, attributes, timestamp delta (one byte each here), then the offset delta
        b[pos + 3] = (byte) (delta << 1);
        CRC32C crc = new CRC32C();
        crc.update(b, 21, b.length - 21);
        ByteBuffer.wrap(b).putInt(17, (int) crc.getValue());
        return ByteBuffer.wrap(b);
    }
}
