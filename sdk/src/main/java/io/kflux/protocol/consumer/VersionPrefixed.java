package io.kflux.protocol.consumer;

import io.kflux.protocol.MalformedMessageException;
import io.kflux.protocol.Schema;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.ByteBuffer;

/** The int16-version-prefixed, non-flexible framing shared by the consumer protocol's embedded formats. */
final class VersionPrefixed {
    private VersionPrefixed() {
    }

    static <T> byte[] serialize(Schema<T> schema, T value, short version, short highest) {
        if (version < 0) {
            throw new IllegalArgumentException("negative version " + version);
        }
        short effective = (short) Math.min(version, highest);
        ByteBuf buf = Unpooled.buffer();
        buf.writeShort(effective);
        schema.write(buf, value, effective, false);
        byte[] out = new byte[buf.readableBytes()];
        buf.readBytes(out);
        return out;
    }

    static <T> T deserialize(Schema<T> schema, ByteBuffer buffer, short highest, String what) {
        ByteBuf buf = Unpooled.wrappedBuffer(buffer.duplicate());
        try {
            short version = buf.readShort();
            if (version < 0) {
                throw new MalformedMessageException("unsupported consumer protocol " + what + " version " + version);
            }
            return schema.read(buf, (short) Math.min(version, highest), false);
        } catch (IndexOutOfBoundsException e) {
            throw new MalformedMessageException("consumer protocol " + what + " is truncated", e);
        }
    }

    static short version(ByteBuffer buffer, String what) {
        if (buffer.remaining() < 2) {
            throw new MalformedMessageException("consumer protocol " + what + " has no version");
        }
        return buffer.getShort(buffer.position());
    }
}
