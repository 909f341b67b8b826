package io.kflux.network;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.CorruptedFrameException;
import io.netty.handler.codec.TooLongFrameException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ResponseFrameDecoderTest {

    /** Three frames (one empty) in one stream. */
    private static byte[] stream() {
        ByteBuf b = Unpooled.buffer();
        b.writeInt(5).writeBytes(new byte[] {1, 2, 3, 4, 5});
        b.writeInt(0);
        b.writeInt(300);
        for (int i = 0; i < 300; i++) {
            b.writeByte(i);
        }
        byte[] bytes = new byte[b.readableBytes()];
        b.readBytes(bytes);
        return bytes;
    }

    private static final class Frames extends ChannelInboundHandlerAdapter {
        final List<byte[]> frames = new ArrayList<>();
        final List<Throwable> errors = new ArrayList<>();

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ByteBuf frame = (ByteBuf) msg;
            byte[] bytes = new byte[frame.readableBytes()];
            frame.readBytes(bytes);
            frame.release();
            frames.add(bytes);
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            errors.add(cause);
        }
    }

    @Test
    void framesArriveWholeHoweverTheStreamIsCut() {
        byte[] bytes = stream();
        for (int chunk = 1; chunk <= bytes.length; chunk++) {
            Frames out = new Frames();
            EmbeddedChannel channel = new EmbeddedChannel(new ResponseFrameDecoder(1024), out);
            List<ByteBuf> sent = new ArrayList<>();
            for (int at = 0; at < bytes.length; at += chunk) {
                ByteBuf in = Unpooled.copiedBuffer(bytes, at, Math.min(chunk, bytes.length - at));
                sent.add(in);
                channel.writeInbound(in);
            }
            assertThat(out.errors).isEmpty();
            assertThat(out.frames).as("chunk %d", chunk).hasSize(3);
            assertThat(out.frames.get(0)).containsExactly(1, 2, 3, 4, 5);
            assertThat(out.frames.get(1)).isEmpty();
            assertThat(out.frames.get(2)).hasSize(300);
            assertThat(out.frames.get(2)[299]).isEqualTo((byte) 299);
            assertThat(sent).allSatisfy(in -> assertThat(in.refCnt()).isZero());
            channel.finishAndReleaseAll();
        }
    }

    @Test
    void negativeAndOversizedFramesAreReportedAndTheRestIsDiscarded() {
        Frames out = new Frames();
        EmbeddedChannel channel = new EmbeddedChannel(new ResponseFrameDecoder(1024), out);
        ByteBuf in = Unpooled.buffer().writeInt(-2).writeInt(1).writeByte(7);
        channel.writeInbound(in);
        assertThat(out.errors).hasSize(1);
        assertThat(out.errors.get(0)).isInstanceOf(CorruptedFrameException.class)
                .hasMessageContaining("negative response frame size -2");
        assertThat(out.frames).isEmpty();
        assertThat(in.refCnt()).isZero();

        Frames tooLong = new Frames();
        channel = new EmbeddedChannel(new ResponseFrameDecoder(1024), tooLong);
        channel.writeInbound(Unpooled.buffer().writeInt(1025).writeByte(1));
        channel.writeInbound(Unpooled.buffer().writeInt(1).writeByte(1));
        assertThat(tooLong.errors).hasSize(1);
        assertThat(tooLong.errors.get(0)).isInstanceOf(TooLongFrameException.class)
                .hasMessageContaining("1025 bytes exceeds maxFrameBytes=1024");
        assertThat(tooLong.frames).isEmpty();
    }

    @Test
    void aPartialFrameIsReleasedWhenTheConnectionEnds() {
        Frames out = new Frames();
        EmbeddedChannel channel = new EmbeddedChannel(new ResponseFrameDecoder(1024), out);
        channel.writeInbound(Unpooled.buffer().writeInt(10).writeBytes(new byte[4]));
        channel.close();
        assertThat(out.frames).isEmpty();
        assertThat(channel.finish()).isFalse();
    }
}
