package io.kflux.compat.support;

import io.kflux.examples.broker.SampleData;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * Writes {@code <prefix><i>} values round-robin over a topic's partitions at a steady rate on a thread of its own,
 * with the official producer ({@code acks=all}, idempotent); {@link #stop()} returns what the broker acknowledged.
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
        producer = SampleData.producer(bootstrapServers);
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
