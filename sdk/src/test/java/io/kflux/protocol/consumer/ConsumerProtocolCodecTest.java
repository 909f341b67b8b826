package io.kflux.protocol.consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kflux.protocol.MalformedMessageException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Assignment;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Subscription;
import org.apache.kafka.clients.consumer.internals.ConsumerProtocol;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.types.SchemaException;
import org.junit.jupiter.api.Test;

/** kflux's consumer protocol formats against the official ConsumerProtocol, byte for byte, both ways. */
class ConsumerProtocolCodecTest {
    private static final byte[] USER_DATA = "assignor-state:42".getBytes(StandardCharsets.UTF_8);

    private static byte[] bytes(ByteBuffer bb) {
        ByteBuffer d = bb.duplicate();
        byte[] out = new byte[d.remaining()];
        d.get(out);
        return out;
    }

    private static List<TopicPartition> flatten(List<ConsumerProtocolSubscription.TopicPartition> owned) {
        List<TopicPartition> out = new ArrayList<>();
        for (ConsumerProtocolSubscription.TopicPartition t : owned) {
            for (int p : t.partitions()) {
                out.add(new TopicPartition(t.topic(), p));
            }
        }
        return out;
    }

    private static List<TopicPartition> flattenAssigned(List<ConsumerProtocolAssignment.TopicPartition> assigned) {
        List<TopicPartition> out = new ArrayList<>();
        for (ConsumerProtocolAssignment.TopicPartition t : assigned) {
            for (int p : t.partitions()) {
                out.add(new TopicPartition(t.topic(), p));
            }
        }
        return out;
    }

    /** What the official client reads back from a subscription of {@code version} (capped at 3). */
    private static void assertSameSubscription(ConsumerProtocolSubscription ours, Subscription official, int version) {
        assertThat(official.topics()).isEqualTo(ours.topics());
        assertThat(official.userData() == null ? null : bytes(official.userData())).isEqualTo(ours.userData());
        assertThat(official.ownedPartitions()).isEqualTo(version >= 1 ? flatten(ours.ownedPartitions()) : List.of());
        assertThat(official.generationId()).isEqualTo(version >= 2 && ours.generationId() >= 0
                ? Optional.of(ours.generationId()) : Optional.empty());
        assertThat(official.rackId()).isEqualTo(version >= 3 && ours.rackId() != null && !ours.rackId().isEmpty()
                ? Optional.of(ours.rackId()) : Optional.empty());
    }

    private static List<ConsumerProtocolSubscription> subscriptions() {
        List<ConsumerProtocolSubscription.TopicPartition> owned = List.of(
                new ConsumerProtocolSubscription.TopicPartition("billing", List.of(0)),
                new ConsumerProtocolSubscription.TopicPartition("orders", List.of(1, 3, 7)));
        return List.of(
                new ConsumerProtocolSubscription(List.of("billing", "orders", "ünïcode"), USER_DATA, owned, 17, "eu-west-1a"),
                new ConsumerProtocolSubscription(List.of("orders"), null, List.of(), -1, null),
                new ConsumerProtocolSubscription(List.of(), new byte[0], owned, 0, null));
    }

    private static Subscription official(ConsumerProtocolSubscription s) {
        return new Subscription(s.topics(), s.userData() == null ? null : ByteBuffer.wrap(s.userData()),
                flatten(s.ownedPartitions()), s.generationId(), Optional.ofNullable(s.rackId()));
    }

    @Test
    void subscriptionMatchesOfficialBytesInEveryVersionBothWays() {
        for (short v = 0; v <= 3; v++) {
            for (ConsumerProtocolSubscription ours : subscriptions()) {
                byte[] expected = bytes(ConsumerProtocol.serializeSubscription(official(ours), v));
                assertThat(ours.serialize(v)).as("v%d written by kflux", v).isEqualTo(expected);
                assertThat(ConsumerProtocolSubscription.version(ByteBuffer.wrap(expected))).isEqualTo(v);

                assertSameSubscription(ours, ConsumerProtocol.deserializeSubscription(ByteBuffer.wrap(ours.serialize(v))), v);

                ConsumerProtocolSubscription read = ConsumerProtocolSubscription.deserialize(expected);
                assertThat(read.serialize(v)).as("v%d re-written after kflux read", v).isEqualTo(expected);
                assertThat(read.topics()).isEqualTo(ours.topics());
                assertThat(read.userData()).isEqualTo(ours.userData());
                assertThat(read.ownedPartitions()).isEqualTo(v >= 1 ? ours.ownedPartitions() : List.of());
                assertThat(read.generationId()).isEqualTo(v >= 2 ? ours.generationId() : -1);
                assertThat(read.rackId()).isEqualTo(v >= 3 ? ours.rackId() : null);
            }
        }
    }

