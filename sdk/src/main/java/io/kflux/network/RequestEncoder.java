package io.kflux.network;

import io.kflux.protocol.ApiRequest;
import io.kflux.protocol.MessageSpec;
import io.kflux.protocol.RequestHeader;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/** Writes one request frame: int32 size, request header (v1, or v2 for flexible bodies), body. */
final class RequestEncoder {
    private RequestEncoder() {
    }

    /**
     * Encodes into a buffer from {@code alloc} (the channel's pooled allocator, so the frame goes
     * to the socket without a copy). The caller owns the returned buffer.
     *
     * @throws RuntimeException whatever the body's codec throws (e.g. a string over 32767 bytes);
     *                          the buffer is released first
     */
    static ByteBuf encode(ByteBufAllocator alloc, ApiRequest<?> request, short version, int correlationId,
                          String clientId) {
        MessageSpec<?> spec = request.spec();
        ByteBuf buf = alloc.ioBuffer();
        try {
            int start = buf.writerIndex();
            buf.writeInt(0);
            new RequestHeader(spec.apiKey(), version, correlationId, clientId)
                    .write(buf, RequestHeader.headerVersion(spec.isFlexible(version)));
            request.write(buf, version);
            buf.setInt(start, buf.writerIndex() - start - 4);
            return buf;
        } catch (RuntimeException | Error e) {
            buf.release();
            throw e;
        }
    }
}
