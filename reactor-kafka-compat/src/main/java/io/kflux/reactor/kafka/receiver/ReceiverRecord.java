package io.kflux.reactor.kafka.receiver;

import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * A record from {@link KafkaReceiver#receive()}: a kafka-clients {@link ConsumerRecord} (every accessor as usual)
 * plus its {@link ReceiverOffset}, through which it is acknowledged or committed.
 *
 * @param <K> key type
 * @param <V> value type
 */
public class ReceiverRecord<K, V> extends ConsumerRecord<K, V> {

    private final ReceiverOffset receiverOffset;

    /**
     * Pairs a record with its offset handle.
     *
     * @param consumerRecord the record; its fields are copied
     * @param receiverOffset its offset handle
     */
    public ReceiverRecord(ConsumerRecord<K, V> consumerRecord, ReceiverOffset receiverOffset) {
        super(consumerRecord.topic(), consumerRecord.partition(), consumerRecord.offset(), consumerRecord.timestamp(),
              consumerRecord.timestampType(), consumerRecord.serializedKeySize(),
              consumerRecord.serializedValueSize(), consumerRecord.key(), consumerRecord.value(),
              consumerRecord.headers(), consumerRecord.leaderEpoch());
        this.receiverOffset = receiverOffset;
    }

    /**
     * The handle to acknowledge or commit this record.
     *
     * @return never {@code null}
     */
    public ReceiverOffset receiverOffset() {
        return receiverOffset;
    }
}
