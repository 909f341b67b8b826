package io.kflux.compat;

import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.KafkaFluxConsumer;
import io.kflux.TopicPartition;
import io.kflux.test.KafkaTest;
import io.kflux.compat.support.Kflux;
import io.kflux.compat.support.LogCapture;
import io.kflux.compat.support.RecordQueue;
import io.kflux.test.broker.EmbeddedKafkaCluster;
import io.kflux.test.broker.SampleData;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * An assigned partition whose only replica's broker goes down: a WARN says the partition has no leader, another
 * that connecting to that broker is refused (its address as metadata named it), and an INFO when it is back.
 */
@KafkaTest(nodes = 3, isolated = true) // stops a leader
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class LeaderlessPartitionLogTest {
    private static final Duration WAIT = Duration.ofSeconds(30);

    private static LogCapture.Line await(LogCapture log, Predicate<LogCapture.Line> match) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (System.nanoTime() < deadline) {
            for (LogCapture.Line l : log.lines()) {
                if (match.test(l)) {
                    return l;
                }
            }
            Thread.sleep(50);
        }
        throw new AssertionError("no matching log line in " + log.lines());
    }

    @Test
    void aPartitionWithoutLeaderAndItsUnreachableBrokerAreReported(EmbeddedKafkaCluster kafka) throws Exception {
        kafka.createTopic("orphan", 1, 1);
        SampleData.produce(kafka.bootstrapServers(), "orphan", 5);
        int leader = kafka.admin().describeTopics(List.of("orphan")).allTopicNames().get(30, TimeUnit.SECONDS)
                .get("orphan").partitions().get(0).leader().id();
        TopicPartition tp = new TopicPartition("orphan", 0);
        KafkaFluxConsumer<String, String> consumer = Kflux.strings(Kflux.props(kafka.bootstrapServers(),
                "client.id", "orphan-reader", "reconnect.backoff.max.ms", 200), List.of(tp));
        RecordQueue<String, String> q = RecordQueue.subscribe(consumer.receive(), Long.MAX_VALUE);
        try (LogCapture log = new LogCapture("io.kflux")) {
            q.take(5, WAIT);
            kafka.stop(leader);
            LogCapture.Line noLeader = await(log, l -> l.level().equals("WARN")
                    && l.message().startsWith(tp + " has had no leader"));
            assertThat(noLeader.context()).containsEntry("kflux.client.id", "orphan-reader");
            // (No assertion on a refused connection to the stopped broker here: whether kflux dials it again depends
            // on whether metadata still lists it; DiagnosticsLogTest covers the connection WARN with its reason.)

            kafka.start(leader);
            await(log, l -> l.level().equals("INFO") && l.message().startsWith(tp + " has a leader again"));
            SampleData.produce(kafka.bootstrapServers(), "orphan", 1);
            assertThat(q.take(1, WAIT)).hasSize(1);
        } finally {
            q.dispose();
            consumer.close().block(WAIT);
        }
    }
}
