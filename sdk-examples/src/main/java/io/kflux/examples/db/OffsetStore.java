package io.kflux.examples.db;

import io.kflux.ConsumerRecord;
import io.kflux.TopicPartition;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Function;
import reactor.core.publisher.Mono;

/**
 * Results and consumer positions in one relational database (embedded H2 or PostgreSQL, plain JDBC).
 *
 * <ul>
 *   <li>{@code kflux_results(topic, part, record_offset, record_key, result)}: one row per processed record.
 *       It has no primary key on purpose, so that a duplicate would show up as a second row instead of being
 *       hidden by a failed insert.</li>
 *   <li>{@code kflux_positions(topic, part, next_offset)}: per partition, the next offset to read; every
 *       record below it has its result row.</li>
 * </ul>
 *
 * <p>{@link #store} writes the result rows of a batch and the new positions in <b>one transaction</b>, so either
 * both are there or neither is: that is what makes the processing exactly-once. Inside the transaction the
 * partition's position is read with {@code SELECT ... FOR UPDATE} and records below it are dropped: a consumer
 * that was killed while its transaction was in flight, or a partition that was read twice around a rebalance,
 * cannot write a record a second time.
 *
 * <p>All database work runs on one thread owned by the store (JDBC blocks; it must never run on a Reactor
 * thread). A cancelled {@code Mono} does not interrupt that thread, so a consumer killed mid-transaction leaves
 * the transaction to commit or roll back on its own, never half-written.
 */
public final class OffsetStore implements AutoCloseable {

    private static final String CREATE_RESULTS = "CREATE TABLE IF NOT EXISTS kflux_results ("
            + "topic VARCHAR(249) NOT NULL, part INT NOT NULL, record_offset BIGINT NOT NULL, "
            + "record_key VARCHAR(1000), result VARCHAR(10000))";
    private static final String CREATE_POSITIONS = "CREATE TABLE IF NOT EXISTS kflux_positions ("
            + "topic VARCHAR(249) NOT NULL, part INT NOT NULL, next_offset BIGINT NOT NULL, "
            + "PRIMARY KEY (topic, part))";

    private final Connection connection;
    private final ExecutorService thread;

