package io.kflux.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.UUID;

/**
 * The protocol's primitive types (see the "Protocol Primitive Types" section of the Kafka
 * protocol guide). Strings, bytes and arrays accept null: nullable and non-nullable forms share
 * one encoding except for the null marker, so one type serves both and the schema's
 * nullableVersions need no separate type.
 */
public final class Types {
    private Types() {
    }

    public static final Type<Boolean> BOOLEAN = new Type<>() {
        @Override public Boolean read(ByteBuf buf, short v, boolean f) {
            return buf.readByte() != 0;
        }

        @Override public void write(ByteBuf buf, Boolean value, short v, boolean f) {
            buf.writeByte(value ? 1 : 0);
        }

        @Override public Boolean defaultValue() {
            return Boolean.FALSE;
        }
    };

    public static final Type<Byte> INT8 = new Type<>() {
        @Override public Byte read(ByteBuf buf, short v, boolean f) {
            return buf.readByte();
        }

        @Override public void write(ByteBuf buf, Byte value, short v, boolean f) {
            buf.writeByte(value);
        }

        @Override public Byte defaultValue() {
            return 0;
        }
    };

    public static final Type<Short> INT16 = new Type<>() {
        @Override public Short read(ByteBuf buf, short v, boolean f) {
            return buf.readShort();
        }

        @Override public void write(ByteBuf buf, Short value, short v, boolean f) {
            buf.writeShort(value);
        }

        @Override public Short defaultValue() {
            return 0;
        }
    };

    public static final Type<Integer> UINT16 = new Type<>() {
        @Override public Integer read(ByteBuf buf, short v, boolean f) {
            return buf.readUnsignedShort();
        }

        @Override public void write(ByteBuf buf, Integer value, short v, boolean f) {
            buf.writeShort(value);
        }

        @Override public Integer defaultValue() {
            return 0;
        }
    };

    public static final Type<Integer> INT32 = new Type<>() {
        @Override public Integer read(ByteBuf buf, short v, boolean f) {
            return buf.readInt();
        }

        @Override public void write(ByteBuf buf, Integer value, short v, boolean f) {
            buf.writeInt(value);
        }

        @Override public Integer defaultValue() {
            return 0;
        }
    };

    public static final Type<Long> INT64 = new Type<>() {
        @Override public Long read(ByteBuf buf, short v, boolean f) {
            return buf.readLong();
        }

        @Override public void write(ByteBuf buf, Long value, short v, boolean f) {
            buf.writeLong(value);
        }

        @Override public Long defaultValue() {
            return 0L;
        }
    };

    public static final Type<Double> FLOAT64 = new Type<>() {
        @Override public Double read(ByteBuf buf, short v, boolean f) {
            return buf.readDouble();
        }

        @Override public void write(ByteBuf buf, Double value, short v, boolean f) {
            buf.writeDouble(value);
        }

        @Override public Double defaultValue() {
            return 0.0;
        }
    };

    /** Kafka's UUID: 16 bytes, most significant long first; the zero UUID means "none". */
    public static final UUID ZERO_UUID = new UUID(0L, 0L);

    /** Whether {@code id} is absent or the zero UUID, which the protocol uses for "no topic id". */
    public static boolean isZero(UUID id) {
        return id == null || ZERO_UUID.equals(id);
    }

    public static final Type<UUID> UUID_TYPE = new Type<>() {
        @Override public UUID read(ByteBuf buf, short v, boolean f) {
            long msb = buf.readLong();
            long lsb = buf.readLong();
            return msb == 0L && lsb == 0L ? ZERO_UUID : new UUID(msb, lsb);
        }

        @Override public void write(ByteBuf buf, UUID value, short v, boolean f) {
            UUID u = value == null ? ZERO_UUID : value;
            buf.writeLong(u.getMostSignificantBits());
            buf.writeLong(u.getLeastSignificantBits());
        }

        @Override public UUID defaultValue() {
            return ZERO_UUID;
        }
    };

    /** A length (-1 for null): int16/int32 in classic versions, unsigned varint of length+1 in flexible ones. */
    static int readLength(ByteBuf buf, boolean flexible, boolean shortLength) {
        int len = flexible ? Varint.readUnsignedVarint(buf) - 1 : shortLength ? buf.readShort() : buf.readInt();
        if (len < -1) {
            throw new MalformedMessageException("negative length " + len);
        }
        if (len > buf.readableBytes() && !shortLength) {
            throw new MalformedMessageException("length " + len + " exceeds the " + buf.readableBytes() + " bytes left");
        }
        return len;
    }

    static void writeLength(ByteBuf buf, int len, boolean flexible, boolean shortLength) {
        if (flexible) {
            Varint.writeUnsignedVarint(buf, len + 1);
        } else if (shortLength) {
            buf.writeShort(len);
        } else {
            buf.writeInt(len);
        }
    }

