package io.kflux.compat;

import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.compat.ClassicGroupMemberCompatTest.Member;
import io.kflux.test.KafkaTest;
import io.kflux.test.broker.EmbeddedKafkaCluster;
import io.kflux.group.MemberState;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArraySet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The group coordinator's broker dies: the member finds the new coordinator and keeps its partitions. */
@KafkaTest(nodes = 3, isolated = true) // kills the coordinator
class CoordinatorFailoverTest {

    @Test
    void theMemberRediscoversTheCoordinatorWithoutGivingUpItsPartitions(EmbeddedKafkaCluster kafka) throws Exception {
        kafka.createTopic("failover", 3, 3);
        try (Member kflux = new Member(kafka.bootstrapServers(), "failover-group", null)) {
            Set<MemberState> seen = new CopyOnWriteArraySet<>();
            kflux.member.subscribe(List.of("failover"));
            kflux.member.start();
            await(Duration.ofSeconds(30), () -> kflux.member.state() == MemberState.STABLE
                    && kflux.member.assignment().size() == 3);
            int generation = kflux.member.generationId();
            int coordinator = coordinatorOf(kafka);
            List<String> eventsBefore = List.copyOf(kflux.events);

            Thread watcher = new Thread(() -> {
                while (!Thread.currentThread().isInterrupted()) {
                    seen.add(kflux.member.state());
                    try {
                        Thread.sleep(5);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            });
            watcher.start();
            kafka.kill(coordinator);
            try {
                await(Duration.ofSeconds(60), () -> seen.contains(MemberState.REDISCOVERING_COORDINATOR)
                        && kflux.member.state() == MemberState.STABLE && coordinatorOf(kafka) != coordinator);
                // heartbeats flow again through the new coordinator with the same generation
                Thread.sleep(2_000);
                assertThat(kflux.member.state()).isEqualTo(MemberState.STABLE);
                assertThat(kflux.member.generationId()).isEqualTo(generation);
                assertThat(kflux.member.assignment()).hasSize(3);
                assertThat(kflux.events).isEqualTo(eventsBefore); // nothing revoked or lost
                assertThat(kflux.fatal).isEmpty();
            } finally {
                watcher.interrupt();
                kafka.start(coordinator);
            }
        }
    }

    private static int coordinatorOf(EmbeddedKafkaCluster kafka) {
        try {
            return kafka.admin().describeConsumerGroups(List.of("failover-group")).all().get(10, TimeUnit.SECONDS)
                    .get("failover-group").coordinator().id();
        } catch (Exception e) {
            return -1;
        }
    }

    private static void await(Duration timeout, java.util.function.BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out");
            }
            Thread.sleep(50);
        }
    }
}
