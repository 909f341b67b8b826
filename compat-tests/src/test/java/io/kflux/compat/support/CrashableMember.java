package io.kflux.compat.support;

import io.kflux.ConsumerOptions;
import io.kflux.Deserializers;
import io.kflux.KafkaFluxConsumer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import reactor.core.publisher.Mono;

/**
 * A kflux group member in its own JVM, so a test can kill it (SIGKILL) the way a crash would: no
 * close, no LeaveGroup, no commit on the way out. It processes a record, prints
 * {@code PROCESSED <partition> <offset>}, acknowledges it, and every {@code commitEvery} records
 * commits and prints {@code COMMITTED}. {@link #start} forks it with the test's classpath.
 */
public final class CrashableMember {

    private CrashableMember() {
    }

    /** Arguments: bootstrap servers, topic, group id, commit every n records, ms per record. */
    public static void main(String[] args) throws InterruptedException {
        String bootstrap = args[0];
        String topic = args[1];
        String group = args[2];
        int commitEvery = Integer.parseInt(args[3]);
        long msPerRecord = Long.parseLong(args[4]);
        KafkaFluxConsumer<String, String> consumer = KafkaFluxConsumer.create(ConsumerOptions.create(
                        Kflux.props(bootstrap, "group.id", group, "enable.auto.commit", "false",
                                "session.timeout.ms", "6000", "heartbeat.interval.ms", "1000"),
                        Deserializers.string(), Deserializers.string())
                .subscription(List.of(topic)));
        AtomicLong processed = new AtomicLong();
        CountDownLatch done = new CountDownLatch(1);
        consumer.receive()
                .concatMap(r -> Mono.delay(Duration.ofMillis(msPerRecord)).then(Mono.defer(() -> {
                    System.out.println("PROCESSED " + r.partition() + " " + r.offset());
                    r.acknowledge();
                    if (processed.incrementAndGet() % commitEvery != 0) {
                        return Mono.empty();
                    }
                    return consumer.commit().doOnSuccess(v -> System.out.println("COMMITTED"))
                            .onErrorResume(e -> {
                                System.out.println("COMMIT-FAILED " + e);
                                return Mono.empty();
                            });
                })), 1)
                .subscribe(v -> { }, e -> {
                    System.out.println("FAILED " + e);
                    done.countDown();
                }, done::countDown);
        done.await();
    }

    /**
     * Forks a member with this JVM's classpath; its standard output is the returned process's input stream.
     *
     * @param workDir where the classpath argument file and the member's stderr go
     */
    public static Process start(Path workDir, String bootstrap, String topic, String group, int commitEvery,
                                long msPerRecord) {
        return fork(workDir, CrashableMember.class, bootstrap, topic, group, Integer.toString(commitEvery),
                Long.toString(msPerRecord));
    }

    /**
     * Forks {@code main}'s {@code main(args)} in a JVM with this JVM's classpath; its standard output is the returned
     * process's input stream.
     *
     * @param workDir where the classpath argument file and the JVM's stderr go
     */
    public static Process fork(Path workDir, Class<?> main, String... args) {
        try {
            Path argFile = workDir.resolve("member-classpath.args");
            String cp = System.getProperty("java.class.path");
            Files.writeString(argFile, "-cp\n\"" + cp.replace("\\", "\\\\").replace("\"", "\\\"") + "\"\n",
                    StandardCharsets.UTF_8);
            List<String> command = new ArrayList<>(List.of(
                    Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-Xmx256m", "-XX:TieredStopAtLevel=1", "@" + argFile, main.getName()));
            command.addAll(List.of(args));
            ProcessBuilder pb = new ProcessBuilder(command);
            pb.redirectError(workDir.resolve("member-stderr.log").toFile());
            return pb.start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start a member JVM", e);
        }
    }
}
