package io.kflux.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

/** Header v1's tagged fields are sized through the same checked reader as a body's (a fuzzing finding). */
class ResponseHeaderTest {

    @Test
    void skipsTaggedFieldsOfTheHeader() {
        ByteBuf buf = Unpooled.buffer().writeInt(42);
        Varint.writeUnsignedVarint(buf, 1); // one tagged field
        Varint.writeUnsignedVarint(buf, 7); // tag
        Varint.writeUnsignedVarint(buf, 2); // size
        buf.writeShort(0x1234).writeByte(99); // its value, then the body
        assertThat(ResponseHeader.readCorrelationId(buf, (short) 1)).isEqualTo(42);
        assertThat(buf.readByte()).isEqualTo((byte) 99);
    }

    @Test
    void aTaggedFieldSizeBeyondTheFrameIsMalformedNotAnIllegalArgument() {
        ByteBuf buf = Unpooled.buffer().writeInt(42);
        Varint.writeUnsignedVarint(buf, 1);
        Varint.writeUnsignedVarint(buf, 0);
        Varint.writeUnsignedVarint(buf, -2_059_835_509); // what the fuzzer sent: negative as an int
        assertThatThrownBy(() -> ResponseHeader.readCorrelationId(buf, (short) 1))
                .isInstanceOf(MalformedMessageException.class).hasMessageContaining("tagged field 0");
    }

    @Test
    void aTaggedFieldCountBeyondTheFrameIsMalformed() {
        ByteBuf buf = Unpooled.buffer().writeInt(42);
        Varint.writeUnsignedVarint(buf, 1_000_000);
        assertThatThrownBy(() -> ResponseHeader.readCorrelationId(buf, (short) 1))
                .isInstanceOf(MalformedMessageException.class).hasMessageContaining("tagged fields");
    }
}
