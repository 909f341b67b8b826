package io.kflux.protocol.message;

import static io.kflux.protocol.Field.field;
import static io.kflux.protocol.Types.INT16;
import static io.kflux.protocol.Types.INT32;
import static io.kflux.protocol.Types.STRING;
import static io.kflux.protocol.Types.UUID_TYPE;
import static io.kflux.protocol.Types.array;

import io.kflux.protocol.ApiKey;
import io.kflux.protocol.MalformedMessageException;
import io.kflux.protocol.MessageSpec;
import io.kflux.protocol.Schema;
import io.kflux.protocol.Type;
import io.netty.buffer.ByteBuf;
import java.util.List;
import java.util.UUID;

/**
 * ConsumerGroupHeartbeat response (KIP-848). {@code assignment} is null when unchanged (a nullable
 * struct: an int8 -1 marker for null, 1 followed by the struct otherwise).
 */
public record ConsumerGroupHeartbeatResponse(int throttleTimeMs, short errorCode, String errorMessage, String memberId,
                                             int memberEpoch, int heartbeatIntervalMs, Assignment assignment) {

    public record TopicPartitions(UUID topicId, List<Integer> partitions) {
        static final Schema<TopicPartitions> SCHEMA = Schema.of(TopicPartitions.class,
                field("topicId", UUID_TYPE),
                field("partitions", array(INT32)));
    }

    /** The partitions assigned to the member that it can use immediately. */
    public record Assignment(List<TopicPartitions> topicPartitions) {
        static final Schema<Assignment> SCHEMA = Schema.of(Assignment.class,
                field("topicPartitions", array(TopicPartitions.SCHEMA)));
    }

    /** A struct that may be null: int8 -1 for null, 1 then the struct (as the Kafka generator writes it). */
    private record NullableStruct<T>(Schema<T> schema) implements Type<T> {
        @Override
        public T read(ByteBuf buf, short version, boolean flexible) {
            byte marker = buf.readByte();
            if (marker < 0) {
                return null;
            }
            if (marker != 1) {
                throw new MalformedMessageException("nullable struct marker " + marker + " is neither -1 nor 1");
            }
            return schema.read(buf, version, flexible);
        }

        @Override
        public void write(ByteBuf buf, T value, short version, boolean flexible) {
            if (value == null) {
                buf.writeByte(-1);
            } else {
                buf.writeByte(1);
                schema.write(buf, value, version, flexible);
            }
        }

        @Override
        public T defaultValue() {
            return null;
        }
    }

    public static final MessageSpec<ConsumerGroupHeartbeatResponse> SPEC = MessageSpec.of(
            ApiKey.CONSUMER_GROUP_HEARTBEAT, 0, 1, 0,
            Schema.of(ConsumerGroupHeartbeatResponse.class,
                    field("throttleTimeMs", INT32),
                    field("errorCode", INT16),
                    field("errorMessage", STRING),
                    field("memberId", STRING),
                    field("memberEpoch", INT32),
                    field("heartbeatIntervalMs", INT32),
                    field("assignment", new NullableStruct<>(Assignment.SCHEMA))));
}
