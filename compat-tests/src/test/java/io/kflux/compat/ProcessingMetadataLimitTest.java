package io.kflux.compat;

import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.ConsumerRecord;
import io.kflux.KafkaFluxConsumer;
import io.kflux.Ordering;
import io.kflux.ProcessingOptions;
import io.kflux.compat.support.GroupKit;
import io.kflux.test.KafkaTest;
import io.kflux.test.broker.EmbeddedKafkaCluster;
import io.kflux.test.broker.SampleData;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * process()'s progress metadata longer than the broker's {@code offset.metadata.max.bytes} (set to 64 here, the
 * default being 4,096): the commit is made without it, with no error, the committed offset correct (read with the
 * official Admin client) and nothing lost. Under both group protocols.
 */
@KafkaTest(nodes = 1, brokerProperties = {"offset.metadata.max.bytes=64",
        "group.consumer.heartbeat.interval.ms=500", "group.consumer.min.heartbeat.interval.ms=500",
        "group.consumer.session.timeout.ms=10000", "group.consumer.min.session.timeout.ms=10000"})
class ProcessingMetadataLimitTest {
    private static final Duration WAIT = Duration.ofSeconds(120);

    private static void await(String what, BooleanSupplier condition) {
        GroupKit.await(what, WAIT, condition);
    }

    private static OffsetAndMetadata committed(EmbeddedKafkaCluster kafka, String group, TopicPartition tp) {
        try {
            return kafka.admin().listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get().get(tp);
        } catch (Exception e) {
            return null;
        }
    }

    /**
     * Every 10th record (offsets 5, 15, ...) hangs until released, the others complete: the progress above the
     * committed offset 5 is about 40 runs, far over 64 bytes. The commit lands at 5 without metadata and without
     * error; once released, every record completes and the commit reaches the end.
     */
    @ParameterizedTest(name = "group.protocol={0}")
    @ValueSource(strings = {"classic", "consumer"})
    void progressLongerThanTheBrokerAllowsIsLeftOutAndTheOffsetIsCommitted(String protocol,
                                                                           EmbeddedKafkaCluster kafka)
            throws Exception {
        String topic = "metadata-limit-" + protocol;
        String group = "g-" + topic;
        kafka.createTopic(topic, 1, 1);
        int count = 400;
        List<ProducerRecord<String, String>> records = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            records.add(new ProducerRecord<>(topic, 0, "k" + i, "v" + i));
        }
        SampleData.produce(kafka.bootstrapServers(), records);
        TopicPartition tp = new TopicPartition(topic, 0);

        KafkaFluxConsumer<String, String> consumer = ProcessingResilienceTest.member(protocol, kafka, topic, group);
        Set<Long> completed = ConcurrentHashMap.newKeySet();
        Sinks.Empty<Void> release = Sinks.empty();
        AtomicReference<Throwable> streamError = new AtomicReference<>();
        Disposable run = consumer.process(ProcessingOptions.<String, String>ordering(Ordering.UNORDERED)
                        .maxInFlight(64).maxWaiting(400),
                (ConsumerRecord<String, String> r) -> r.offset() % 10 == 5 ? release.asMono() : Mono.empty())
                .subscribe(p -> completed.add(p.record().offset()), streamError::set);
        try {
            await("every record but the hanging ones completed", () -> completed.size() == count - count / 10);
            await("committed at the first hanging record", () -> {
                OffsetAndMetadata c = committed(kafka, group, tp);
                return c != null && c.offset() == 5;
            });
            assertThat(consumer.commit().then(Mono.just(true)).block(WAIT))
                    .as("an explicit commit with the long progress completes without error").isTrue();
            await("the progress did not fit: committed at 5 without it", () -> {
                OffsetAndMetadata c = committed(kafka, group, tp);
                return c != null && c.offset() == 5 && c.metadata().isEmpty();
            });

            release.tryEmitEmpty();
            await("every record completed", () -> completed.size() == count);
            await("committed at the end", () -> {
                OffsetAndMetadata c = committed(kafka, group, tp);
                return c != null && c.offset() == count;
            });
            assertThat(streamError.get()).as("process() did not fail").isNull();
        } finally {
            run.dispose();
            consumer.close().block(WAIT);
        }
    }
}
