package io.kflux.compat;

import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.ConsumerOptions;
import io.kflux.ConsumerRecord;
import io.kflux.DeserializationErrorHandler;
import io.kflux.Deserializer;
import io.kflux.Deserializers;
import io.kflux.KafkaFluxConsumer;
import io.kflux.OffsetAndMetadata;
import io.kflux.RebalanceContext;
import io.kflux.RebalanceListener;
import io.kflux.RecordDeserializationException;
import io.kflux.TopicPartition;
import io.kflux.test.KafkaTest;
import io.kflux.compat.support.Kflux;
import io.kflux.test.broker.EmbeddedKafkaCluster;
import io.kflux.test.broker.SampleData;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.core.publisher.Mono;
import reactor.util.retry.Retry;

/**
 * A poison record in the middle of a partition, with a deserialization error handler that skips it: every other
 * record is delivered exactly once, the poison one is reported, and it does not hold the commit back.
 */
@KafkaTest(nodes = 1)
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PoisonRecordTest {
    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final int RECORDS = 30;
    private static final int POISON = 14;
    private static final long POISON_TIMESTAMP = 1_700_000_000_123L;

    /** Values are decimal numbers; the poison record's value is not. */
    private static final Deserializer<Integer> NUMBERS = (topic, headers, data) ->
            Integer.valueOf(StandardCharsets.UTF_8.decode(data == null ? ByteBuffer.allocate(0) : data).toString());

    @Test
    void aSkippedPoisonRecordIsReportedAndEveryOtherRecordIsDeliveredOnce(EmbeddedKafkaCluster kafka) {
        kafka.createTopic("poison", 2, 1);
        List<ProducerRecord<String, String>> records = new ArrayList<>();
        for (int i = 0; i < RECORDS; i++) {
            records.add(i == POISON
                    ? new ProducerRecord<>("poison", 0, POISON_TIMESTAMP, "k", "not a number",
                            List.of(new RecordHeader("poison", "yes".getBytes(StandardCharsets.UTF_8))))
                    : new ProducerRecord<>("poison", 0, "k", Integer.toString(i)));
            records.add(new ProducerRecord<>("poison", 1, "k", Integer.toString(1000 + i)));
        }
        SampleData.produce(kafka.bootstrapServers(), records);

        List<RecordDeserializationException> reported = new CopyOnWriteArrayList<>();
        ConsumerOptions<String, Integer> options = ConsumerOptions.create(
                        Kflux.props(kafka.bootstrapServers(), "group.id", "poison-group", "enable.auto.commit", false),
                        Deserializers.string(), NUMBERS)
                .subscription(List.of("poison"))
                .withDeserializationErrorHandler(e -> {
                    reported.add(e);
                    return DeserializationErrorHandler.Decision.SKIP;
                });
        KafkaFluxConsumer<String, Integer> consumer = KafkaFluxConsumer.create(options);
        try {
            List<ConsumerRecord<String, Integer>> got = Kflux.collectUntilIdle(
                    consumer.receive().doOnNext(ConsumerRecord::acknowledge), WAIT, Duration.ofSeconds(2));

            List<Integer> p0 = got.stream().filter(r -> r.partition() == 0).map(ConsumerRecord::value).toList();
            List<Integer> p1 = got.stream().filter(r -> r.partition() == 1).map(ConsumerRecord::value).toList();
            List<Integer> expected0 = new ArrayList<>();
            List<Integer> expected1 = new ArrayList<>();
            for (int i = 0; i < RECORDS; i++) {
                if (i != POISON) {
                    expected0.add(i);
                }
                expected1.add(1000 + i);
            }
            assertThat(p0).as("partition 0: all but the poison record, once each, in order").isEqualTo(expected0);
            assertThat(p1).as("partition 1: untouched").isEqualTo(expected1);
            assertThat(reported).singleElement().satisfies(e -> {
                assertThat(e.topicPartition()).isEqualTo(new TopicPartition("poison", 0));
                assertThat(e.offset()).isEqualTo(POISON);
                assertThat(e.origin()).isEqualTo(RecordDeserializationException.Origin.VALUE);
                assertThat(e.getCause()).isInstanceOf(NumberFormatException.class);
                // the record as it was on the wire, for a dead-letter topic (KIP-1036)
                assertThat(StandardCharsets.UTF_8.decode(e.valueBuffer()).toString()).isEqualTo("not a number");
                assertThat(StandardCharsets.UTF_8.decode(e.keyBuffer()).toString()).isEqualTo("k");
                assertThat(e.valueBuffer().isReadOnly()).isTrue();
                assertThat(e.headers().lastHeader("poison").valueAsString()).isEqualTo("yes");
                assertThat(e.timestamp()).isEqualTo(POISON_TIMESTAMP);
                assertThat(e.timestampType()).isEqualTo(io.kflux.TimestampType.CREATE_TIME);
            });

            // The skipped record counts as consumed: everything after it was acknowledged, so all of it is committed.
            consumer.commit().block(WAIT);
            Set<TopicPartition> tps = Set.copyOf(Kflux.partitions("poison", 2));
            assertThat(consumer.committed(tps).block(WAIT)).extractingFromEntries(
                            e -> e.getKey().partition() + "@" + e.getValue().offset())
                    .containsExactlyInAnyOrder("0@" + RECORDS, "1@" + RECORDS);
        } finally {
            consumer.close().block(WAIT);
        }
    }

    @Test
    void withoutAHandlerThePoisonRecordEndsReceiveAndThePositionStaysThere(EmbeddedKafkaCluster kafka) {
        kafka.createTopic("poison-default", 1, 1);
        List<ProducerRecord<String, String>> records = new ArrayList<>();
        for (int i = 0; i < RECORDS; i++) {
            records.add(new ProducerRecord<>("poison-default", 0, "k", i == POISON ? "x" : Integer.toString(i)));
        }
        SampleData.produce(kafka.bootstrapServers(), records);
        TopicPartition tp = new TopicPartition("poison-default", 0);
        KafkaFluxConsumer<String, Integer> consumer = KafkaFluxConsumer.create(ConsumerOptions.create(
                Kflux.props(kafka.bootstrapServers()), Deserializers.string(), NUMBERS).assignment(List.of(tp)));
        List<Integer> got = new CopyOnWriteArrayList<>();
        Throwable error = consumer.receive().doOnNext(r -> got.add(r.value())).then(reactor.core.publisher.Mono
                .<Throwable>empty()).onErrorResume(reactor.core.publisher.Mono::just).block(WAIT);
        assertThat(error).isInstanceOf(RecordDeserializationException.class);
        assertThat(((RecordDeserializationException) error).offset()).isEqualTo(POISON);
        assertThat(got).hasSize(POISON);
        assertThat(consumer.position(tp).block(WAIT)).isEqualTo(POISON);
        consumer.close().block(WAIT);
    }
    /** The guide's "Poison records in a consumer group" recipe, as written there. */
    @Test
    void theGuidesConsumerGroupRecipeGoesOnPastARecordThatEndedReceive(EmbeddedKafkaCluster kafka) {
        kafka.createTopic("poison-group", 1, 1);
        List<ProducerRecord<String, String>> records = new ArrayList<>();
        for (int i = 0; i < RECORDS; i++) {
            records.add(new ProducerRecord<>("poison-group", 0, "k", i == POISON ? "x" : Integer.toString(i)));
        }
        SampleData.produce(kafka.bootstrapServers(), records);
        TopicPartition tp = new TopicPartition("poison-group", 0);
        Map<TopicPartition, Long> skipTo = new ConcurrentHashMap<>();
        List<Long> reported = new CopyOnWriteArrayList<>();
        RebalanceListener skipPoison = new RebalanceListener() {
            @Override
            public Mono<Void> onPartitionsAssigned(Collection<TopicPartition> partitions, RebalanceContext ctx) {
                Map<TopicPartition, OffsetAndMetadata> past = new HashMap<>();
                for (TopicPartition p : partitions) {
                    Long next = skipTo.remove(p);
                    if (next != null) {
                        ctx.seek(p, next);
                        past.put(p, new OffsetAndMetadata(next));
                    }
                }
                return past.isEmpty() ? Mono.empty() : ctx.commit(past);
            }
        };
        KafkaFluxConsumer<String, Integer> consumer = KafkaFluxConsumer.create(ConsumerOptions.create(
                        Kflux.props(kafka.bootstrapServers(), "group.id", "poison-recipe", "enable.auto.commit", false),
                        Deserializers.string(), NUMBERS)
                .subscription(List.of("poison-group"))
                .rebalanceListener(skipPoison));
        try {
            List<ConsumerRecord<String, Integer>> got = Kflux.collectUntilIdle(consumer.receive()
                    .doOnError(RecordDeserializationException.class, e -> {
                        reported.add(e.offset());
                        skipTo.put(e.topicPartition(), e.offset() + 1);
                    })
                    .retryWhen(Retry.max(100).filter(e -> e instanceof RecordDeserializationException))
                    .doOnNext(ConsumerRecord::acknowledge), WAIT, Duration.ofSeconds(3));
            List<Integer> expected = new ArrayList<>();
            for (int i = 0; i < RECORDS; i++) {
                if (i != POISON) {
                    expected.add(i);
                }
            }
            assertThat(got).extracting(ConsumerRecord::value).as("all but the poison record, once each")
                    .isEqualTo(expected);
            assertThat(reported).containsExactly((long) POISON);
            consumer.commit().block(WAIT);
            assertThat(consumer.committed(Set.of(tp)).block(WAIT).get(tp).offset()).isEqualTo(RECORDS);
        } finally {
            consumer.close().block(WAIT);
        }
    }
}
