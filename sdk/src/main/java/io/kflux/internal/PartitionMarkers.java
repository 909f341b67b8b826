package io.kflux.internal;

import io.kflux.ConsumerRecord;
import io.kflux.Header;
import io.kflux.Headers;
import io.kflux.TimestampType;
import io.kflux.TopicPartition;

/**
 * Marker records for {@code receivePartitioned()}: the session queues one in the emitter when a partition's
 * assignment starts ({@link #assigned}) and when it ends, revoked or lost ({@link #ended}). They travel through
 * the emitter in order with the real records (and take demand like them), so the operator that splits the flux
 * per partition sees a partition's end after its last emitted record, and its start before its first. They never
 * reach the application: they are told apart by the identity of their {@link Headers} instance.
 */
final class PartitionMarkers {
    private static final Headers ASSIGNED = Headers.of(new Header("kflux.partition.assigned", new byte[0]));
    private static final Headers ENDED = Headers.of(new Header("kflux.partition.ended", new byte[0]));

    private PartitionMarkers() {
    }

    static <K, V> ConsumerRecord<K, V> assigned(TopicPartition tp) {
        return marker(tp, ASSIGNED);
    }

    static <K, V> ConsumerRecord<K, V> ended(TopicPartition tp) {
        return marker(tp, ENDED);
    }

    static boolean isAssigned(ConsumerRecord<?, ?> record) {
        return record.headers() == ASSIGNED;
    }

    static boolean isEnded(ConsumerRecord<?, ?> record) {
        return record.headers() == ENDED;
    }

    private static <K, V> ConsumerRecord<K, V> marker(TopicPartition tp, Headers kind) {
        return new ConsumerRecord<>(tp, 0L, ConsumerRecord.NO_TIMESTAMP, TimestampType.NO_TIMESTAMP_TYPE, null, null,
                kind, ConsumerRecord.NO_LEADER_EPOCH, ConsumerRecord.NULL_SIZE, ConsumerRecord.NULL_SIZE);
    }
}
