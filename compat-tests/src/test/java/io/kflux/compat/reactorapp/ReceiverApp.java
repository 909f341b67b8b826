package io.kflux.compat.reactorapp;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.StringDeserializer;
import reactor.core.publisher.Mono;
import io.kflux.reactor.kafka.receiver.KafkaReceiver;
import io.kflux.reactor.kafka.receiver.ReceiverOptions;

/**
 * A small reactor-kafka receiver application, kept twice with only the package and the receiver imports differing:
 * {@code benchmarks} runs it on reactor-kafka 1.3.25, {@code compat-tests} on kflux-reactor-kafka-compat
 * ({@code ReactorKafkaSideBySideTest} checks that the two sources stay the same and compares what they consume and
 * commit). It reads one single-partition topic three times, in three groups named after its third argument:
 * <ol>
 *   <li>{@code -ack}: {@code receive()} from offset 20 (an assignment listener seeks there), acknowledging each
 *       record, committing every 50 acknowledgements, {@code commit()} at offset 119, stopping after offset 199;</li>
 *   <li>{@code -amo}: {@code receiveAtmostOnce()} with a commit-ahead of 7, the whole topic (its last commit, made
 *       ahead to 304, is taken back to 300 when the flux ends);</li>
 *   <li>{@code -auto}: {@code receiveAutoAck()} until 300 records were seen, whole batches at a time;</li>
 *   <li>{@code -batch}: {@code receiveBatch()} until 300 records were seen, each record acknowledged, printing
 *       whether its headers equal the ones sent (one header {@code h} = {@code v-<offset>}) and the last one;</li>
 *   <li>{@code -consumer}: {@code receive()} of 10 records, the last one committed, then {@code doOnConsumer} to
 *       pause, resume and read the assignment, committed and end offsets;</li>
 *   <li>{@code -manual}: a manual assignment of partition 0, 10 records, with a revoke listener that prints when
 *       the flux ends.</li>
 * </ol>
 * It prints {@code RECORD <phase> <partition>@<offset> <value>} per record and waits, at the end, until its groups
 * have no members left (their consumers closed, after committing).
 *
 * <p>Arguments: {@code bootstrapServers topic groupPrefix}.
 */
public final class ReceiverApp {

    private ReceiverApp() {
    }

    private static Map<String, Object> props(String bootstrapServers, String group) {
        Map<String, Object> props = new HashMap<>();
        props.put("bootstrap.servers", bootstrapServers);
        props.put("group.id", group);
        props.put("auto.offset.reset", "earliest");
        props.put("key.deserializer", StringDeserializer.class);
        props.put("value.deserializer", StringDeserializer.class);
        return props;
    }

    private static void print(String phase, ConsumerRecord<String, String> r) {
        System.out.println("RECORD " + phase + " " + r.partition() + "@" + r.offset() + " " + r.value());
    }

