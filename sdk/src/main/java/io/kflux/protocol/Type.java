package io.kflux.protocol;

import io.netty.buffer.ByteBuf;

/**
 * How one field value travels on the wire. {@code flexible} is true for the message versions the
 * schema declares flexible (KIP-482): strings, bytes and arrays then use compact (varint) lengths
 * and structs end with a tagged-field section. {@code version} lets nested structs pick their
 * fields for the message version being coded.
 *
 * @param <T> the Java type of the value; reference types may be null where the protocol allows
 */
public interface Type<T> {
    T read(ByteBuf buf, short version, boolean flexible);

    void write(ByteBuf buf, T value, short version, boolean flexible);

    /** The value a field of this type takes in versions where it is absent. */
    T defaultValue();
}
