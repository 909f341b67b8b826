package io.kflux.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.ConsumerOptions;
import io.kflux.ConsumerRecord;
import io.kflux.Deserializers;
import io.kflux.KafkaFluxConsumer;
import io.kflux.TopicPartition;
import io.kflux.fetch.CompletedFetch;
import io.kflux.fetch.PartitionState;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;
import reactor.test.subscriber.TestSubscriber;

/**
 * A user's emit scheduler that is disposed ends the subscription with a clear error instead of leaving it without a
 * thread, silent: when {@code receive()} is subscribed to, and when it refuses the emitter's tasks later.
 */
class DisposedEmitSchedulerTest {

    @Test
    void subscribingWithADisposedSchedulerFailsAtOnce() {
        Scheduler scheduler = Schedulers.newSingle("disposed-emit");
        scheduler.dispose();
        // nothing listens there: the check comes before any I/O
        KafkaFluxConsumer<String, String> consumer = KafkaFluxConsumer.create(ConsumerOptions
                .create(Map.of("bootstrap.servers", "127.0.0.1:1"), Deserializers.string(), Deserializers.string())
                .assignment(List.of(new TopicPartition("t", 0)))
                .withEmitScheduler(scheduler));
        try {
            StepVerifier.create(consumer.receive())
                    .expectErrorSatisfies(e -> assertThat(e).isInstanceOf(IllegalStateException.class)
                            .hasMessageContaining("withEmitScheduler is disposed"))
                    .verify(Duration.ofSeconds(10));
        } finally {
            consumer.close(Duration.ofSeconds(1)).block(Duration.ofSeconds(10));
        }
    }

    @Test
    void aSchedulerDisposedUnderARunningEmitterEndsItsFluxAndReleasesWhatWasQueued() {
        Scheduler scheduler = Schedulers.newSingle("emit-then-disposed");
        // requests nothing itself: the test asks for records once a result is queued
        TestSubscriber<ConsumerRecord<String, String>> subscriber = TestSubscriber.<ConsumerRecord<String, String>>builder()
                .initialRequest(0).build();
        AtomicBoolean terminated = new AtomicBoolean();
        RecordEmitter<String, String> emitter = new RecordEmitter<>(Downstream.records(subscriber), Deserializers.string(),
                Deserializers.string(), io.kflux.DeserializationErrorHandler.fail(), null, true, cf -> { },
                () -> terminated.set(true), scheduler.createWorker(), RecordEmitter.Progress.NONE,
                io.kflux.util.LogContext.NONE);
        subscriber.onSubscribe(emitter);
        PartitionState ps = new PartitionState(new TopicPartition("t", 0));
        ps.seek(0);
        scheduler.dispose();

        CompletedFetch fetch = RecordEmitterOrderTest.fetch(ps, 0, 3);
        emitter.offer(fetch);
        emitter.request(10);

        assertThat(subscriber.expectTerminalError()).as("the flux ends with").isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("emit scheduler refused");
        assertThat(subscriber.getReceivedOnNext()).as("nothing is emitted off the emit scheduler").isEmpty();
        assertThat(terminated).as("the session is told to stop").isTrue();
        assertThat(fetch.records().refCnt()).as("the queued result is released").isZero();
        assertThat(ps.position()).as("the position did not move").isZero();
        // later signals only release: no second terminal signal
        CompletedFetch late = RecordEmitterOrderTest.fetch(ps, 3, 2);
        emitter.offer(late);
        assertThat(late.records().refCnt()).isZero();
        assertThat(subscriber.getProtocolErrors()).as("signals after the terminal one").isEmpty();
    }
}
