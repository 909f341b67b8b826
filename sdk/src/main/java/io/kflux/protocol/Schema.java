package io.kflux.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;

/**
 * A struct of the protocol bound to a Java record: the record's components, in order, are the
 * schema's fields, in order (checked when the schema is built). Reading builds the record through
 * its canonical constructor; writing reads the components through their accessors. This is the
 * one place that knows how versioned, tagged and flexible fields are laid out, so each message
 * class is only its field list.
 *
 * @param <T> the record type
 */
public final class Schema<T> implements Type<T> {
    private final Class<T> recordType;
    private final Field<Object>[] fields;
    private final Field<Object>[] taggedByTag;
    private final MethodHandle constructor;
    private final MethodHandle[] accessors;

    @SuppressWarnings("unchecked")
    private Schema(Class<T> recordType, Field<?>[] fields) {
        this.recordType = recordType;
        this.fields = (Field<Object>[]) fields.clone();
        RecordComponent[] components = recordType.getRecordComponents();
        if (components == null || components.length != fields.length) {
            throw new IllegalArgumentException(recordType.getName() + ": " + fields.length
                    + " fields for " + (components == null ? "a non-record" : components.length + " components"));
        }
        MethodHandles.Lookup lookup = MethodHandles.publicLookup();
        Class<?>[] componentTypes = new Class<?>[components.length];
        accessors = new MethodHandle[components.length];
        try {
            for (int i = 0; i < components.length; i++) {
                if (!components[i].getName().equals(fields[i].name)) {
                    throw new IllegalArgumentException(recordType.getName() + ": field " + i + " is '"
                            + fields[i].name + "' but the component is '" + components[i].getName() + "'");
                }
                componentTypes[i] = components[i].getType();
                accessors[i] = lookup.unreflect(components[i].getAccessor())
                        .asType(MethodType.methodType(Object.class, Object.class));
            }
            constructor = lookup.unreflectConstructor(recordType.getDeclaredConstructor(componentTypes))
                    .asType(MethodType.genericMethodType(components.length))
                    .asSpreader(Object[].class, components.length);
        } catch (ReflectiveOperationException e) {
            throw new IllegalArgumentException(recordType.getName() + " must be a public record", e);
        }
        this.taggedByTag = Arrays.stream(this.fields).filter(Field::tagged)
                .sorted(Comparator.comparingInt(f -> f.tag)).toArray(Field[]::new);
    }

    /** A schema for {@code recordType} whose fields are {@code fields} in component order. */
    public static <T extends Record> Schema<T> of(Class<T> recordType, Field<?>... fields) {
        return new Schema<>(recordType, fields);
    }

    public Class<T> recordType() {
        return recordType;
    }

    @Override
    public T read(ByteBuf buf, short version, boolean flexible) {
        Object[] args = new Object[fields.length];
        try {
            for (int i = 0; i < fields.length; i++) {
                Field<Object> f = fields[i];
                args[i] = !f.tagged() && f.presentIn(version) ? f.type.read(buf, version, flexible) : f.defaultValue;
            }
            if (flexible) {
                readTaggedFields(buf, version, args);
            }
        } catch (RuntimeException e) {
            // Record sets already read are retained slices of the frame: a half-read message must
            // give them back, or the frame leaks.
            for (Object arg : args) {
                ReferenceCounting.releaseAll(arg);
            }
            throw e;
        }
        return construct(args);
    }

    private void readTaggedFields(ByteBuf buf, short version, Object[] args) {
        int count = readTaggedFieldCount(buf);
        for (int n = 0; n < count; n++) {
            int tag = Varint.readUnsignedVarint(buf);
            int size = readTaggedFieldSize(buf, tag);
            int index = indexOfTag(tag, version);
            if (index < 0) {
                buf.skipBytes(size); // unknown tags are how newer peers add fields: skip them
                continue;
            }
            ByteBuf slice = buf.readSlice(size);
            args[index] = fields[index].type.read(slice, version, true);
            if (slice.isReadable()) {
                throw new MalformedMessageException("tagged field " + fields[index].name + " left "
                        + slice.readableBytes() + " bytes unread");
            }
        }
    }

