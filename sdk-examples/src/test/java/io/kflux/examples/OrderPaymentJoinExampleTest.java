package io.kflux.examples;

import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.KafkaFluxConsumer;
import io.kflux.TopicPartition;
import io.kflux.examples.join.SampleOrders;
import io.kflux.test.KafkaTest;
import io.kflux.test.KafkaTestCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;

/**
 * The {@link OrderPaymentJoin} example tested with the kit, as a user would test a pipeline: write orders and
 * payments, run the join, and check that every order got one result and that the group committed everything.
 */
@KafkaTest(topics = {"kit-orders-join:2", "kit-payments-join:2"})
class OrderPaymentJoinExampleTest {
    private static final int ORDERS = 200;

    @Test
    void everyOrderGetsAResultAndEverythingIsCommitted(KafkaTestCluster kafka) throws Exception {
        String orders = "kit-orders-join";
        String payments = "kit-payments-join";
        long start = System.currentTimeMillis() - Duration.ofMinutes(5).toMillis();
        List<ProducerRecord<String, String>> records = new ArrayList<>(
                SampleOrders.generate(orders, payments, ORDERS, start, 42));
        long last = records.get(records.size() - 1).timestamp();
        records.addAll(SampleOrders.endOfData(orders, payments, 2, last, OrderPaymentJoin.DEFAULT_WINDOW));
        kafka.produce(records);

        KafkaFluxConsumer<String, String> consumer = KafkaFluxConsumer.create(
                OrderPaymentJoin.options(kafka.bootstrapServers(), "kit-join", orders, payments)
                        .withProperty("auto.commit.interval.ms", 200));
        Set<String> resultsFor = ConcurrentHashMap.newKeySet();
        Disposable running = OrderPaymentJoin.pipeline(consumer, orders, payments, OrderPaymentJoin.DEFAULT_WINDOW,
                r -> Mono.fromRunnable(() -> resultsFor.add(r.orderId()))).subscribe();
        try {
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (resultsFor.size() < ORDERS && System.nanoTime() < deadline) {
                Thread.sleep(100);
            }
            assertThat(resultsFor).as("orders with a result").hasSize(ORDERS);
            // everything but the end-of-data heartbeats (never acknowledged: they only move time on) is committed
            Map<TopicPartition, Long> ends = kafka.endOffsets(List.of(new TopicPartition(orders, 0),
                    new TopicPartition(orders, 1)));
            for (Map.Entry<TopicPartition, Long> end : ends.entrySet()) {
                kafka.awaitCommitted("kit-join", end.getKey(), end.getValue() - 1, Duration.ofSeconds(30));
            }
        } finally {
            consumer.close().block(Duration.ofSeconds(30));
            running.dispose();
        }
    }
}
