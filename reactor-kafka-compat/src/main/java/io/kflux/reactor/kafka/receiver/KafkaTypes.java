package io.kflux.reactor.kafka.receiver;

import io.kflux.kafka.serde.KafkaHeadersView;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.record.TimestampType;

/** kflux's types as the kafka-clients types reactor-kafka's API speaks. */
final class KafkaTypes {

    private KafkaTypes() {
    }

    static TopicPartition kafka(io.kflux.TopicPartition tp) {
        return new TopicPartition(tp.topic(), tp.partition());
    }

    static io.kflux.TopicPartition kflux(TopicPartition tp) {
        return new io.kflux.TopicPartition(tp.topic(), tp.partition());
    }

    static List<io.kflux.TopicPartition> kflux(Collection<TopicPartition> partitions) {
        List<io.kflux.TopicPartition> out = new ArrayList<>(partitions.size());
        partitions.forEach(tp -> out.add(kflux(tp)));
        return out;
    }

    static TimestampType kafka(io.kflux.TimestampType type) {
        return switch (type) {
            case CREATE_TIME -> TimestampType.CREATE_TIME;
            case LOG_APPEND_TIME -> TimestampType.LOG_APPEND_TIME;
            case NO_TIMESTAMP_TYPE -> TimestampType.NO_TIMESTAMP_TYPE;
        };
    }

    /** The headers are a view (copied only if the application changes them). */
    static <K, V> ConsumerRecord<K, V> kafka(io.kflux.ConsumerRecord<K, V> r) {
        return new ConsumerRecord<>(r.topic(), r.partition(), r.offset(), r.timestamp(), kafka(r.timestampType()),
                                    r.serializedKeySize(), r.serializedValueSize(), r.key(), r.value(),
                                    new KafkaHeadersView(r.headers()), r.leaderEpoch());
    }
}
