package io.kflux.bench.runner;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.IntStream;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import reactor.kafka.receiver.KafkaReceiver;
import reactor.kafka.receiver.ReceiverOptions;
import reactor.kafka.receiver.ReceiverPartition;

/**
 * The reactor-kafka 1.3.25 contender (on kafka-clients 3.9.1): {@code KafkaReceiver.receive()} with a manual
 * assignment, no acknowledgement and no commit, consumer settings left at their defaults like the others'.
 */
public final class ReactorKafkaRunner {

    private static final Duration DRAIN_TIMEOUT = Duration.ofMinutes(5);

    private ReactorKafkaRunner() {
    }

    public static void main(String[] args) {
        DrainHarness.run(args, ReactorKafkaRunner::drain, ReactorKafkaRunner::follow);
    }

    private static ReceiverOptions<byte[], byte[]> options(DrainHarness.Spec spec, boolean fromStart) {
        Map<String, Object> props = new HashMap<>();
        props.put("bootstrap.servers", spec.servers());
        props.put("client.id", "bench-reactor-kafka");
        // a fresh group per consumer: nothing committed, nothing joined (manual assignment)
        props.put("group.id", "bench-reactor-kafka-" + UUID.randomUUID());
        props.put("enable.auto.commit", "false");
        props.put("auto.offset.reset", fromStart ? "earliest" : "latest");
        List<TopicPartition> partitions = IntStream.range(0, spec.partitions())
                .mapToObj(p -> new TopicPartition(spec.topic(), p)).toList();
        return ReceiverOptions.<byte[], byte[]>create(props)
                .withKeyDeserializer(new ByteArrayDeserializer())
                .withValueDeserializer(new ByteArrayDeserializer())
                .assignment(partitions)
                .addAssignListener(assigned -> assigned.forEach(fromStart
                        ? ReceiverPartition::seekToBeginning : ReceiverPartition::seekToEnd));
    }

    private static void drain(DrainHarness.Spec spec, Tally tally) {
        KafkaReceiver<byte[], byte[]> receiver = KafkaReceiver.create(options(spec, true));
        receiver.receive()
                .doOnNext(r -> {
                    if (tally.add(r.partition(), r.offset(), r.key(), r.value())) {
                        // on the receiver's consumer thread, as reactor-kafka requires; nothing follows the
                        // partition's last record, so no record of it is in flight
                        TopicPartition tp = new TopicPartition(spec.topic(), r.partition());
                        receiver.doOnConsumer(c -> {
                            c.seek(tp, 0);
                            return tp;
                        }).subscribe();
                    }
                })
                .takeUntil(r -> tally.complete())
                .blockLast(DRAIN_TIMEOUT);
    }

    private static void follow(DrainHarness.Spec spec, DrainHarness.Latencies latencies) {
        KafkaReceiver.create(options(spec, false))
                .receive()
                .doOnNext(r -> latencies.add(r.value()))
                .takeUntil(r -> latencies.done())
                .take(Duration.ofMillis(latencies.remainingMillis()))
                .blockLast(DRAIN_TIMEOUT);
    }
}
