package io.kflux.compat;

import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.CommitFailedException;
import io.kflux.ConsumerOptions;
import io.kflux.ConsumerRecord;
import io.kflux.Deserializers;
import io.kflux.KafkaFluxConsumer;
import io.kflux.KafkaFluxException;
import io.kflux.OffsetAndMetadata;
import io.kflux.TopicPartition;
import io.kflux.test.KafkaTest;
import io.kflux.compat.support.Kflux;
import io.kflux.test.broker.EmbeddedKafkaCluster;
import io.kflux.test.broker.SampleData;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.core.publisher.Mono;

/**
 * The guide's at-most-once recipe ({@code r.commit()} first, {@code onErrorResume(CommitFailedException.class, ...)})
 * through a close(): a record still in flight is refused with CommitFailedException, which the recipe handles, so
 * the pipeline completes instead of ending with an IllegalStateException; no record is processed uncommitted.
 */
@KafkaTest(nodes = 1)
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class CommitAfterCloseTest {
    private static final Duration WAIT = Duration.ofSeconds(20);

    @Test
    void theAtMostOnceRecipeCompletesWhenRecordsAreInFlightAtClose(EmbeddedKafkaCluster kafka) throws Exception {
        kafka.createTopic("amo", 1, 1);
        SampleData.produce(kafka.bootstrapServers(), "amo", 50);
        TopicPartition tp = new TopicPartition("amo", 0);
        KafkaFluxConsumer<String, String> consumer = KafkaFluxConsumer.create(ConsumerOptions.create(
                        Kflux.props(kafka.bootstrapServers(), "group.id", "amo-group"),
                        Deserializers.string(), Deserializers.string())
                .subscription(List.of("amo")));
        List<Long> processed = new CopyOnWriteArrayList<>();
        List<Long> skipped = new CopyOnWriteArrayList<>();
        CountDownLatch fiveProcessed = new CountDownLatch(5);
        CountDownLatch waiting = new CountDownLatch(6);
        AtomicReference<Throwable> ended = new AtomicReference<>();
        CountDownLatch done = new CountDownLatch(1);

        consumer.receive()
                // the recipe, with a pause before each commit so that close() lands while a record waits for it
                .concatMap(r -> Mono.delay(Duration.ofMillis(400)).doOnSubscribe(x -> waiting.countDown())
                        .then(r.commit()).thenReturn(r)
                        .onErrorResume(CommitFailedException.class, e -> {
                            skipped.add(r.offset());
                            return Mono.empty();
                        }))
                .concatMap(r -> Mono.fromRunnable(() -> {
                    processed.add(r.offset());
                    fiveProcessed.countDown();
                }).thenReturn(r))
                .subscribe(r -> { }, e -> {
                    ended.set(e);
                    done.countDown();
                }, done::countDown);

        assertThat(fiveProcessed.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
        // concatMap has no prefetch: wait until the sixth record is in its 400 ms wait (it is requested only once
        // the fifth was processed), so that close() lands in that wait
        assertThat(waiting.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
        consumer.close().block(WAIT);
        assertThat(done.await(WAIT.toSeconds(), TimeUnit.SECONDS)).as("the pipeline ended").isTrue();
        assertThat(ended.get()).as("the pipeline completes, no error escapes the recipe").isNull();
        assertThat(skipped).as("the record waiting for its commit at close is refused and skipped; processed %s",
                processed).isNotEmpty();

        // at most once: everything processed was committed first, and nothing skipped was processed
        long last = processed.get(processed.size() - 1);
        assertThat(processed).doesNotContainAnyElementsOf(skipped);
        KafkaFluxConsumer<String, String> reader = KafkaFluxConsumer.create(ConsumerOptions.create(
                        Kflux.props(kafka.bootstrapServers(), "group.id", "amo-group"),
                        Deserializers.string(), Deserializers.string())
                .assignment(List.of(tp)));
        Map<TopicPartition, OffsetAndMetadata> committed = reader.committed(Set.of(tp)).block(WAIT);
        assertThat(committed.get(tp).offset()).isEqualTo(last + 1);
        reader.close().block(WAIT);

        // the commits after close are typed as commit failures, not as misuse
        Throwable afterClose = consumer.commit().then(Mono.<Throwable>empty()).onErrorResume(Mono::just).block(WAIT);
        assertThat(afterClose).isInstanceOf(CommitFailedException.class).isInstanceOf(KafkaFluxException.class)
                .hasMessageContaining("closed");
    }
}