    private OffsetStore(Connection connection) {
        this.connection = connection;
        this.thread = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "offset-store");
            t.setDaemon(true);
            return t;
        });
    }

    /**
     * Connects and creates the two tables if they do not exist.
     *
     * @param jdbcUrl  e.g. {@code jdbc:h2:file:/tmp/kflux-offsets} or {@code jdbc:postgresql://host/db}
     * @param user     database user, may be null
     * @param password its password, may be null
     * @throws IllegalStateException when the database cannot be reached
     */
    public static OffsetStore open(String jdbcUrl, String user, String password) {
        try {
            Connection c = DriverManager.getConnection(jdbcUrl, user, password);
            c.setAutoCommit(false);
            c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
            try (Statement s = c.createStatement()) {
                s.execute(CREATE_RESULTS);
                s.execute(CREATE_POSITIONS);
            }
            c.commit();
            return new OffsetStore(c);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot open the database at " + jdbcUrl + ": " + e.getMessage(), e);
        }
    }

    /**
     * The stored positions of {@code partitions}; partitions never written are absent.
     *
     * @return the next offset to read per partition
     */
    public Mono<Map<TopicPartition, Long>> positions(Collection<TopicPartition> partitions) {
        List<TopicPartition> wanted = List.copyOf(partitions);
        return inTransaction(c -> {
            Map<TopicPartition, Long> out = new HashMap<>();
            try (PreparedStatement ps = c.prepareStatement(
                    "SELECT next_offset FROM kflux_positions WHERE topic = ? AND part = ?")) {
                for (TopicPartition tp : wanted) {
                    ps.setString(1, tp.topic());
                    ps.setInt(2, tp.partition());
                    try (ResultSet rs = ps.executeQuery()) {
                        if (rs.next()) {
                            out.put(tp, rs.getLong(1));
                        }
                    }
                }
            }
            return out;
        });
    }

    /**
     * Stores the results of {@code records} and the new positions of their partitions in one transaction.
     * Records at or after a partition's position are written; records below it are already stored and skipped.
     *
     * @param records records in offset order per partition (as {@code receive()} emits them)
     * @param result  the processing: what to store for a record
     * @return how many records were written (the rest were duplicates and skipped)
     */
    public <K, V> Mono<Integer> store(List<ConsumerRecord<K, V>> records, Function<ConsumerRecord<K, V>, String> result) {
        Map<TopicPartition, List<ConsumerRecord<K, V>>> byPartition = new LinkedHashMap<>();
        for (ConsumerRecord<K, V> r : records) {
            byPartition.computeIfAbsent(r.topicPartition(), tp -> new ArrayList<>()).add(r);
        }
        return inTransaction(c -> {
            int written = 0;
            try (PreparedStatement lock = c.prepareStatement(
                         "SELECT next_offset FROM kflux_positions WHERE topic = ? AND part = ? FOR UPDATE");
                 PreparedStatement insert = c.prepareStatement("INSERT INTO kflux_results "
                         + "(topic, part, record_offset, record_key, result) VALUES (?, ?, ?, ?, ?)");
                 PreparedStatement update = c.prepareStatement(
                         "UPDATE kflux_positions SET next_offset = ? WHERE topic = ? AND part = ?");
                 PreparedStatement create = c.prepareStatement(
                         "INSERT INTO kflux_positions (topic, part, next_offset) VALUES (?, ?, ?)")) {
                for (Map.Entry<TopicPartition, List<ConsumerRecord<K, V>>> e : byPartition.entrySet()) {
                    TopicPartition tp = e.getKey();
                    lock.setString(1, tp.topic());
                    lock.setInt(2, tp.partition());
                    long position = -1;
                    try (ResultSet rs = lock.executeQuery()) {
                        if (rs.next()) {
                            position = rs.getLong(1);
                        }
                    }
                    long next = position;
                    for (ConsumerRecord<K, V> r : e.getValue()) {
                        if (r.offset() < position) {
                            continue; // stored by an earlier transaction: writing it again would duplicate it
                        }
                        insert.setString(1, tp.topic());
                        insert.setInt(2, tp.partition());
                        insert.setLong(3, r.offset());
                        insert.setString(4, r.key() == null ? null : r.key().toString());
                        insert.setString(5, result.apply(r));
                        insert.addBatch();
                        written++;
                        next = Math.max(next, r.offset() + 1);
                    }
                    if (next == position) {
                        continue;
                    }
                    PreparedStatement positionWrite = position < 0 ? create : update;
                    if (position < 0) {
                        // A concurrent writer creating the same row makes this fail on the primary key: the whole
                        // transaction rolls back, nothing is written twice.
                        create.setString(1, tp.topic());
                        create.setInt(2, tp.partition());
                        create.setLong(3, next);
                    } else {
                        update.setLong(1, next);
                        update.setString(2, tp.topic());
                        update.setInt(3, tp.partition());
                    }
                    positionWrite.executeUpdate();
                }
                insert.executeBatch();
            }
            return written;
        });
    }

    /**
     * Counts per check: total result rows, and rows whose (topic, partition, offset) occurs more than once.
     *
     * @return {@code [rows, duplicate rows]}
     */
    public Mono<long[]> counts() {
        return inTransaction(c -> {
            try (Statement s = c.createStatement();
                 ResultSet total = s.executeQuery("SELECT COUNT(*) FROM kflux_results")) {
                total.next();
                long rows = total.getLong(1);
                try (ResultSet dup = s.executeQuery("SELECT COALESCE(SUM(n - 1), 0) FROM (SELECT COUNT(*) AS n "
                        + "FROM kflux_results GROUP BY topic, part, record_offset) AS g")) {
                    dup.next();
                    return new long[] {rows, dup.getLong(1)};
                }
            }
        });
    }

    /** One transaction on the store's thread; any failure rolls it back and fails the Mono. */
    private <T> Mono<T> inTransaction(SqlWork<T> work) {
        return Mono.defer(() -> Mono.fromFuture(CompletableFuture.supplyAsync(() -> {
            try {
                T value = work.run(connection);
                connection.commit();
                return value;
            } catch (SQLException | RuntimeException e) {
                try {
                    connection.rollback();
                } catch (SQLException rollback) {
                    e.addSuppressed(rollback);
                }
                throw new IllegalStateException("database transaction failed: " + e.getMessage(), e);
            }
        }, thread), true));
    }

    /** Waits for the transaction under way, then closes the connection. */
    @Override
    public void close() {
        thread.shutdown();
        try {
            if (!thread.awaitTermination(30, java.util.concurrent.TimeUnit.SECONDS)) {
                thread.shutdownNow();
            }
            connection.close();
        } catch (SQLException e) {
            throw new IllegalStateException("closing the database connection failed", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @FunctionalInterface
    private interface SqlWork<T> {
        T run(Connection connection) throws SQLException;
    }
}
