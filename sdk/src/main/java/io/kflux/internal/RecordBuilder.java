package io.kflux.internal;

import io.kflux.ConsumerRecord;
import io.kflux.DeserializationErrorHandler;
import io.kflux.Deserializer;
import io.kflux.Deserializers;
import io.kflux.Header;
import io.kflux.Headers;
import io.kflux.RecordDeserializationException;
import io.kflux.TimestampType;
import io.kflux.TopicPartition;
import io.kflux.protocol.record.HeaderSection;
import io.kflux.protocol.record.RecordCursor;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.function.Function;

/**
 * Builds the public {@link ConsumerRecord} of the record a {@link RecordCursor} is at: headers copied out of the
 * batch (decoded when read), key and value deserialized from views of the batch's bytes (the built-in byte[] and
 * String deserializers' work read from the batch's array directly), and a deserializer's failure handed to the
 * {@link DeserializationErrorHandler}. Moves no position: the caller passes a record over or on as the answer says.
 * Runs on the emitter's worker only (its views are reused from record to record).
 */
final class RecordBuilder<K, V> {
    private final Deserializer<K> keyDeserializer;
    private final Deserializer<V> valueDeserializer;
    private final DeserializationErrorHandler deserializationErrorHandler;
    /** The handle of the records built now: their assignment's ({@link #attach}), set per fetched result. */
    private AckHandle ackHandle;
    /** The key deserializer's work read straight from the batch's array, or null: {@link #direct}. */
    private final Direct<K> directKey;
    private final Direct<V> directValue;
    private ByteBuffer keyView = ByteBuffer.allocate(0);
    private ByteBuffer valueView = ByteBuffer.allocate(0);

    RecordBuilder(Deserializer<K> keyDeserializer, Deserializer<V> valueDeserializer,
                  DeserializationErrorHandler deserializationErrorHandler, AckHandle ackHandle) {
        this.keyDeserializer = keyDeserializer;
        this.valueDeserializer = valueDeserializer;
        this.deserializationErrorHandler = deserializationErrorHandler;
        this.ackHandle = ackHandle;
        this.directKey = direct(keyDeserializer);
        this.directValue = direct(valueDeserializer);
    }

    /** Records built from now on carry {@code acks}: the handle of the assignment the next result belongs to. */
    void attach(AckHandle acks) {
        this.ackHandle = acks;
    }

    /** A built-in deserializer's result computed from {@code [offset, offset+length)} of the batch's array. */
    @FunctionalInterface
    interface Direct<T> {
        T read(byte[] array, int offset, int length);
    }

    /**
     * For {@link Deserializers#byteArray()} and {@link Deserializers#string()} (the deserializers most consumers run,
     * the suite's among them), the same result read straight from the array: no view to re-point and no buffer bounds
     * checks per record (issue #28). Any other deserializer, or a null key or value, gets the view as always.
     */
    @SuppressWarnings("unchecked")
    static <T> Direct<T> direct(Deserializer<T> deserializer) {
        if (deserializer == (Object) Deserializers.byteArray()) {
            return (array, offset, length) -> (T) Arrays.copyOfRange(array, offset, offset + length);
        }
        if (deserializer == (Object) Deserializers.string()) {
            return (array, offset, length) -> (T) new String(array, offset, length, StandardCharsets.UTF_8);
        }
        return null;
    }