    public static final Type<String> STRING = new Type<>() {
        @Override public String read(ByteBuf buf, short v, boolean f) {
            int len = readLength(buf, f, true);
            if (len < 0) {
                return null;
            }
            if (len > buf.readableBytes()) {
                throw new MalformedMessageException("string length " + len + " exceeds the " + buf.readableBytes() + " bytes left");
            }
            String s = buf.toString(buf.readerIndex(), len, StandardCharsets.UTF_8);
            buf.skipBytes(len);
            return s;
        }

        @Override public void write(ByteBuf buf, String value, short v, boolean f) {
            if (value == null) {
                writeLength(buf, -1, f, true);
                return;
            }
            byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
            if (bytes.length > Short.MAX_VALUE) {
                throw new IllegalArgumentException("string of " + bytes.length + " bytes is longer than 32767");
            }
            writeLength(buf, bytes.length, f, true);
            buf.writeBytes(bytes);
        }

        @Override public String defaultValue() {
            return null;
        }
    };

    public static final Type<byte[]> BYTES = new Type<>() {
        @Override public byte[] read(ByteBuf buf, short v, boolean f) {
            int len = readLength(buf, f, false);
            if (len < 0) {
                return null;
            }
            byte[] bytes = new byte[len];
            buf.readBytes(bytes);
            return bytes;
        }

        @Override public void write(ByteBuf buf, byte[] value, short v, boolean f) {
            if (value == null) {
                writeLength(buf, -1, f, false);
            } else {
                writeLength(buf, value.length, f, false);
                buf.writeBytes(value);
            }
        }

        @Override public byte[] defaultValue() {
            return null;
        }
    };

    /**
     * A record set: read as a retained slice of the frame (no copy), so whoever reads a message
     * holding one must release it (see {@code FetchResponse}). Null reads as an empty buffer.
     */
    public static final Type<ByteBuf> RECORDS = new Type<>() {
        @Override public ByteBuf read(ByteBuf buf, short v, boolean f) {
            int len = readLength(buf, f, false);
            return len <= 0 ? Unpooled.EMPTY_BUFFER : buf.readRetainedSlice(len);
        }

        @Override public void write(ByteBuf buf, ByteBuf value, short v, boolean f) {
            if (value == null) {
                writeLength(buf, -1, f, false);
            } else {
                writeLength(buf, value.readableBytes(), f, false);
                buf.writeBytes(value, value.readerIndex(), value.readableBytes());
            }
        }

        @Override public ByteBuf defaultValue() {
            return null;
        }
    };

    /**
     * A struct that may be null, as the Kafka generator writes one: an int8 -1 for null, 1 followed by the struct
     * otherwise; any other marker is malformed. Default: null.
     */
    public static <T> Type<T> nullableStruct(Schema<T> schema) {
        return new NullableStruct<>(schema);
    }

    private record NullableStruct<T>(Schema<T> schema) implements Type<T> {
        @Override public T read(ByteBuf buf, short version, boolean flexible) {
            byte marker = buf.readByte();
            if (marker < 0) {
                return null;
            }
            if (marker != 1) {
                throw new MalformedMessageException("nullable struct marker " + marker + " is neither -1 nor 1");
            }
            return schema.read(buf, version, flexible);
        }

        @Override public void write(ByteBuf buf, T value, short version, boolean flexible) {
            if (value == null) {
                buf.writeByte(-1);
            } else {
                buf.writeByte(1);
                schema.write(buf, value, version, flexible);
            }
        }

        @Override public T defaultValue() {
            return null;
        }
    }

    /** An array of {@code element}; null arrays (length -1) read as null. Default: empty list. */
    public static <E> Type<List<E>> array(Type<E> element) {
        return new ArrayType<>(element, Collections.emptyList());
    }

    /** As {@link #array} but absent in a version means null rather than empty. */
    public static <E> Type<List<E>> nullableArray(Type<E> element) {
        return new ArrayType<>(element, null);
    }

    private record ArrayType<E>(Type<E> element, List<E> defaultValue) implements Type<List<E>> {
        @Override public List<E> read(ByteBuf buf, short version, boolean flexible) {
            int len = flexible ? Varint.readUnsignedVarint(buf) - 1 : buf.readInt();
            if (len < 0) {
                if (len == -1) {
                    return null;
                }
                throw new MalformedMessageException("negative array length " + len);
            }
            if (len > buf.readableBytes()) {
                // Every element takes at least one byte; a larger count is garbage, not a big array.
                throw new MalformedMessageException("array length " + len + " exceeds the " + buf.readableBytes() + " bytes left");
            }
            List<E> list = new ArrayList<>(len);
            try {
                for (int i = 0; i < len; i++) {
                    list.add(element.read(buf, version, flexible));
                }
            } catch (RuntimeException e) {
                ReferenceCounting.releaseAll(list);
                throw e;
            }
            return list;
        }

        @Override public void write(ByteBuf buf, List<E> value, short version, boolean flexible) {
            if (value == null) {
                writeLength(buf, -1, flexible, false);
                return;
            }
            writeLength(buf, value.size(), flexible, false);
            for (E e : value) {
                element.write(buf, e, version, flexible);
            }
        }
    }
}
