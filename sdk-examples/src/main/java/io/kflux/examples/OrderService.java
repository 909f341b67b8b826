package io.kflux.examples;

import io.kflux.ConsumerOptions;
import io.kflux.ConsumerRecord;
import io.kflux.Deserializers;
import io.kflux.KafkaFluxConsumer;
import io.kflux.Ordering;
import io.kflux.ProcessedRecord.Outcome;
import io.kflux.ProcessingOptions;
import io.kflux.test.broker.EmbeddedKafkaCluster;
import io.kflux.test.broker.SampleData;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import reactor.core.publisher.Mono;

/**
 * An order service built on {@code KafkaFluxConsumer.process}: orders keyed by customer are handled concurrently,
 * one at a time per customer, by a slow payment dependency (simulated latency, occasional transient failures);
 * orders the dependency keeps refusing go to a dead-letter topic with the official producer.
 *
 * <p>No arguments: starts a Kafka broker (a forked JVM), writes {@value #ORDERS} orders for {@value #CUSTOMERS}
 * customers to an 8-partition topic, processes them, prints a summary, and stops the broker.
 */
public final class OrderService {
    private static final int ORDERS = 20_000;
    private static final int CUSTOMERS = 500;
    private static final String ORDERS_TOPIC = "orders";
    private static final String DEAD_LETTERS_TOPIC = "orders.dead-letters";

    private OrderService() {
    }

    public static void main(String[] args) {
        System.out.println("Starting a Kafka broker (a forked JVM)...");
        try (EmbeddedKafkaCluster kafka = EmbeddedKafkaCluster.startCluster(1)) {
            kafka.createTopic(ORDERS_TOPIC, 8, 1);
            kafka.createTopic(DEAD_LETTERS_TOPIC, 1, 1);
            List<ProducerRecord<String, String>> orders = new ArrayList<>(ORDERS);
            for (int i = 0; i < ORDERS; i++) {
                orders.add(new ProducerRecord<>(ORDERS_TOPIC, "customer-" + (i % CUSTOMERS), "order-" + i));
            }
            SampleData.produce(kafka.bootstrapServers(), orders);
            System.out.printf("Wrote %,d orders of %,d customers; processing them...%n", ORDERS, CUSTOMERS);
            try (KafkaProducer<String, String> producer = SampleData.producer(kafka.bootstrapServers())) {
                run(kafka.bootstrapServers(), new DeadLetters(producer));
            }
            System.out.println("Stopping the broker.");
        }
    }

    /** The heart of the example. */
    private static void run(String bootstrapServers, DeadLetters deadLetters) {
        KafkaFluxConsumer<String, String> consumer = KafkaFluxConsumer.create(ConsumerOptions.create(Map.of(
                        "bootstrap.servers", bootstrapServers,
                        "group.id", "order-service",
                        "auto.offset.reset", "earliest"), Deserializers.string(), Deserializers.string())
                .subscription(List.of(ORDERS_TOPIC)));
        PaymentService payments = new PaymentService();
        ProcessingOptions<String, String> processing = ProcessingOptions.<String, String>ordering(Ordering.KEY)
                .maxInFlight(200)                               // far beyond the 8 partitions
                .retry(3, Duration.ofMillis(20))                // transient failures: ~20, ~40, ~80 ms, jittered
                .onFailure(deadLetters::send);                  // still failing: to the dead-letter topic
        Map<Outcome, AtomicLong> outcomes = new EnumMap<>(Outcome.class);
        for (Outcome o : Outcome.values()) {
            outcomes.put(o, new AtomicLong());
        }
        AtomicLong retried = new AtomicLong();
        long start = System.nanoTime();
        consumer.process(processing, order -> payments.charge(order.key(), order.value()))
                .take(ORDERS)
                .doOnNext(done -> {
                    outcomes.get(done.outcome()).incrementAndGet();
                    retried.addAndGet(done.attempts() - 1);
                })
                .blockLast(Duration.ofMinutes(5));
        double seconds = (System.nanoTime() - start) / 1e9;
        consumer.close().block();
        System.out.printf("%,d orders in %.1f s (%,.0f orders/s; the dependency takes 2-10 ms per call):"
                        + " %,d paid, %,d dead-lettered to %s, %,d retries%n", ORDERS, seconds, ORDERS / seconds,
                outcomes.get(Outcome.PROCESSED).get(), outcomes.get(Outcome.FAILED_HANDLED).get(), DEAD_LETTERS_TOPIC,
                retried.get());
    }

    /**
     * A slow remote dependency: 2-10 ms per call without holding a thread, 3 % transient failures, and about one
     * order in a thousand it always refuses.
     */
    private static final class PaymentService {
        Mono<Void> charge(String customer, String order) {
            return Mono.delay(Duration.ofMillis(2 + ThreadLocalRandom.current().nextInt(9))).flatMap(x -> {
                if (order.hashCode() % 997 == 0) {
                    return Mono.error(new IllegalStateException("payment refused for " + customer + " " + order));
                }
                if (ThreadLocalRandom.current().nextInt(100) < 3) {
                    return Mono.error(new IllegalStateException("payment service busy"));
                }
                return Mono.empty();
            });
        }
    }

    /** Writes failed orders to the dead-letter topic, with the error in a header; completes when Kafka has it. */
    private record DeadLetters(KafkaProducer<String, String> producer) {
        Mono<Void> send(ConsumerRecord<String, String> order, Throwable error) {
            ProducerRecord<String, String> letter = new ProducerRecord<>(DEAD_LETTERS_TOPIC, order.key(), order.value());
            letter.headers().add("error", String.valueOf(error.getMessage()).getBytes(StandardCharsets.UTF_8));
            letter.headers().add("source", (order.topic() + "-" + order.partition() + "@" + order.offset())
                    .getBytes(StandardCharsets.UTF_8));
            return Mono.create(sink -> producer.send(letter, (metadata, e) -> {
                if (e == null) {
                    sink.success();
                } else {
                    sink.error(e);
                }
            }));
        }
    }
}
