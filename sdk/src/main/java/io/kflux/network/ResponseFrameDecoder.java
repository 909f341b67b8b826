package io.kflux.network;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.CorruptedFrameException;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.util.ReferenceCountUtil;

/**
 * Splits the inbound byte stream into response frames (int32 size prefix, stripped), each copied once into a heap
 * buffer from the connection's {@link FramePool}, set up once the size prefix is read and filled with exactly the
 * frame's bytes (its capacity may be larger: a reused array is sized by class; the frame ends at its writer index).
 *
 * <p>Why not Netty's length-field decoder: its cumulation buffer grows by repeated reallocation
 * while a multi-megabyte Fetch response arrives, and large direct buffers are not pooled, so
 * every response cost fresh native memory: about one page fault per 4 KiB received (measured:
 * 100k+ minor faults and 2.5 times the I/O thread's CPU per 2M-record drain). A heap array the size of the
 * frame is touched once, lives in memory the JVM already committed, and gives the record decoder direct array
 * access (CRC32C, LZ4, uncompressed records read in place, no copy out). Why the large arrays are reused rather
 * than allocated per response (humongous allocations, zeroed and faulted in): see {@link FramePool}.
 *
 * <p>A negative size (Kafka's sizes are signed) is reported as corruption, an oversized one with
 * its real size and the configured limit; after either, the rest of the stream is discarded
 * (the connection handler closes the connection). When the connection ends, a partial frame is released and the
 * pool's free arrays are dropped.
 */
final class ResponseFrameDecoder extends ChannelInboundHandlerAdapter {
    private final int maxFrameBytes;
    private final FramePool pool;
    /** Size prefix bytes read so far (0-4) and their value, for a prefix split across reads. */
    private int sizeBytesRead;
    private int size;
    /** The frame being filled and its size; null between frames. */
    private ByteBuf frame;
    private int frameSize;
    private boolean failed;

    ResponseFrameDecoder(int maxFrameBytes) {
        this(maxFrameBytes, new FramePool());
    }

    ResponseFrameDecoder(int maxFrameBytes, FramePool pool) {
        this.maxFrameBytes = maxFrameBytes;
        this.pool = pool;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof ByteBuf in)) {
            ctx.fireChannelRead(msg);
            return;
        }
        try {
            while (!failed && in.isReadable()) {
                if (frame == null && !readSize(ctx, in)) {
                    return;
                }
                if (frame != null) {
                    frame.writeBytes(in, Math.min(in.readableBytes(), frameSize - frame.writerIndex()));
                    if (frame.writerIndex() == frameSize) {
                        ByteBuf complete = frame;
                        frame = null;
                        ctx.fireChannelRead(complete);
                    }
                }
            }
        } finally {
            in.release();
        }
    }

    /** Reads (the rest of) a size prefix; true once it is complete and the frame buffer was set up or handed on. */
    private boolean readSize(ChannelHandlerContext ctx, ByteBuf in) {
        while (sizeBytesRead < 4 && in.isReadable()) {
            size = (size << 8) | in.readUnsignedByte();
            sizeBytesRead++;
        }
        if (sizeBytesRead < 4) {
            return false;
        }
        frameSize = size;
        sizeBytesRead = 0;
        size = 0;
        if (frameSize < 0) {
            fail(ctx, new CorruptedFrameException("negative response frame size " + frameSize));
            return false;
        }
        if (frameSize > maxFrameBytes) {
            fail(ctx, new TooLongFrameException("response frame of " + frameSize + " bytes exceeds maxFrameBytes="
                    + maxFrameBytes));
            return false;
        }
        if (frameSize == 0) {
            ctx.fireChannelRead(Unpooled.EMPTY_BUFFER);
        } else {
            frame = pool.frame(frameSize);
        }
        return true;
    }

    private void fail(ChannelHandlerContext ctx, Exception e) {
        failed = true;
        ctx.fireExceptionCaught(e);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        discard();
        super.channelInactive(ctx);
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        discard();
    }

    /** The connection is done: its partial frame and free arrays go (frames still held elsewhere keep theirs). */
    private void discard() {
        pool.close();
        if (frame != null) {
            ReferenceCountUtil.safeRelease(frame);
            frame = null;
        }
    }
}
