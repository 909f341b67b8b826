package io.kflux.test.broker;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.StringSerializer;

/** Fills topics through the official {@link KafkaProducer}, the reference a consumer is checked against. */
public final class SampleData {

    private SampleData() {
    }

    /**
     * A producer with string keys and values and {@code acks=all}, so that what it reports as
     * written survives a broker failover; one request in flight keeps each partition in send order.
     * Idempotence is off: right after a topic is created the broker may answer NOT_LEADER_OR_FOLLOWER,
     * and the idempotent producer was seen to get stuck on OUT_OF_ORDER_SEQUENCE_NUMBER after that
     * until its delivery timeout (120 s), which failed tests for reasons outside kflux.
     *
     * @param bootstrapServers e.g. {@link EmbeddedKafkaCluster#bootstrapServers()}
     * @return a new producer; close it
     */
    public static KafkaProducer<String, String> producer(String bootstrapServers) {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "false");
        props.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, "1");
        props.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        props.put(ProducerConfig.CLIENT_ID_CONFIG, "kflux-sample-data");
        return new KafkaProducer<>(props, new StringSerializer(), new StringSerializer());
    }

    /**
     * Writes {@code count} records keyed {@code key-<i>} with values {@code value-<i>}, spread over
     * the partitions by key hash, and waits until all are acknowledged.
     *
     * @param bootstrapServers where to write
     * @param topic            an existing topic
     * @param count            number of records
     * @return the metadata of each record, in the order written
     */
    public static List<RecordMetadata> produce(String bootstrapServers, String topic, int count) {
        List<ProducerRecord<String, String>> records = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            records.add(new ProducerRecord<>(topic, "key-" + i, "value-" + i));
        }
        return produce(bootstrapServers, records);
    }

    /**
     * Writes the given records and waits until all are acknowledged.
     *
     * @param bootstrapServers where to write
     * @param records          records, each naming its topic (and optionally partition)
     * @return the metadata of each record, in the order given
     * @throws org.apache.kafka.common.KafkaException the first send failure
     */
    public static List<RecordMetadata> produce(String bootstrapServers,
                                               Collection<ProducerRecord<String, String>> records) {
        try (KafkaProducer<String, String> producer = producer(bootstrapServers)) {
            List<Future<RecordMetadata>> pending = new ArrayList<>(records.size());
            for (ProducerRecord<String, String> record : records) {
                pending.add(producer.send(record));
            }
            producer.flush();
            List<RecordMetadata> written = new ArrayList<>(pending.size());
            for (Future<RecordMetadata> future : pending) {
                written.add(future.get());
            }
            return written;
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException cause) {
                throw cause;
            }
            throw new IllegalStateException("send failed", e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while producing", e);
        }
    }
}
