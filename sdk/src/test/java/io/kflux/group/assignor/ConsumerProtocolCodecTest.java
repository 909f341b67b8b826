package io.kflux.group.assignor;

import static io.kflux.group.assignor.RangeAssignorTest.tp;
import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.TopicPartition;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor;
import org.apache.kafka.clients.consumer.internals.ConsumerProtocol;
import org.junit.jupiter.api.Test;

/** The bytes kflux members exchange with official members, checked against the official ConsumerProtocol. */
class ConsumerProtocolCodecTest {

    @Test
    void subscriptionMetadataReadsAsTheOfficialClientReadsIt() {
        StickyAssignor assignor = new StickyAssignor();
        assignor.onAssignment(new Assignment(List.of(tp("a", 1))), 4);
        byte[] bytes = ConsumerProtocolCodec.subscriptionMetadata(assignor, List.of("b", "a"),
                List.of(tp("a", 1), tp("b", 0), tp("a", 2)), 4, "rack-1");

        ConsumerPartitionAssignor.Subscription official = ConsumerProtocol.deserializeSubscription(ByteBuffer.wrap(bytes));
        assertThat(official.topics()).containsExactly("a", "b");
        assertThat(official.ownedPartitions()).containsExactlyInAnyOrder(
                new org.apache.kafka.common.TopicPartition("a", 1), new org.apache.kafka.common.TopicPartition("a", 2),
                new org.apache.kafka.common.TopicPartition("b", 0));
        assertThat(official.generationId()).contains(4);
        assertThat(official.rackId()).contains("rack-1");
        byte[] userData = new byte[official.userData().remaining()];
        official.userData().get(userData);
        assertThat(userData).isEqualTo(assignor.subscriptionUserData(Set.of("a", "b")));
    }

    @Test
    void officialSubscriptionsRead() {
        for (short version = 0; version <= 3; version++) {
            ConsumerPartitionAssignor.Subscription official = new ConsumerPartitionAssignor.Subscription(
                    List.of("x", "y"), ByteBuffer.wrap(new byte[] {1, 2, 3}),
                    List.of(new org.apache.kafka.common.TopicPartition("x", 3)), 7, Optional.of("r"));
            ByteBuffer buffer = ConsumerProtocol.serializeSubscription(official, version);
            byte[] bytes = new byte[buffer.remaining()];
            buffer.get(bytes);

            Subscription ours = ConsumerProtocolCodec.subscription(bytes, "static-1");
            assertThat(ours.topics()).containsExactly("x", "y");
            assertThat(ours.userData()).containsExactly(1, 2, 3);
            assertThat(ours.ownedPartitions()).isEqualTo(version >= 1 ? List.of(tp("x", 3)) : List.of());
            assertThat(ours.generationId()).isEqualTo(version >= 2 ? 7 : -1);
            assertThat(ours.rackId()).isEqualTo(version >= 3 ? "r" : null);
            assertThat(ours.groupInstanceId()).isEqualTo("static-1");
        }
    }

    @Test
    void assignmentsBothWays() {
        Assignment ours = new Assignment(List.of(tp("b", 2), tp("a", 0), tp("b", 1)), new byte[] {9});
        byte[] bytes = ConsumerProtocolCodec.assignmentBytes(ours);
        ConsumerPartitionAssignor.Assignment official = ConsumerProtocol.deserializeAssignment(ByteBuffer.wrap(bytes));
        assertThat(official.partitions()).containsExactlyInAnyOrder(
                new org.apache.kafka.common.TopicPartition("a", 0), new org.apache.kafka.common.TopicPartition("b", 1),
                new org.apache.kafka.common.TopicPartition("b", 2));
        assertThat(official.userData().get(official.userData().position())).isEqualTo((byte) 9);

        ByteBuffer back = ConsumerProtocol.serializeAssignment(official);
        byte[] officialBytes = new byte[back.remaining()];
        back.get(officialBytes);
        Assignment read = ConsumerProtocolCodec.assignment(officialBytes);
        assertThat(read.partitions()).containsExactlyInAnyOrderElementsOf(ours.partitions());
        assertThat(read.userData()).containsExactly(9);

        assertThat(ConsumerProtocolCodec.assignment(new byte[0]).partitions()).isEmpty();
    }

    @Test
    void negativeOwnedPartitionsAreDropped() {
        ConsumerPartitionAssignor.Subscription official = new ConsumerPartitionAssignor.Subscription(
                List.of("x"), null, List.of(new org.apache.kafka.common.TopicPartition("x", -1),
                        new org.apache.kafka.common.TopicPartition("x", 0)), 1, Optional.empty());
        ByteBuffer buffer = ConsumerProtocol.serializeSubscription(official);
        byte[] bytes = new byte[buffer.remaining()];
        buffer.get(bytes);
        List<TopicPartition> owned = ConsumerProtocolCodec.subscription(bytes, null).ownedPartitions();
        assertThat(owned).containsExactly(tp("x", 0));
    }
}