    public static void main(String[] args) throws Exception {
        String bootstrapServers = args[0];
        String topic = args[1];
        String prefix = args[2];

        ReceiverOptions<String, String> ack = ReceiverOptions.<String, String>create(props(bootstrapServers, prefix + "-ack"))
                .commitInterval(Duration.ZERO)
                .commitBatchSize(50)
                .addAssignListener(partitions -> partitions.forEach(p -> p.seek(20)))
                .subscription(List.of(topic));
        KafkaReceiver.create(ack).receive()
                .concatMap(r -> {
                    print("ack", r);
                    if (r.offset() == 119) {
                        return r.receiverOffset().commit().thenReturn(r);
                    }
                    r.receiverOffset().acknowledge();
                    return Mono.just(r);
                })
                .takeUntil(r -> r.offset() == 199)
                .blockLast(Duration.ofSeconds(60));

        ReceiverOptions<String, String> amo = ReceiverOptions.<String, String>create(props(bootstrapServers, prefix + "-amo"))
                .atmostOnceCommitAheadSize(7)
                .subscription(List.of(topic));
        KafkaReceiver.create(amo).receiveAtmostOnce()
                .doOnNext(r -> print("amo", r))
                .take(300)
                .blockLast(Duration.ofSeconds(60));

        ReceiverOptions<String, String> auto = ReceiverOptions.<String, String>create(props(bootstrapServers, prefix + "-auto"))
                .subscription(List.of(topic));
        AtomicInteger seen = new AtomicInteger();
        KafkaReceiver.create(auto).receiveAutoAck()
                .concatMap(batch -> batch.doOnNext(r -> print("auto", r)).doOnNext(r -> seen.incrementAndGet()).count())
                .takeUntil(n -> seen.get() >= 300)
                .blockLast(Duration.ofSeconds(60));

        ReceiverOptions<String, String> batch = ReceiverOptions.<String, String>create(props(bootstrapServers, prefix + "-batch"))
                .subscription(List.of(topic));
        AtomicInteger batched = new AtomicInteger();
        KafkaReceiver.create(batch).receiveBatch()
                .concatMap(records -> records.doOnNext(r -> {
                    RecordHeaders sent = new RecordHeaders(new Header[] {
                            new RecordHeader("h", ("v-" + r.offset()).getBytes(StandardCharsets.UTF_8))});
                    System.out.println("RECORD batch " + r.partition() + "@" + r.offset() + " " + r.value()
                                       + " headers-equal=" + r.headers().equals(sent) + " last="
                                       + r.headers().lastHeader("h"));
                    r.receiverOffset().acknowledge();
                    batched.incrementAndGet();
                }).count())
                .takeUntil(n -> batched.get() >= 300)
                .blockLast(Duration.ofSeconds(60));

        ReceiverOptions<String, String> viaConsumer = ReceiverOptions.<String, String>create(props(bootstrapServers, prefix + "-consumer"))
                .subscription(List.of(topic));
        KafkaReceiver<String, String> receiver = KafkaReceiver.create(viaConsumer);
        TopicPartition tp = new TopicPartition(topic, 0);
        receiver.receive()
                .concatMap(r -> {
                    if (r.offset() < 9) {
                        r.receiverOffset().acknowledge();
                        return Mono.just(r);
                    }
                    // reactor-kafka's doOnConsumer refuses commits: they go through the record's offset
                    return r.receiverOffset().commit().then(receiver.doOnConsumer(c -> {
                        c.pause(List.of(tp));
                        String paused = String.valueOf(c.paused());
                        c.resume(List.of(tp));
                        return "assignment=" + c.assignment() + " paused=" + paused + " resumed=" + c.paused()
                               + " committed=" + c.committed(Set.of(tp)).get(tp).offset() + " end="
                               + c.endOffsets(List.of(tp)).get(tp);
                    })).doOnNext(line -> System.out.println("RECORD consumer " + line)).thenReturn(r);
                })
                .take(10) // after the work on the 10th record: taking it ends the flux and closes the consumer
                .blockLast(Duration.ofSeconds(60));

        ReceiverOptions<String, String> manual = ReceiverOptions.<String, String>create(props(bootstrapServers, prefix + "-manual"))
                .addRevokeListener(partitions -> partitions.forEach(p -> System.out.println("RECORD manual revoked "
                                                                                            + p.topicPartition())))
                .assignment(List.of(tp));
        KafkaReceiver.create(manual).receive()
                .doOnNext(r -> print("manual", r))
                .take(10)
                .blockLast(Duration.ofSeconds(60));

        try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrapServers))) {
            List<String> groups = List.of(prefix + "-ack", prefix + "-amo", prefix + "-auto", prefix + "-batch",
                                          prefix + "-consumer");
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (admin.describeConsumerGroups(groups).all().get(30, TimeUnit.SECONDS).values().stream()
                    .anyMatch(g -> !g.members().isEmpty())) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("consumers still in their groups after 60 s");
                }
                Thread.sleep(100);
            }
        }
        System.out.println("DONE");
    }
}
