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

    /** Keeps the frames it receives, unreleased, as a consumer holding record slices does. */
    private static final class Kept extends ChannelInboundHandlerAdapter {
        final List<ByteBuf> frames = new ArrayList<>();

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            frames.add((ByteBuf) msg);
        }
    }

    private static ByteBuf sized(int size, int seed) {
        ByteBuf b = Unpooled.buffer(size + 4).writeInt(size);
        for (int i = 0; i < size; i++) {
            b.writeByte((i + seed) % 251);
        }
        return b;
    }

    private static void assertContent(ByteBuf frame, int size, int seed) {
        assertThat(frame.readableBytes()).isEqualTo(size);
        for (int i = 0; i < size; i++) {
            if (frame.getByte(frame.readerIndex() + i) != (byte) ((i + seed) % 251)) {
                throw new AssertionError("byte " + i + " of the frame differs");
            }
        }
    }

    private static void writeInChunks(EmbeddedChannel channel, ByteBuf stream, int chunk) {
        while (stream.isReadable()) {
            channel.writeInbound(stream.readRetainedSlice(Math.min(chunk, stream.readableBytes())));
        }
        stream.release();
    }

    @Test
    void largeFramesAreFilledExactlyOnReusedArraysAndEndAtTheirWriterIndex() {
        FramePool pool = new FramePool(false);
        Kept out = new Kept();
        EmbeddedChannel channel = new EmbeddedChannel(new ResponseFrameDecoder(8 << 20, pool), out);
        writeInChunks(channel, sized(300_000, 1), 65_000);
        assertThat(out.frames).hasSize(1);
        ByteBuf first = out.frames.get(0);
        assertContent(first, 300_000, 1);
        assertThat(first.capacity()).isEqualTo(FramePool.classSize(300_000)).isGreaterThan(300_000);
        byte[] array = first.array();
        first.release();

        // a shorter frame and a small one right behind it in the same reads: the first stops at its own size
        ByteBuf stream = sized(280_000, 2);
        stream.writeBytes(sized(3, 3));
        writeInChunks(channel, stream, 100_000);
        assertThat(out.frames).hasSize(3);
        ByteBuf second = out.frames.get(1);
        assertThat(second.array()).isSameAs(array);
        assertThat(second.writerIndex()).isEqualTo(280_000);
        assertContent(second, 280_000, 2);
        assertContent(out.frames.get(2), 3, 3);
        out.frames.subList(1, 3).forEach(ByteBuf::release);
        assertThat(pool.freeArrays()).isOne();
        channel.finishAndReleaseAll();
    }

    @Test
    void oversizedAndNegativeLargeSizesTakeNoArray() {
        FramePool pool = new FramePool(false);
        Frames out = new Frames();
        EmbeddedChannel channel = new EmbeddedChannel(new ResponseFrameDecoder(1 << 20, pool), out);
        channel.writeInbound(Unpooled.buffer().writeInt((1 << 20) + 1).writeBytes(new byte[100_000]));
        assertThat(out.errors).hasSize(1);
        assertThat(out.errors.get(0)).isInstanceOf(TooLongFrameException.class)
                .hasMessageContaining("1048577 bytes exceeds maxFrameBytes=1048576");
        assertThat(out.frames).isEmpty();

        Frames negative = new Frames();
        channel = new EmbeddedChannel(new ResponseFrameDecoder(1 << 20, pool), negative);
        channel.writeInbound(Unpooled.buffer().writeInt(Integer.MIN_VALUE).writeBytes(new byte[100_000]));
        assertThat(negative.errors).hasSize(1);
        assertThat(negative.errors.get(0)).isInstanceOf(CorruptedFrameException.class);
        assertThat(pool.freeArrays()).isZero();
    }

    @Test
    void whenTheConnectionEndsItsPoolDropsItsArraysAndFramesReleasedLaterAreNotKept() {
        FramePool pool = new FramePool(false);
        Kept out = new Kept();
        EmbeddedChannel channel = new EmbeddedChannel(new ResponseFrameDecoder(8 << 20, pool), out);
        writeInChunks(channel, sized(200_000, 0), 200_004);
        writeInChunks(channel, sized(200_000, 0), 200_004);
        out.frames.remove(1).release();
        assertThat(pool.freeArrays()).isOne();
        channel.writeInbound(Unpooled.buffer().writeInt(180_000).writeBytes(new byte[1000])); // a partial frame
        assertThat(pool.freeArrays()).as("the partial frame took the free array").isZero();

        channel.close();
        assertThat(pool.freeArrays()).isZero();
        ByteBuf held = out.frames.remove(0); // as the emitter still holding a result of the closed connection
        assertContent(held, 200_000, 0);
        held.release();
        assertThat(pool.freeArrays()).isZero();
        assertThat(pool.freeBytes()).isZero();
        assertThat(channel.finish()).isFalse();
    }
}
