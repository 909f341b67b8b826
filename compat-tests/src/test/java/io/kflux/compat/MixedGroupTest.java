package io.kflux.compat;

import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.compat.support.GroupKit;
import io.kflux.compat.support.GroupKit.BackgroundProducer;
import io.kflux.compat.support.GroupKit.KfluxMember;
import io.kflux.compat.support.GroupKit.Member;
import io.kflux.compat.support.GroupKit.OfficialMember;
import io.kflux.test.KafkaTest;
import io.kflux.test.broker.EmbeddedKafkaCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * kflux members and official {@code KafkaConsumer}s (kafka-clients 4.1.1, {@code group.protocol=classic}) in one
 * group, with the same assignor on both sides. The first member to join leads the group (and computes every
 * assignment of the test, since it never leaves): kflux in one run, the official consumer in the other. Members join
 * and leave while records are produced; every record is consumed.
 */
@KafkaTest(nodes = 1)
class MixedGroupTest {
    private static final int PARTITIONS = 6;

    @ParameterizedTest(name = "{0}, kflux leads: {1}")
    @CsvSource({"range,true", "range,false", "roundrobin,true", "roundrobin,false",
            "cooperative-sticky,true", "cooperative-sticky,false"})
    void kfluxAndOfficialMembersShareAGroup(String assignor, boolean kfluxLeads, EmbeddedKafkaCluster kafka) {
        String id = assignor + (kfluxLeads ? "-kflux" : "-official");
        String topic = "mixed-" + id;
        String group = "mixed-group-" + id;
        kafka.createTopic(topic, PARTITIONS, 1);
        List<Member> all = new ArrayList<>();
        List<Member> active = new ArrayList<>();
        long t0 = System.nanoTime();
        try (BackgroundProducer producer = new BackgroundProducer(kafka.bootstrapServers(), topic, 1000)) {
            // leader first, then one of the other kind, another of the leader's kind, another of the other kind
            for (int i = 0; i < 4; i++) {
                boolean kflux = (i % 2 == 0) == kfluxLeads;
                Member m = kflux
                        ? new KfluxMember("kflux-" + i, GroupKit.consumer(GroupKit.props(kafka.bootstrapServers(),
                                group, assignor, "client.id", "kflux-" + i), topic, null)).start()
                        : new OfficialMember("official-" + i, kafka.bootstrapServers(), group, assignor, topic).start();
                all.add(m);
                active.add(m);
                awaitBalanced(id, topic, active);
            }
            // the second and third members leave (one of each kind); the leader stays
            for (int i : new int[] {1, 2}) {
                Member m = all.get(i);
                m.stop();
                active.remove(m);
                awaitBalanced(id, topic, active);
            }
            // Members join and leave gracefully, committing what they consumed before their partitions move: no
            // fault. Under the eager assignors nothing is consumed twice. Under cooperative-sticky the official
            // members hand partitions on with a few records consumed twice (10 and 12 in one run each way, measured,
            // each read by an official member); none is consumed twice by kflux members alone.
            Map<String, List<String>> twice = GroupKit.assertEveryRecordConsumed(id, producer.stop(), all)
                    .duplicates();
            if (assignor.equals("cooperative-sticky")) {
                assertThat(twice).as("records consumed twice where no official member read them")
                        .allSatisfy((value, readers) -> assertThat(readers).anyMatch(r -> r.startsWith("official-")));
            } else {
                assertThat(twice).as("records consumed more than once").isEmpty();
            }
            System.out.printf("[%s] done in %d ms%n", id, (System.nanoTime() - t0) / 1_000_000);
        } finally {
            active.forEach(Member::stop);
        }
    }

    private static void awaitBalanced(String id, String topic, List<Member> active) {
        GroupKit.awaitBalanced(id, topic, PARTITIONS, active, Duration.ofMillis(700));
    }
}