    /** Reads the number of tagged fields that follow; each takes at least two bytes (tag, size). */
    static int readTaggedFieldCount(ByteBuf buf) {
        int count = Varint.readUnsignedVarint(buf);
        if (count < 0 || count > buf.readableBytes() / 2) {
            throw new MalformedMessageException(count + " tagged fields cannot fit in the " + buf.readableBytes()
                    + " bytes left");
        }
        return count;
    }

    /**
     * Reads the size of tagged field {@code tag} (its tag already read), refused unless the bytes are there: every
     * tagged field of a body or a header is sized here, so no size reaches a skip or a slice unchecked.
     */
    static int readTaggedFieldSize(ByteBuf buf, int tag) {
        int size = Varint.readUnsignedVarint(buf);
        if (size < 0 || size > buf.readableBytes()) {
            throw new MalformedMessageException("tagged field " + tag + " of " + size + " bytes exceeds the "
                    + buf.readableBytes() + " bytes left");
        }
        return size;
    }

    private int indexOfTag(int tag, short version) {
        for (int i = 0; i < fields.length; i++) {
            if (fields[i].tag == tag && fields[i].presentIn(version)) {
                return i;
            }
        }
        return -1;
    }

    @SuppressWarnings("unchecked")
    private T construct(Object[] args) {
        try {
            return (T) constructor.invokeExact(args);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) {
            throw new IllegalStateException(e);
        }
    }

    private Object get(T value, int i) {
        try {
            return accessors[i].invokeExact((Object) value);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void write(ByteBuf buf, T value, short version, boolean flexible) {
        for (int i = 0; i < fields.length; i++) {
            Field<Object> f = fields[i];
            if (!f.tagged() && f.presentIn(version)) {
                f.type.write(buf, get(value, i), version, flexible);
            }
        }
        if (flexible) {
            writeTaggedFields(buf, value, version);
        }
    }

    private void writeTaggedFields(ByteBuf buf, T value, short version) {
        List<Field<Object>> toWrite = new ArrayList<>(0);
        List<Object> values = new ArrayList<>(0);
        for (Field<Object> f : taggedByTag) {
            if (!f.presentIn(version)) {
                continue;
            }
            Object v = get(value, indexOf(f));
            if (!isDefault(v, f.defaultValue)) {
                toWrite.add(f);
                values.add(v);
            }
        }
        Varint.writeUnsignedVarint(buf, toWrite.size());
        for (int i = 0; i < toWrite.size(); i++) {
            Field<Object> f = toWrite.get(i);
            ByteBuf tmp = ByteBufAllocator.DEFAULT.heapBuffer();
            try {
                f.type.write(tmp, values.get(i), version, true);
                Varint.writeUnsignedVarint(buf, f.tag);
                Varint.writeUnsignedVarint(buf, tmp.readableBytes());
                buf.writeBytes(tmp);
            } finally {
                tmp.release();
            }
        }
    }

    private static boolean isDefault(Object v, Object defaultValue) {
        if (v instanceof byte[] a && defaultValue instanceof byte[] b) {
            return Arrays.equals(a, b);
        }
        if (v instanceof List<?> l && defaultValue == null) {
            return false;
        }
        if (v instanceof List<?> l && defaultValue instanceof List<?> d) {
            return l.equals(d);
        }
        return Objects.equals(v, defaultValue);
    }

    private int indexOf(Field<Object> f) {
        for (int i = 0; i < fields.length; i++) {
            if (fields[i] == f) {
                return i;
            }
        }
        throw new IllegalStateException();
    }

    /** A record of this schema with every field at its default: handy for defaults of nested structs. */
    public T defaults() {
        Object[] args = new Object[fields.length];
        for (int i = 0; i < fields.length; i++) {
            args[i] = fields[i].defaultValue;
        }
        return construct(args);
    }

    private volatile T defaults;

    /** A struct field absent in a version reads as a struct of defaults, as in the official client. */
    @Override
    public T defaultValue() {
        T d = defaults;
        if (d == null) {
            d = defaults();
            defaults = d;
        }
        return d;
    }
}
