package io.kflux.examples.spring;

import io.kflux.ConsumerRecord;
import org.springframework.r2dbc.core.DatabaseClient;
import org.springframework.stereotype.Component;
import reactor.core.publisher.Mono;

/**
 * The table {@code orders} ({@code schema.sql}) over R2DBC. A row is keyed by the record's partition and offset, so a
 * record delivered again (at least once: after a crash, before its offset was committed) overwrites its own row.
 *
 * <p>r2dbc-h2 runs H2 in this JVM: a statement executes on the thread that subscribes (here kflux's emitting thread)
 * and takes microseconds in memory. A networked driver (r2dbc-postgresql) does not block that thread at all.
 */
@Component
public class OrderStore {

    private final DatabaseClient database;

    /** @param database the application's R2DBC client */
    public OrderStore(DatabaseClient database) {
        this.database = database;
    }

    /**
     * Writes (or overwrites) the record's row.
     *
     * @param record an order record: key the order id, value its JSON
     * @return completes once the row is written; fails with Spring's {@code DataAccessException} if it is not
     */
    public Mono<Void> save(ConsumerRecord<String, String> record) {
        return database.sql("MERGE INTO orders (kafka_partition, kafka_offset, order_id, body) "
                        + "KEY (kafka_partition, kafka_offset) VALUES (:partition, :offset, :orderId, :body)")
                .bind("partition", record.partition())
                .bind("offset", record.offset())
                .bind("orderId", record.key())
                .bind("body", record.value())
                .then();
    }

    /** @return how many orders are stored */
    public Mono<Long> count() {
        return database.sql("SELECT COUNT(*) AS n FROM orders").map(row -> row.get("n", Long.class)).one();
    }
}