    @Test
    void newerSubscriptionVersionsAreReadWithTheKnownFieldsAndWrittenAsV3() {
        ConsumerProtocolSubscription ours = subscriptions().get(0);
        for (short newer : new short[] {4, 9, Short.MAX_VALUE}) {
            assertThat(ours.serialize(newer)).isEqualTo(bytes(ConsumerProtocol.serializeSubscription(official(ours), newer)))
                    .isEqualTo(ours.serialize((short) 3));
            // a future version: our v3 body plus fields appended after it
            byte[] v3 = ours.serialize((short) 3);
            ByteBuffer future = ByteBuffer.allocate(v3.length + 6);
            future.putShort(newer).put(v3, 2, v3.length - 2).putInt(123_456).putShort((short) 7).flip();
            ConsumerProtocolSubscription read = ConsumerProtocolSubscription.deserialize(future);
            assertThat(future.position()).isZero();
            assertThat(ConsumerProtocolSubscription.version(future)).isEqualTo(newer);
            assertThat(read.serialize((short) 3)).isEqualTo(v3);
            assertSameSubscription(read, ConsumerProtocol.deserializeSubscription(future.duplicate()), 3);
        }
    }

    @Test
    void badSubscriptionsAreMalformedAsTheOfficialClientRejectsThem() {
        byte[] negative = {(byte) 0xff, (byte) 0xff, 0, 0, 0, 0, (byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff};
        assertThatThrownBy(() -> ConsumerProtocol.deserializeSubscription(ByteBuffer.wrap(negative))).isInstanceOf(SchemaException.class);
        assertThatThrownBy(() -> ConsumerProtocolSubscription.deserialize(negative)).isInstanceOf(MalformedMessageException.class);

        byte[] full = subscriptions().get(0).serialize((short) 3);
        for (int len : new int[] {0, 1, 2, 5, full.length - 1}) {
            byte[] truncated = Arrays.copyOf(full, len);
            assertThatThrownBy(() -> ConsumerProtocolSubscription.deserialize(truncated))
                    .as("truncated to %d bytes", len).isInstanceOf(MalformedMessageException.class);
        }
        assertThatThrownBy(() -> subscriptions().get(0).serialize((short) -1)).isInstanceOf(IllegalArgumentException.class);
    }

    private static List<ConsumerProtocolAssignment> assignments() {
        return List.of(
                new ConsumerProtocolAssignment(List.of(
                        new ConsumerProtocolAssignment.TopicPartition("orders", List.of(1, 3)),
                        new ConsumerProtocolAssignment.TopicPartition("billing", List.of(0)),
                        new ConsumerProtocolAssignment.TopicPartition("ünïcode", List.of(12))), USER_DATA),
                new ConsumerProtocolAssignment(List.of(), null),
                new ConsumerProtocolAssignment(List.of(new ConsumerProtocolAssignment.TopicPartition("orders", List.of(0))),
                        new byte[0]));
    }

    private static Assignment official(ConsumerProtocolAssignment a) {
        return new Assignment(flattenAssigned(a.assignedPartitions()), a.userData() == null ? null : ByteBuffer.wrap(a.userData()));
    }

    @Test
    void assignmentMatchesOfficialBytesInEveryVersionBothWays() {
        for (short v = 0; v <= 5; v++) {
            for (ConsumerProtocolAssignment ours : assignments()) {
                byte[] expected = bytes(ConsumerProtocol.serializeAssignment(official(ours), v));
                assertThat(ours.serialize(v)).as("v%d written by kflux", v).isEqualTo(expected);

                Assignment officialRead = ConsumerProtocol.deserializeAssignment(ByteBuffer.wrap(ours.serialize(v)));
                assertThat(officialRead.partitions()).isEqualTo(flattenAssigned(ours.assignedPartitions()));
                assertThat(officialRead.userData() == null ? null : bytes(officialRead.userData())).isEqualTo(ours.userData());

                ConsumerProtocolAssignment read = ConsumerProtocolAssignment.deserialize(expected);
                assertThat(read.serialize(v)).isEqualTo(expected);
                assertThat(read.assignedPartitions()).isEqualTo(ours.assignedPartitions());
                assertThat(read.userData()).isEqualTo(ours.userData());
            }
        }
    }

    @Test
    void newerAssignmentVersionsIgnoreAppendedFields() {
        ConsumerProtocolAssignment ours = assignments().get(0);
        byte[] v3 = ours.serialize((short) 3);
        ByteBuffer future = ByteBuffer.allocate(v3.length + 4);
        future.putShort((short) 8).put(v3, 2, v3.length - 2).putInt(-7).flip();
        ConsumerProtocolAssignment read = ConsumerProtocolAssignment.deserialize(future);
        assertThat(read.serialize((short) 3)).isEqualTo(v3);
        Assignment officialRead = ConsumerProtocol.deserializeAssignment(future.duplicate());
        assertThat(officialRead.partitions()).isEqualTo(flattenAssigned(read.assignedPartitions()));
    }

    @Test
    void badAssignmentsAreMalformed() {
        assertThatThrownBy(() -> ConsumerProtocolAssignment.deserialize(new byte[] {(byte) 0x80, 0, 0, 0, 0, 0}))
                .isInstanceOf(MalformedMessageException.class);
        byte[] full = assignments().get(0).serialize((short) 0);
        assertThatThrownBy(() -> ConsumerProtocolAssignment.deserialize(Arrays.copyOf(full, full.length - 1)))
                .isInstanceOf(MalformedMessageException.class);
        // a partition count far beyond the bytes left is garbage, not a huge allocation
        byte[] huge = {0, 0, 0x7f, (byte) 0xff, (byte) 0xff, (byte) 0xff};
        assertThatThrownBy(() -> ConsumerProtocolAssignment.deserialize(huge)).isInstanceOf(MalformedMessageException.class);
    }
}
