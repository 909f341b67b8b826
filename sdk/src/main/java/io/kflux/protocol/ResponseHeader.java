package io.kflux.protocol;

import io.netty.buffer.ByteBuf;

/**
 * Response header v0 (correlation id) or v1 (plus tagged fields, for flexible bodies). ApiVersions
 * responses always use v0 so that a client can read the answer whatever version it asked for.
 */
public final class ResponseHeader {
    private ResponseHeader() {
    }

    public static short headerVersion(ApiKey apiKey, boolean flexibleBody) {
        return (short) (flexibleBody && apiKey != ApiKey.API_VERSIONS ? 1 : 0);
    }

    /** Reads the correlation id and skips the header's tagged fields; the buffer is left at the body. */
    public static int readCorrelationId(ByteBuf buf, short headerVersion) {
        int correlationId = buf.readInt();
        if (headerVersion >= 1) {
            int count = Schema.readTaggedFieldCount(buf);
            for (int i = 0; i < count; i++) {
                int tag = Varint.readUnsignedVarint(buf);
                buf.skipBytes(Schema.readTaggedFieldSize(buf, tag));
            }
        }
        return correlationId;
    }

    public static void write(ByteBuf buf, int correlationId, short headerVersion) {
        buf.writeInt(correlationId);
        if (headerVersion >= 1) {
            Varint.writeUnsignedVarint(buf, 0);
        }
    }
}
