package io.kflux.network;

import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.CorruptedFrameException;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import io.netty.handler.codec.TooLongFrameException;
import java.nio.ByteOrder;

/**
 * Splits the inbound byte stream into response frames (int32 size prefix, stripped). The size is
 * checked here rather than by the base class so that a negative size (Kafka's sizes are signed;
 * Netty reads four bytes as unsigned) is reported as corruption, and an oversized one with its
 * real size and the configured limit.
 */
final class ResponseFrameDecoder extends LengthFieldBasedFrameDecoder {
    private final int maxFrameBytes;

    ResponseFrameDecoder(int maxFrameBytes) {
        super(Integer.MAX_VALUE, 0, 4, 0, 4, true);
        this.maxFrameBytes = maxFrameBytes;
    }

    @Override
    protected long getUnadjustedFrameLength(ByteBuf buf, int offset, int length, ByteOrder order) {
        int size = buf.getInt(offset);
        if (size < 0) {
            throw new CorruptedFrameException("negative response frame size " + size);
        }
        if (size > maxFrameBytes) {
            throw new TooLongFrameException("response frame of " + size + " bytes exceeds maxFrameBytes=" + maxFrameBytes);
        }
        return size;
    }
}
