package io.kflux.examples.join;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * Sample orders and payments, keyed by order id, with explicit record timestamps: one order every
 * {@value #ORDER_SPACING_MS} ms of record time; about 8% invalid (half of those paid anyway), 10% never paid, the
 * rest paid between {@value #EARLIEST_PAYMENT_S} s before and {@value #LATEST_PAYMENT_S} s after the order (so
 * within a 30 s window). The records are sorted by timestamp, so each partition of each topic gets increasing
 * timestamps whichever part of the list is written first; a payment that comes before its order is written first.
 */
public final class SampleOrders {

    /** Record time between two orders. */
    public static final long ORDER_SPACING_MS = 50;
    /** The earliest a payment comes, relative to its order (negative: before). */
    public static final long EARLIEST_PAYMENT_S = -10;
    /** The latest a payment comes, relative to its order. */
    public static final long LATEST_PAYMENT_S = 20;

    private SampleOrders() {
    }

    /**
     * Generates orders and payments.
     *
     * @param ordersTopic   where orders go
     * @param paymentsTopic where payments go
     * @param orders        how many orders
     * @param start         the first order's timestamp (ms since the epoch)
     * @param seed          random seed: the same seed gives the same records
     * @return the records, sorted by timestamp
     */
    public static List<ProducerRecord<String, String>> generate(String ordersTopic, String paymentsTopic, int orders,
                                                                long start, long seed) {
        Random random = new Random(seed);
        List<ProducerRecord<String, String>> records = new ArrayList<>(orders * 2);
        for (int i = 0; i < orders; i++) {
            String id = String.format("order-%06d", i);
            long ts = start + i * ORDER_SPACING_MS;
            long amount = 100 + random.nextInt(100_000);
            double kind = random.nextDouble();
            boolean invalid = kind < 0.08;
            boolean unpaid = !invalid && kind < 0.18;
            String value = !invalid ? Long.toString(amount)
                    : switch (random.nextInt(3)) {
                        case 0 -> Long.toString(-amount);
                        case 1 -> "0";
                        default -> "n/a";
                    };
            records.add(new ProducerRecord<>(ordersTopic, null, ts, id, value));
            if (!unpaid && (!invalid || random.nextBoolean())) {
                long delayMs = EARLIEST_PAYMENT_S * 1000
                               + (long) (random.nextDouble() * (LATEST_PAYMENT_S - EARLIEST_PAYMENT_S) * 1000);
                records.add(new ProducerRecord<>(paymentsTopic, null, Math.max(0, ts + delayMs), id,
                        Long.toString(amount)));
            }
        }
        records.sort(Comparator.comparingLong(ProducerRecord::timestamp)); // stable: ties keep their order
        return records;
    }

    /**
     * Heartbeats (records with a {@code null} value) for every partition of both topics, at a timestamp past every
     * window of the data before them, so every order still waiting gets its result.
     *
     * @param lastTimestamp the highest timestamp written before
     * @param window        the join window
     * @return one record per partition of each topic
     */
    public static List<ProducerRecord<String, String>> endOfData(String ordersTopic, String paymentsTopic,
                                                                 int partitions, long lastTimestamp, Duration window) {
        long ts = lastTimestamp + window.toMillis() + 1;
        List<ProducerRecord<String, String>> records = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
            records.add(new ProducerRecord<>(ordersTopic, p, ts, (String) null, (String) null));
            records.add(new ProducerRecord<>(paymentsTopic, p, ts, (String) null, (String) null));
        }
        return records;
    }
}
