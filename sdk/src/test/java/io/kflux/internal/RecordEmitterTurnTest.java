package io.kflux.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.ConsumerRecord;
import io.kflux.Deserializers;
import io.kflux.TopicPartition;
import io.kflux.fetch.PartitionState;
import java.util.ArrayDeque;
import java.util.List;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;
import reactor.test.subscriber.TestSubscriber;

/**
 * Emitters sharing one emit thread take turns: one task emits at most {@link RecordEmitter#RECORDS_PER_TURN}
 * records, then queues the rest behind the other subscriptions' tasks. The worker here is a task queue run by the
 * test, first in first out as the single thread of a shared emit scheduler runs it.
 */
class RecordEmitterTurnTest {
    private static final int TURN = RecordEmitter.RECORDS_PER_TURN;
    private final ArrayDeque<Runnable> thread = new ArrayDeque<>();
    private final Scheduler scheduler = Schedulers.fromExecutor(thread::add);

    @Test
    void aTaskEmitsOneTurnThenQueuesTheRest() {
        PartitionState ps = partition("t", 0);
        TestSubscriber<ConsumerRecord<String, String>> subscriber = TestSubscriber.create();
        RecordEmitter<String, String> emitter = emitter(subscriber);
        emitter.offer(RecordEmitterOrderTest.fetch(ps, 0, 2 * TURN + 10));

        runOneTask();
        assertThat(subscriber.getReceivedOnNext()).hasSize(TURN);
        assertThat(thread).as("the rest, queued as a new task").hasSize(1);
        while (!thread.isEmpty()) {
            runOneTask();
        }
        assertThat(subscriber.getReceivedOnNext()).extracting(ConsumerRecord::offset)
                .containsExactlyElementsOf(LongStream.range(0, 2 * TURN + 10).boxed().toList());
        assertThat(ps.position()).isEqualTo(2L * TURN + 10);
    }

    @Test
    void aSubscriptionWithLittleToEmitIsNotHeldBehindOneWithMuch() {
        TestSubscriber<ConsumerRecord<String, String>> busy = TestSubscriber.create();
        TestSubscriber<ConsumerRecord<String, String>> light = TestSubscriber.create();
        RecordEmitter<String, String> busyEmitter = emitter(busy);
        RecordEmitter<String, String> lightEmitter = emitter(light);
        busyEmitter.offer(RecordEmitterOrderTest.fetch(partition("busy", 0), 0, 3 * TURN));
        lightEmitter.offer(RecordEmitterOrderTest.fetch(partition("light", 0), 0, 5));

        runOneTask(); // the busy one was first
        runOneTask();
        assertThat(light.getReceivedOnNext()).as("the light subscription's records, after one turn of the busy one")
                .hasSize(5);
        assertThat(busy.getReceivedOnNext()).hasSize(TURN);
        while (!thread.isEmpty()) {
            runOneTask();
        }
        assertThat(busy.getReceivedOnNext()).hasSize(3 * TURN);
    }

    @Test
    void demandEndingWithATurnLeavesNoTaskBehind() {
        TestSubscriber<ConsumerRecord<String, String>> subscriber = TestSubscriber.<ConsumerRecord<String, String>>builder()
                .initialRequest(TURN).build();
        RecordEmitter<String, String> emitter = emitter(subscriber);
        emitter.offer(RecordEmitterOrderTest.fetch(partition("t", 0), 0, 2 * TURN));
        runOneTask();
        assertThat(subscriber.getReceivedOnNext()).hasSize(TURN);
        assertThat(thread).as("nothing more was asked for").isEmpty();
        subscriber.request(1);
        runOneTask();
        assertThat(subscriber.getReceivedOnNext()).hasSize(TURN + 1);
    }

    private void runOneTask() {
        thread.poll().run();
    }

    private RecordEmitter<String, String> emitter(TestSubscriber<ConsumerRecord<String, String>> subscriber) {
        RecordEmitter<String, String> emitter = new RecordEmitter<>(Downstream.records(subscriber), Deserializers.string(),
                Deserializers.string(), io.kflux.DeserializationErrorHandler.fail(), null, true, cf -> { }, () -> { },
                scheduler.createWorker(), RecordEmitter.Progress.NONE, io.kflux.util.LogContext.NONE);
        subscriber.onSubscribe(emitter);
        return emitter;
    }

    private static PartitionState partition(String topic, int partition) {
        PartitionState ps = new PartitionState(new TopicPartition(topic, partition));
        ps.seek(0);
        return ps;
    }
}
