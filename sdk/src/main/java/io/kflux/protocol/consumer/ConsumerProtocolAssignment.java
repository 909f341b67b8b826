package io.kflux.protocol.consumer;

import static io.kflux.protocol.Field.field;
import static io.kflux.protocol.Types.BYTES;
import static io.kflux.protocol.Types.INT32;
import static io.kflux.protocol.Types.STRING;
import static io.kflux.protocol.Types.array;

import io.kflux.protocol.Schema;
import java.nio.ByteBuffer;
import java.util.List;

/**
 * The consumer protocol's assignment: the bytes the leader sends per member in SyncGroup and each
 * member gets back in its SyncGroup response. Version-prefixed (int16), never flexible; versions
 * 0-3 share one layout (the version follows the subscription's). Newer versions are read and
 * written as {@link #HIGHEST_VERSION}, as the official client does.
 */
public record ConsumerProtocolAssignment(List<TopicPartition> assignedPartitions, byte[] userData) {

    public static final short HIGHEST_VERSION = 3;

    /** One topic's assigned partitions. */
    public record TopicPartition(String topic, List<Integer> partitions) {
        static final Schema<TopicPartition> SCHEMA = Schema.of(TopicPartition.class,
                field("topic", STRING).defaultValue(""),
                field("partitions", array(INT32)));
    }

    static final Schema<ConsumerProtocolAssignment> SCHEMA = Schema.of(ConsumerProtocolAssignment.class,
            field("assignedPartitions", array(TopicPartition.SCHEMA)),
            field("userData", BYTES));

    /** The version-prefixed bytes of this assignment at {@code version} (above 3: written as 3). */
    public byte[] serialize(short version) {
        return VersionPrefixed.serialize(SCHEMA, this, version, HIGHEST_VERSION);
    }

    /** Reads version-prefixed bytes (the whole array). */
    public static ConsumerProtocolAssignment deserialize(byte[] bytes) {
        return deserialize(ByteBuffer.wrap(bytes));
    }

    /**
     * Reads version-prefixed bytes from the buffer's position to its limit, without moving the
     * buffer's position. Bytes after the known fields are ignored.
     *
     * @throws io.kflux.protocol.MalformedMessageException when truncated or the version is negative
     */
    public static ConsumerProtocolAssignment deserialize(ByteBuffer buffer) {
        return VersionPrefixed.deserialize(SCHEMA, buffer, HIGHEST_VERSION, "assignment");
    }
}
