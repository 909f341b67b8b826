package io.kflux.examples.spring;

import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.clients.producer.ProducerRecord;

/** Sample orders: key {@code order-<n>} (so the producer spreads them over the partitions by key), a JSON value. */
final class SampleOrders {

    private SampleOrders() {
    }

    /**
     * @param topic the orders topic
     * @param count how many
     * @return orders {@code order-0} to {@code order-<count-1>}
     */
    static List<ProducerRecord<String, String>> records(String topic, int count) {
        List<ProducerRecord<String, String>> records = new ArrayList<>(count);
        for (int n = 0; n < count; n++) {
            records.add(new ProducerRecord<>(topic, "order-" + n,
                    "{\"order\":" + n + ",\"amountCents\":" + (100 + n % 900) + "}"));
        }
        return records;
    }
}
