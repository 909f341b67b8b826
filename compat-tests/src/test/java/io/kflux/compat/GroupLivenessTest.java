package io.kflux.compat;

import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.TopicPartition;
import io.kflux.compat.support.GroupKit;
import io.kflux.compat.support.ContinuousProducer;
import io.kflux.compat.support.GroupMember;
import io.kflux.compat.support.GroupMember.Blocking;
import io.kflux.test.KafkaTest;
import io.kflux.compat.support.Kflux;
import io.kflux.compat.support.LogCapture;
import io.kflux.test.broker.EmbeddedKafkaCluster;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.common.GroupState;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Group membership when downstream stops asking for records. Heartbeats are independent of demand, so a stall
 * shorter than {@code max.poll.interval.ms} costs nothing, however many session timeouts it lasts; a stall past
 * it makes the member leave (its partitions go to the others) and rejoin once demand returns.
 */
@KafkaTest(nodes = 1, brokerProperties = {"group.consumer.heartbeat.interval.ms=500",
        "group.consumer.min.heartbeat.interval.ms=500", "group.consumer.session.timeout.ms=10000",
        "group.consumer.min.session.timeout.ms=10000"}, isolated = true) // timing-sensitive group test; not yet run sharing a cluster
class GroupLivenessTest {

    private static final int PARTITIONS = 4;
    private static final int SESSION_TIMEOUT_MS = 6_000;

