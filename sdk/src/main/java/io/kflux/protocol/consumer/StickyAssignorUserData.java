package io.kflux.protocol.consumer;

import static io.kflux.protocol.Field.field;
import static io.kflux.protocol.Types.INT32;
import static io.kflux.protocol.Types.STRING;
import static io.kflux.protocol.Types.array;

import io.kflux.protocol.Schema;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.ByteBuffer;
import java.util.List;

/**
 * The user data the official (eager) {@code StickyAssignor} ("sticky") puts in its subscriptions:
 * the member's previous assignment and the generation it was assigned in, so the leader can keep
 * partitions where they were. Not version-prefixed: the official assignor writes the V1 layout
 * (previous_assignment, generation) and reads V1, falling back to V0 (previous_assignment only)
 * when that fails, and to "nothing, generation -1" when both fail. Non-flexible encoding.
 *
 * @param previousAssignment the partitions the member held, grouped by topic
 * @param generation the generation of that assignment; -1 when unknown (V0 data, or unreadable)
 */
public record StickyAssignorUserData(List<TopicPartition> previousAssignment, int generation) {

    public static final int DEFAULT_GENERATION = -1;

    public record TopicPartition(String topic, List<Integer> partitions) {
        static final Schema<TopicPartition> SCHEMA = Schema.of(TopicPartition.class,
                field("topic", STRING).defaultValue(""),
                field("partitions", array(INT32)));
    }

    /** Version 0 has only previousAssignment; version 1 adds generation. */
    static final Schema<StickyAssignorUserData> SCHEMA = Schema.of(StickyAssignorUserData.class,
            field("previousAssignment", array(TopicPartition.SCHEMA)),
            field("generation", INT32).versions(1).defaultValue(DEFAULT_GENERATION));

    private static final StickyAssignorUserData NONE = new StickyAssignorUserData(List.of(), DEFAULT_GENERATION);

    /** The V1 bytes, as the official StickyAssignor's subscriptionUserData writes them. */
    public byte[] serialize() {
        ByteBuf buf = Unpooled.buffer();
        SCHEMA.write(buf, this, (short) 1, false);
        byte[] out = new byte[buf.readableBytes()];
        buf.readBytes(out);
        return out;
    }

    /**
     * Decodes as the official assignor does (lenient: undecodable data reads as no previous
     * assignment with generation -1); null or empty data also reads that way. Does not move the
     * buffer's position.
     */
    public static StickyAssignorUserData deserialize(ByteBuffer userData) {
        if (userData == null || !userData.hasRemaining()) {
            return NONE;
        }
        for (short version = 1; version >= 0; version--) {
            try {
                return SCHEMA.read(Unpooled.wrappedBuffer(userData.duplicate()), version, false);
            } catch (RuntimeException e) {
                // truncated or malformed in this layout: try the older one, as the official assignor does
            }
        }
        return NONE;
    }

    public static StickyAssignorUserData deserialize(byte[] userData) {
        return deserialize(userData == null ? null : ByteBuffer.wrap(userData));
    }
}
