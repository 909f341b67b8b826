package io.kflux.compat.support;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.Properties;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Writes {@code <prefix><i>} values round-robin over a topic's partitions at a steady rate on a thread of its own,
 * with the official producer; {@link #stop()} returns what the broker acknowledged.
 *
 * <p>{@code acks=all} with retries but <b>not</b> idempotent: an idempotent producer whose first batch to a
 * just-created partition hits NOT_LEADER_OR_FOLLOWER can get stuck retrying OUT_OF_ORDER_SEQUENCE_NUMBER until
 * {@code delivery.timeout.ms} (seen with Kafka 4.1.1), which stalls the test for two minutes. A retried send may
 * be written twice; the tests compare sets of values, so duplicates do not matter.
 */
public final class ContinuousProducer implements AutoCloseable {
    private final KafkaProducer<String, String> producer;
    private final Thread thread;
    private final Set<String> acknowledged = ConcurrentHashMap.newKeySet();
    private final AtomicInteger failed = new AtomicInteger();
    private final AtomicReference<Exception> firstFailure = new AtomicReference<>();
    private volatile boolean running = true;
    private volatile int sent;

    /**
     * @param perSecond records per second, all partitions together
     */
    public ContinuousProducer(String bootstrapServers, String topic, int partitions, int perSecond, String prefix) {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "false");
        props.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, "1"); // retries keep the order
        props.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        props.put(ProducerConfig.CLIENT_ID_CONFIG, "continuous-producer");
        producer = new KafkaProducer<>(props, new StringSerializer(), new StringSerializer());
        long pauseNanos = 1_000_000_000L / perSecond;
        thread = new Thread(() -> {
            long next = System.nanoTime();
            for (int i = 0; running; i++) {
                String value = prefix + i;
                producer.send(new ProducerRecord<>(topic, i % partitions, "key-" + i, value), (md, e) -> {
                    if (e == null) {
                        acknowledged.add(value);
                    } else {
                        failed.incrementAndGet();
                        firstFailure.compareAndSet(null, e);
                    }
                });
                sent = i + 1;
                next += pauseNanos;
                long sleep = next - System.nanoTime();
                if (sleep > 0) {
                    try {
                        Thread.sleep(sleep / 1_000_000, (int) (sleep % 1_000_000));
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }
        }, "continuous-producer-" + topic);
        thread.setDaemon(true);
        thread.start();
    }

    /** Stops sending, waits for every send to be answered and returns the acknowledged values. */
    public Set<String> stop() {
        running = false;
        try {
            thread.join(Duration.ofSeconds(70).toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        producer.flush();
        return Set.copyOf(acknowledged);
    }

    /** Values acknowledged so far. */
    public int acknowledgedCount() {
        return acknowledged.size();
    }

    public int sent() {
        return sent;
    }

    /** Sends the broker refused (not retried successfully); with acks=all these were not written. */
    public int failed() {
        return failed.get();
    }

    public Exception firstFailure() {
        return firstFailure.get();
    }

    @Override
    public void close() {
        running = false;
        producer.close(Duration.ofSeconds(30));
    }
}