    /**
     * The record at {@code cursor}, attached to the {@link AckHandle} last {@link #attach attached}.
     *
     * @param timestampType the timestamp type of the cursor's batch
     * @param leaderEpoch   the partition leader epoch of the cursor's batch, -1 unknown
     * @return the record, or null when a deserializer failed and the handler chose to skip the record
     * @throws RecordDeserializationException when a deserializer failed and the handler did not skip the record (also
     *         when the handler threw: added as suppressed)
     */
    ConsumerRecord<K, V> build(TopicPartition tp, RecordCursor cursor, TimestampType timestampType, int leaderEpoch) {
        long offset = cursor.offset();
        Headers headers = cursor.headerCount() == 0 ? Headers.empty() : headers(cursor);
        int keyLength = cursor.keyLength();
        int valueLength = cursor.valueLength();
        K key;
        V value;
        try {
            if (keyLength >= 0 && directKey != null) {
                key = directKey.read(cursor.keyArray(), cursor.keyOffset(), keyLength);
            } else {
                key = keyDeserializer.deserialize(tp.topic(), headers,
                        keyLength < 0 ? null : keyView(cursor.keyArray(), cursor.keyOffset(), keyLength));
            }
        } catch (Throwable t) {
            return poisoned(tp, cursor, timestampType, RecordDeserializationException.Origin.KEY, t, headers);
        }
        try {
            if (valueLength >= 0 && directValue != null) {
                value = directValue.read(cursor.valueArray(), cursor.valueOffset(), valueLength);
            } else {
                value = valueDeserializer.deserialize(tp.topic(), headers,
                        valueLength < 0 ? null : valueView(cursor.valueArray(), cursor.valueOffset(), valueLength));
            }
        } catch (Throwable t) {
            return poisoned(tp, cursor, timestampType, RecordDeserializationException.Origin.VALUE, t, headers);
        }
        return Records.attached(tp, offset, cursor.timestamp(), timestampType, key, value, headers, leaderEpoch,
                keyLength, valueLength, ackHandle);
    }

    /**
     * A deserializer threw for the cursor's record: the handler decides. Skipped, the caller passes it over as
     * consumed, so it never holds commits back; else the flux fails with the error and the position stays at the
     * record.
     *
     * @return null when skipped
     * @throws RecordDeserializationException when not skipped (also when the handler threw: added as suppressed)
     */
    private ConsumerRecord<K, V> poisoned(TopicPartition tp, RecordCursor cursor, TimestampType timestampType,
                                          RecordDeserializationException.Origin origin, Throwable cause,
                                          Headers headers) {
        // copies: the cursor's arrays are reused for the next records (and pooled after decompression)
        RecordDeserializationException error = new RecordDeserializationException(tp, cursor.offset(), origin,
                cause, copy(cursor.keyArray(), cursor.keyOffset(), cursor.keyLength()),
                copy(cursor.valueArray(), cursor.valueOffset(), cursor.valueLength()), headers, cursor.timestamp(),
                timestampType);
        DeserializationErrorHandler.Decision decision;
        try {
            decision = deserializationErrorHandler.handle(error);
        } catch (Throwable t) {
            error.addSuppressed(t);
            throw error;
        }
        if (decision != DeserializationErrorHandler.Decision.SKIP) {
            throw error;
        }
        return null;
    }

    /** The bytes at {@code [offset, offset+length)}, or null for length -1 (a null key or value). */
    private static byte[] copy(byte[] array, int offset, int length) {
        return length < 0 ? null : Arrays.copyOfRange(array, offset, offset + length);
    }

    // One view per array instead of a ByteBuffer per record: deserializers must not keep `data`.
    private ByteBuffer keyView(byte[] array, int offset, int length) {
        keyView = view(keyView, array, offset, length);
        return keyView;
    }

    private ByteBuffer valueView(byte[] array, int offset, int length) {
        valueView = view(valueView, array, offset, length);
        return valueView;
    }

    /** Points {@code view} (re-wrapped only when the cursor moved to another array) at {@code [offset, offset+length)}. */
    private static ByteBuffer view(ByteBuffer view, byte[] array, int offset, int length) {
        ByteBuffer v = view.hasArray() && view.array() == array ? view : ByteBuffer.wrap(array);
        v.clear().position(offset).limit(offset + length);
        return v;
    }

    /**
     * The cursor's headers copied out of the batch in one array (so they stay valid after the batch's buffer is
     * released or its decompression array reused) and decoded into {@link Header}s only when the application reads
     * them (issue #28: building a key string and a value array per header for every record was a quarter of the
     * emit thread on a record with three headers, and most consumers never read them).
     */
    private static Headers headers(RecordCursor cursor) {
        return Records.headers(cursor.headerCount(), cursor.copyHeaderSection(), HeaderDecoder.INSTANCE);
    }

    /** Decodes a header section; stateless, one for every record, so a record carries no decoder of its own. */
    private static final class HeaderDecoder implements Function<byte[], Header[]> {
        static final HeaderDecoder INSTANCE = new HeaderDecoder();

        @Override
        public Header[] apply(byte[] section) {
            Header[] headers = new Header[HeaderSection.count(section)];
            HeaderSection.forEach(section, (index, key, value) -> headers[index] = new Header(key, value));
            return headers;
        }
    }
}
