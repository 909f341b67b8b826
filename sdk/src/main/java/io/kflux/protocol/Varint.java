package io.kflux.protocol;

import io.netty.buffer.ByteBuf;

/**
 * Variable-length integers of the Kafka protocol: unsigned varints (compact lengths, tagged
 * field headers) and zigzag-encoded signed varints/varlongs (record fields), as in protobuf.
 */
public final class Varint {
    private Varint() {
    }

    public static int readUnsignedVarint(ByteBuf buf) {
        int value = 0;
        for (int shift = 0; shift < 35; shift += 7) {
            byte b = buf.readByte();
            value |= (b & 0x7f) << shift;
            if ((b & 0x80) == 0) {
                return value;
            }
        }
        throw new MalformedMessageException("varint is longer than 5 bytes");
    }

    public static void writeUnsignedVarint(ByteBuf buf, int value) {
        while ((value & 0xffffff80) != 0) {
            buf.writeByte((value & 0x7f) | 0x80);
            value >>>= 7;
        }
        buf.writeByte(value);
    }

    public static int readVarint(ByteBuf buf) {
        int raw = readUnsignedVarint(buf);
        return (raw >>> 1) ^ -(raw & 1);
    }

    public static void writeVarint(ByteBuf buf, int value) {
        writeUnsignedVarint(buf, (value << 1) ^ (value >> 31));
    }

    public static long readVarlong(ByteBuf buf) {
        long raw = 0;
        for (int shift = 0; shift < 70; shift += 7) {
            byte b = buf.readByte();
            raw |= (long) (b & 0x7f) << shift;
            if ((b & 0x80) == 0) {
                return (raw >>> 1) ^ -(raw & 1);
            }
        }
        throw new MalformedMessageException("varlong is longer than 10 bytes");
    }

    public static void writeVarlong(ByteBuf buf, long value) {
        long v = (value << 1) ^ (value >> 63);
        while ((v & 0xffffffffffffff80L) != 0L) {
            buf.writeByte(((int) v & 0x7f) | 0x80);
            v >>>= 7;
        }
        buf.writeByte((int) v);
    }

    /** Bytes {@link #writeUnsignedVarint} uses for {@code value}. */
    public static int sizeOfUnsignedVarint(int value) {
        int bytes = 1;
        while ((value & 0xffffff80) != 0) {
            bytes++;
            value >>>= 7;
        }
        return bytes;
    }
}
