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
 * The consumer protocol's subscription: the {@code metadata} bytes of each JoinGroup protocol
 * (protocol type "consumer"), read by the group leader's assignor. Version-prefixed (int16), never
 * flexible. ownedPartitions from v1 (cooperative rebalancing, KIP-429), generationId from v2
 * (-1 when absent: lets the leader spot stale owned partitions), rackId from v3 (KIP-881).
 *
 * <p>Like the official client, a version newer than {@link #HIGHEST_VERSION} is read with the
 * highest known layout (newer versions only append fields), and writing a newer version writes
 * the highest known one.
 */
public record ConsumerProtocolSubscription(List<String> topics, byte[] userData, List<TopicPartition> ownedPartitions,
                                           int generationId, String rackId) {

    /** The JoinGroup/SyncGroup protocolType of groups using this format. */
    public static final String PROTOCOL_TYPE = "consumer";

    public static final short HIGHEST_VERSION = 3;

    /** One topic's partitions. */
    public record TopicPartition(String topic, List<Integer> partitions) {
        static final Schema<TopicPartition> SCHEMA = Schema.of(TopicPartition.class,
                field("topic", STRING).defaultValue(""),
                field("partitions", array(INT32)));
    }

    static final Schema<ConsumerProtocolSubscription> SCHEMA = Schema.of(ConsumerProtocolSubscription.class,
            field("topics", array(STRING)),
            field("userData", BYTES),
            field("ownedPartitions", array(TopicPartition.SCHEMA)).versions(1),
            field("generationId", INT32).versions(2).defaultValue(-1),
            field("rackId", STRING).versions(3));

    /** A subscription with only topics (no user data, nothing owned, no generation, no rack). */
    public static ConsumerProtocolSubscription of(List<String> topics) {
        return new ConsumerProtocolSubscription(topics, null, List.of(), -1, null);
    }

    /** The version-prefixed bytes of this subscription at {@code version} (above 3: written as 3). */
    public byte[] serialize(short version) {
        return VersionPrefixed.serialize(SCHEMA, this, version, HIGHEST_VERSION);
    }

    /** Reads version-prefixed bytes (the whole array). */
    public static ConsumerProtocolSubscription deserialize(byte[] bytes) {
        return deserialize(ByteBuffer.wrap(bytes));
    }

    /**
     * Reads version-prefixed bytes from the buffer's position to its limit, without moving the
     * buffer's position. Bytes after the known fields (a newer version's additions) are ignored.
     *
     * @throws io.kflux.protocol.MalformedMessageException when truncated or the version is negative
     */
    public static ConsumerProtocolSubscription deserialize(ByteBuffer buffer) {
        return VersionPrefixed.deserialize(SCHEMA, buffer, HIGHEST_VERSION, "subscription");
    }

    /** The version a serialized subscription declares (may be above {@link #HIGHEST_VERSION}). */
    public static short version(ByteBuffer buffer) {
        return VersionPrefixed.version(buffer, "subscription");
    }
}
