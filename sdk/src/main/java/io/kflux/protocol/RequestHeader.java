package io.kflux.protocol;

import io.netty.buffer.ByteBuf;

/**
 * Request header v1 (classic bodies) or v2 (flexible bodies: adds a tagged-field section).
 * {@code clientId} is a classic nullable string in both versions, as the spec says.
 */
public record RequestHeader(ApiKey apiKey, short apiVersion, int correlationId, String clientId) {

    public static short headerVersion(boolean flexibleBody) {
        return (short) (flexibleBody ? 2 : 1);
    }

    public void write(ByteBuf buf, short headerVersion) {
        buf.writeShort(apiKey.id);
        buf.writeShort(apiVersion);
        buf.writeInt(correlationId);
        Types.STRING.write(buf, clientId, apiVersion, false);
        if (headerVersion >= 2) {
            Varint.writeUnsignedVarint(buf, 0);
        }
    }

    public static RequestHeader read(ByteBuf buf) {
        short key = buf.readShort();
        ApiKey apiKey = ApiKey.forId(key);
        if (apiKey == null) {
            throw new MalformedMessageException("unknown api key " + key);
        }
        return new RequestHeader(apiKey, buf.readShort(), buf.readInt(), Types.STRING.read(buf, (short) 0, false));
    }
}
