package io.kflux.examples.spring;

import io.kflux.KafkaFluxConsumer;
import io.kflux.TopicPartition;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.OptionalLong;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Mono;

/** {@code GET /lag}: how far the consumer {@code orders} is behind, and how many orders the database holds. */
@RestController
public class LagController {

    /**
     * The answer of {@code GET /lag}.
     *
     * @param partitions records not emitted yet per partition ({@code topic-partition}), from the consumer's own
     *                   {@link KafkaFluxConsumer#currentLag} (no broker call); partitions with no figure yet are left out
     * @param total      their sum
     * @param stored     rows in the table {@code orders}
     */
    public record Lag(Map<String, Long> partitions, long total, long stored) {
    }

    private final KafkaFluxConsumer<String, String> orders;
    private final OrderStore store;

    /**
     * @param orders the starter's consumer {@code orders}
     * @param store  the orders table
     */
    public LagController(@Qualifier("ordersKafkaFluxConsumer") KafkaFluxConsumer<String, String> orders,
                         OrderStore store) {
        this.orders = orders;
        this.store = store;
    }

    /** @return the lag per assigned partition, its total, and the rows stored */
    @GetMapping("/lag")
    public Mono<Lag> lag() {
        Map<String, Long> partitions = new LinkedHashMap<>();
        orders.assignment().stream()
                .sorted(Comparator.comparing(TopicPartition::topic).thenComparingInt(TopicPartition::partition))
                .forEach(tp -> {
                    OptionalLong lag = orders.currentLag(tp);
                    lag.ifPresent(records -> partitions.put(tp.topic() + "-" + tp.partition(), records));
                });
        long total = partitions.values().stream().mapToLong(Long::longValue).sum();
        return store.count().map(stored -> new Lag(partitions, total, stored));
    }
}