    @Test
    void aStallOfThreeSessionTimeoutsUnderMaxPollIntervalKeepsTheMemberInTheGroup(EmbeddedKafkaCluster kafka)
            throws Exception {
        String topic = "liveness-stall";
        String group = "liveness-stall-group";
        kafka.createTopic(topic, PARTITIONS, 1);
        Map<String, Object> props = props(kafka, group, 60_000);
        try (LogCapture logs = new LogCapture("io.kflux");
             ContinuousProducer producer = new ContinuousProducer(kafka.bootstrapServers(), topic, PARTITIONS, 200, "v");
             GroupMember slow = new GroupMember("slow", props, topic, Blocking.STUCK_CONCAT_MAP).start()) {
            await(Duration.ofSeconds(30), "the first member to own every partition",
                    () -> slow.assignment().size() == PARTITIONS && slow.emitted() > 0);
            try (GroupMember other = new GroupMember("other", props, topic, Blocking.STOP_REQUESTING).start()) {
                await(Duration.ofSeconds(30), "the partitions to be shared", () -> slow.assignment().size() == 2
                        && other.assignment().size() == 2 && other.emitted() > 0);
                Set<TopicPartition> slowAssignment = slow.assignment();
                Set<TopicPartition> otherAssignment = other.assignment();
                int generation = slow.generation();
                assertThat(other.generation()).isEqualTo(generation);
                int slowEvents = slow.events().size();
                int otherEvents = other.events().size();

                slow.block();
                await(Duration.ofSeconds(10), "the slow member's pipeline to stall", () -> slow.blockedSinceNanos() != 0);
                long blockedAt = slow.blockedSinceNanos();
                // the concatMap's prefetch fills up, then kflux emits nothing more: its demand is used up
                Thread.sleep(2_000);
                long emittedWhileStalled = slow.emitted();
                while (System.nanoTime() - blockedAt < TimeUnit.MILLISECONDS.toNanos(3L * SESSION_TIMEOUT_MS)) {
                    Thread.sleep(1_000);
                    assertThat(slow.assignment()).as("the slow member's assignment").isEqualTo(slowAssignment);
                    assertThat(other.assignment()).as("the other member's assignment").isEqualTo(otherAssignment);
                }
                assertThat(slow.emitted()).as("records emitted into a stalled pipeline").isEqualTo(emittedWhileStalled);
                assertThat(other.emitted()).as("the other member keeps consuming").isGreaterThan(0);
                ConsumerGroupDescription description = describe(kafka, group);
                assertThat(description.groupState()).isEqualTo(GroupState.STABLE);
                Set<String> describedMembers = description.members().stream().map(MemberDescription::consumerId)
                        .collect(Collectors.toSet());
                assertThat(describedMembers).containsExactlyInAnyOrder(slow.memberId(), other.memberId());
                MemberDescription slowDescribed = description.members().stream()
                        .filter(m -> m.consumerId().equals(slow.memberId())).findFirst().orElseThrow();
                assertThat(slowDescribed.assignment().topicPartitions()).extracting(tp -> tp.partition())
                        .containsExactlyInAnyOrderElementsOf(slowAssignment.stream().map(TopicPartition::partition)
                                .toList());
                // no rebalance happened: no callback on either side, same generation
                assertThat(slow.events()).hasSize(slowEvents);
                assertThat(other.events()).hasSize(otherEvents);
                assertThat(slow.generation()).isEqualTo(generation);
                // nor did either member lose its coordinator, rejoin or hit max.poll.interval.ms meanwhile
                assertThat(logs.matching(m -> m.startsWith("[group " + group + "]")).stream()
                        .filter(l -> l.nanos() > blockedAt).map(LogCapture.Line::message))
                        .noneMatch(m -> m.contains("rejoining") || m.contains("resetting generation")
                                || m.contains("unavailable") || m.contains("poll timeout"));

                slow.unblock();
                long before = slow.emitted();
                await(Duration.ofSeconds(10), "records to flow again", () -> slow.emitted() > before + 100);
                // OffsetCommit carries the member's generation: accepted only if the group is still in it
                slow.consumer().commit().block(Duration.ofSeconds(10));

                Set<String> produced = producer.stop();
                await(Duration.ofSeconds(30), "every produced record to be processed",
                        () -> union(slow, other).containsAll(produced));
                assertThat(slow.events()).hasSize(slowEvents);
                assertThat(other.events()).hasSize(otherEvents);
                assertThat(slow.error()).isNull();
                assertThat(other.error()).isNull();
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"range", "cooperative-sticky", GroupKit.CONSUMER_PROTOCOL})
    void aStallPastMaxPollIntervalHandsThePartitionsOverUntilDemandReturns(String assignor, EmbeddedKafkaCluster kafka)
            throws Exception {
        String topic = "liveness-expiry-" + assignor;
        String group = topic + "-group";
        kafka.createTopic(topic, PARTITIONS, 1);
        int maxPollIntervalMs = 8_000;
        Map<String, Object> props = GroupKit.forVariant(assignor, props(kafka, group, maxPollIntervalMs));
        try (ContinuousProducer producer = new ContinuousProducer(kafka.bootstrapServers(), topic, PARTITIONS, 200, "v");
             GroupMember slow = new GroupMember("slow", props, topic, Blocking.STOP_REQUESTING).start();
             GroupMember other = new GroupMember("other", props, topic, Blocking.STOP_REQUESTING).start()) {
            await(Duration.ofSeconds(30), "the partitions to be shared", () -> slow.assignment().size() == 2
                    && other.assignment().size() == 2 && slow.emitted() > 0 && other.emitted() > 0);
            Set<TopicPartition> slowAssignment = slow.assignment();
            String slowMemberId = slow.memberId();
            int generation = other.generation();

            slow.block();
            await(Duration.ofSeconds(10), "the slow member's demand to run out", () -> slow.blockedSinceNanos() != 0);
            long blockedAt = slow.blockedSinceNanos();
            // the member is still in the group shortly before max.poll.interval.ms
            Thread.sleep(maxPollIntervalMs - 3_000);
            assertThat(slow.assignment()).isEqualTo(slowAssignment);

            await(Duration.ofSeconds(30), "the other member to take over every partition",
                    () -> other.assignment().size() == PARTITIONS);
            long handedOverAfterMs = (System.nanoTime() - blockedAt) / 1_000_000;
            assertThat(handedOverAfterMs).as("ms from the stall to the hand-over").isGreaterThanOrEqualTo(maxPollIntervalMs);
            assertThat(slow.assignment()).isEmpty();
            assertThat(slow.events()).last().satisfies(e -> {
                assertThat(e.kind()).isEqualTo("lost");
                assertThat(e.partitions()).containsExactlyInAnyOrderElementsOf(slowAssignment);
            });
            // assignment() changes at SyncGroup; the generation the test reads comes from the listener just after.
            await(Duration.ofSeconds(10), "the other member in a newer generation", () -> other.generation() > generation);
            assertThat(other.events()).as("the other member kept consuming its own partitions (cooperative) or got "
                    + "them back (eager)").noneMatch(e -> e.kind().equals("lost"));
            ConsumerGroupDescription alone = describe(kafka, group);
            assertThat(alone.members()).extracting(MemberDescription::consumerId)
                    .containsExactly(other.memberId())
                    .doesNotContain(slowMemberId);
            // the other member really consumes the slow member's former partitions
            Map<TopicPartition, Long> before = emittedPer(other, slowAssignment);
            await(Duration.ofSeconds(20), "records of the taken-over partitions at the other member",
                    () -> slowAssignment.stream().allMatch(tp -> other.emitted(tp) > before.get(tp)));

            long slowEmittedBefore = slow.emitted();
            slow.unblock();
            await(Duration.ofSeconds(30), "the slow member to rejoin and get partitions back",
                    () -> slow.assignment().size() == 2 && other.assignment().size() == 2);
            await(Duration.ofSeconds(20), "records at the rejoined member", () -> slow.emitted() > slowEmittedBefore);
            assertThat(describe(kafka, group).members()).hasSize(2);

            Set<String> produced = producer.stop();
            await(Duration.ofSeconds(30), "every produced record to be processed",
                    () -> union(slow, other).containsAll(produced));
            assertThat(slow.error()).isNull();
            assertThat(other.error()).isNull();
        }
    }

    private static Map<String, Object> props(EmbeddedKafkaCluster kafka, String group, int maxPollIntervalMs) {
        return Kflux.props(kafka.bootstrapServers(),
                "group.id", group,
                "session.timeout.ms", SESSION_TIMEOUT_MS,
                "heartbeat.interval.ms", 1_000,
                "max.poll.interval.ms", maxPollIntervalMs,
                "auto.commit.interval.ms", 500);
    }

    private static Map<TopicPartition, Long> emittedPer(GroupMember member, Set<TopicPartition> partitions) {
        return partitions.stream().collect(Collectors.toMap(tp -> tp, member::emitted));
    }

    private static Set<String> union(GroupMember... members) {
        Set<String> all = new HashSet<>();
        for (GroupMember m : members) {
            all.addAll(m.processed());
        }
        return all;
    }

    static ConsumerGroupDescription describe(EmbeddedKafkaCluster kafka, String group) throws Exception {
        return kafka.admin().describeConsumerGroups(List.of(group)).all().get(10, TimeUnit.SECONDS).get(group);
    }

    static void await(Duration timeout, String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out after " + timeout + " waiting for " + what);
            }
            Thread.sleep(50);
        }
    }
}
