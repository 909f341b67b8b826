package io.kflux.reactor.kafka.receiver;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.header.internals.RecordHeaders;
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

    /**
     * The record as kafka-clients' type. Its headers are kafka-clients' own {@link RecordHeaders} of
     * {@link RecordHeader}s, as reactor-kafka hands out: applications compare them with {@code equals} to the
     * headers they sent (both classes compare by class and content) and print them. The value arrays are shared with
     * kflux's record, not copied.
     */
    static <K, V> ConsumerRecord<K, V> kafka(io.kflux.ConsumerRecord<K, V> r) {
        return new ConsumerRecord<>(r.topic(), r.partition(), r.offset(), r.timestamp(), kafka(r.timestampType()),
                                    r.serializedKeySize(), r.serializedValueSize(), r.key(), r.value(),
                                    kafka(r.headers()), r.leaderEpoch());
    }

    static RecordHeaders kafka(io.kflux.Headers headers) {
        if (headers.size() == 0) {
            return new RecordHeaders();
        }
        Header[] out = new Header[headers.size()];
        int i = 0;
        for (io.kflux.Header h : headers) {
            out[i++] = new RecordHeader(h.key(), h.value());
        }
        return new RecordHeaders(out);
    }
}
