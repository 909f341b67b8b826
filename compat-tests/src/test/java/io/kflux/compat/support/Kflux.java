package io.kflux.compat.support;

import io.kflux.ConsumerOptions;
import io.kflux.ConsumerRecord;
import io.kflux.Deserializers;
import io.kflux.KafkaFluxConsumer;
import io.kflux.TopicPartition;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeoutException;
import java.util.stream.IntStream;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/** Small helpers for kflux consumers in compat tests. */
public final class Kflux {

    private Kflux() {
    }

    /** Partitions 0..n-1 of {@code topic}. */
    public static List<TopicPartition> partitions(String topic, int n) {
        return IntStream.range(0, n).mapToObj(p -> new TopicPartition(topic, p)).toList();
    }

    /** Base properties: bootstrap servers, earliest reset, plus {@code extra} (key, value pairs). */
    public static Map<String, Object> props(String bootstrapServers, Object... extra) {
        Map<String, Object> props = new HashMap<>();
        props.put("bootstrap.servers", bootstrapServers);
        props.put("auto.offset.reset", "earliest");
        for (int i = 0; i < extra.length; i += 2) {
            props.put((String) extra[i], extra[i + 1]);
        }
        return props;
    }

    /** A string consumer with a manual assignment. */
    public static KafkaFluxConsumer<String, String> strings(Map<String, Object> props, List<TopicPartition> assignment) {
        return KafkaFluxConsumer.create(ConsumerOptions.create(props, Deserializers.string(), Deserializers.string())
                .assignment(assignment));
    }

    /**
     * Collects records until none arrived for {@code idle} (after a first one within {@code first});
     * "nothing extra" checks rely on this quiet period.
     */
    public static <K, V> List<ConsumerRecord<K, V>> collectUntilIdle(Flux<ConsumerRecord<K, V>> records,
                                                                     Duration first, Duration idle) {
        return records.timeout(Mono.delay(first), r -> Mono.delay(idle))
                .onErrorResume(TimeoutException.class, e -> Mono.empty())
                .collectList()
                .block(first.plus(Duration.ofMinutes(2)));
    }

    /** Offsets of {@code records} per partition, in emission order. */
    public static <K, V> Map<TopicPartition, List<Long>> offsetsByPartition(List<ConsumerRecord<K, V>> records) {
        Map<TopicPartition, List<Long>> out = new HashMap<>();
        for (ConsumerRecord<K, V> r : records) {
            out.computeIfAbsent(r.topicPartition(), tp -> new java.util.ArrayList<>()).add(r.offset());
        }
        return out;
    }
}
