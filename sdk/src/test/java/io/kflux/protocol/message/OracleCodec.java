package io.kflux.protocol.message;

import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.protocol.MessageSpec;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.ByteBuffer;
import java.util.function.Function;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.MessageUtil;

/**
 * Byte-for-byte comparison of kflux codecs with the official kafka-clients message classes
 * (test scope only, used as an oracle).
 */
public final class OracleCodec {
    private OracleCodec() {
    }

    /** The official encoding of {@code message} at {@code version}. */
    public static byte[] officialBytes(ApiMessage message, short version) {
        ByteBuffer bb = MessageUtil.toByteBufferAccessor(message, version).buffer();
        return MessageUtil.byteBufferToArray(bb);
    }

    public static <T> byte[] kfluxBytes(MessageSpec<T> spec, T message, short version) {
        ByteBuf buf = Unpooled.buffer();
        spec.write(buf, message, version);
        byte[] out = new byte[buf.readableBytes()];
        buf.readBytes(out);
        return out;
    }

    public static <T> T kfluxRead(MessageSpec<T> spec, byte[] bytes, short version) {
        ByteBuf buf = Unpooled.wrappedBuffer(bytes);
        T value = spec.read(buf, version);
        assertThat(buf.readableBytes()).as("bytes left after reading %s v%d", spec.apiKey(), version).isZero();
        return value;
    }

    /**
     * Checks both directions at {@code version}: kflux writes exactly the official bytes, and
     * kflux reads the official bytes back into a message that writes those bytes again; then the
     * official reader parses kflux's bytes into an equal official message.
     */
    public static <T, O extends ApiMessage> void assertSameBytes(MessageSpec<T> spec, T ours, O official, short version,
                                                                 Function<ByteBufferAccessor, O> officialReader) {
        byte[] expected = officialBytes(official, version);
        byte[] actual = kfluxBytes(spec, ours, version);
        assertThat(actual).as("%s v%d written by kflux", spec.apiKey(), version).isEqualTo(expected);
        T reread = kfluxRead(spec, expected, version);
        assertThat(kfluxBytes(spec, reread, version)).as("%s v%d re-written after kflux read", spec.apiKey(), version)
                .isEqualTo(expected);
        O officialReread = officialReader.apply(new ByteBufferAccessor(ByteBuffer.wrap(actual)));
        assertThat(officialReread).as("%s v%d read by kafka-clients", spec.apiKey(), version).isEqualTo(official);
    }
}
