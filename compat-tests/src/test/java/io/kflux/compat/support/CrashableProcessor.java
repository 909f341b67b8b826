package io.kflux.compat.support;

import io.kflux.ConsumerOptions;
import io.kflux.Deserializers;
import io.kflux.KafkaFluxConsumer;
import io.kflux.Ordering;
import io.kflux.ProcessingOptions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import reactor.core.publisher.Mono;

/**
 * A kflux group member running {@code process()} in its own JVM, for a test to kill (SIGKILL): no close, no final
 * commit. UNORDERED, 16 in flight, auto commit every 200 ms; the handler takes 2 to 20 ms, and never completes for
 * offset 5 of a partition, so records complete out of order above a committed offset that stays at 5. Prints
 * {@code PROCESSED <partition> <offset>} for each record completed (acknowledged). Fork it with
 * {@link CrashableMember#fork}.
 */
public final class CrashableProcessor {

    private CrashableProcessor() {
    }

    /** Arguments: bootstrap servers, topic, group id, group protocol ({@code classic} or {@code consumer}). */
    public static void main(String[] args) throws InterruptedException {
        Map<String, Object> props = GroupKit.protocolProps(args[3], args[0], args[2], "range",
                "enable.auto.commit", true, "auto.commit.interval.ms", 200);
        KafkaFluxConsumer<String, String> consumer = KafkaFluxConsumer.create(ConsumerOptions.create(props,
                Deserializers.string(), Deserializers.string()).subscription(List.of(args[1])));
        CountDownLatch done = new CountDownLatch(1);
        consumer.process(ProcessingOptions.<String, String>ordering(Ordering.UNORDERED).maxInFlight(16),
                        r -> r.offset() == 5 ? Mono.never()
                                : Mono.delay(Duration.ofMillis(ThreadLocalRandom.current().nextLong(2, 21))))
                .subscribe(p -> System.out.println("PROCESSED " + p.record().partition() + " " + p.record().offset()),
                        e -> {
                            System.out.println("FAILED " + e);
                            done.countDown();
                        }, done::countDown);
        done.await();
    }
}
