package io.kflux.internal;

import io.kflux.ConsumerRecord;
import io.kflux.Header;
import io.kflux.Headers;
import io.kflux.RecordBatch;
import io.kflux.TimestampType;
import io.kflux.TopicPartition;
import java.util.function.Function;

/**
 * Creates records attached to a consumer (their {@code acknowledge()} and {@code commit()} reach its
 * {@link AckHandle}). Not API: {@link ConsumerRecord}'s public constructors make detached records only, so that the
 * public package hands no internal type to users; the attaching constructor is private and reached through the
 * {@link Factory} {@code ConsumerRecord} registers when its class is initialized (the JDK's "shared secrets" way of
 * granting one package access to another's private constructor).
 */
public final class Records {
    /** Set once by {@code ConsumerRecord}'s static initializer. */
    private static volatile Factory factory;

    private Records() {
    }

    /**
     * Runs ConsumerRecord's static initializer, which registers its factory. Not from a static initializer of this
     * class: two threads initializing the two classes in opposite order would deadlock.
     */
    private static Factory initialized() {
        try {
            Class.forName(ConsumerRecord.class.getName(), true, ConsumerRecord.class.getClassLoader());
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException(e);
        }
        return factory;
    }

    /** ConsumerRecord's attaching constructor. */
    public interface Factory {
        <K, V> ConsumerRecord<K, V> create(TopicPartition tp, long offset, long timestamp, TimestampType timestampType,
                                           K key, V value, Headers headers, int leaderEpoch, int serializedKeySize,
                                           int serializedValueSize, AckHandle ackHandle);

        /** Headers decoded from {@code section} by {@code decoder} when first read; see {@link #headers}. */
        Headers headers(int size, byte[] section, Function<byte[], Header[]> decoder);

        /** A batch of the first {@code size} records of {@code owned}, unchecked and uncopied; see {@link #batch}. */
        <K, V> RecordBatch<K, V> batch(TopicPartition tp, ConsumerRecord<K, V>[] owned, int size);
    }

    /**
     * Called by {@code ConsumerRecord} only.
     *
     * @throws IllegalStateException when a factory is registered already
     */
    public static synchronized void register(Factory f) {
        if (factory != null) {
            throw new IllegalStateException("the record factory is registered already");
        }
        factory = f;
    }

    /**
     * A record's {@code size} headers kept in wire form and decoded when first read (issue #28): {@code decoder}
     * turns {@code section} into exactly {@code size} headers, none null, and is shared and stateless; the caller
     * never touches {@code section} again.
     */
    public static Headers headers(int size, byte[] section, Function<byte[], Header[]> decoder) {
        Factory f = factory;
        if (f == null) {
            f = initialized();
        }
        return f.headers(size, section, decoder);
    }

    /**
     * The batch {@code receiveBatches()} hands over: the first {@code size} records of {@code owned} as an unmodifiable
     * list over the array itself, without {@link RecordBatch}'s public constructor's checks. The caller (the emitter)
     * guarantees what those check: {@code size >= 1}, no null, every record of {@code tp}, offsets increasing; and it
     * never touches the array again.
     */
    public static <K, V> RecordBatch<K, V> batch(TopicPartition tp, ConsumerRecord<K, V>[] owned, int size) {
        Factory f = factory;
        if (f == null) {
            f = initialized();
        }
        return f.batch(tp, owned, size);
    }

    /** A record whose acknowledge()/commit() go to {@code ackHandle} (null: detached); arguments as the constructor's. */
    public static <K, V> ConsumerRecord<K, V> attached(TopicPartition tp, long offset, long timestamp,
                                                       TimestampType timestampType, K key, V value, Headers headers,
                                                       int leaderEpoch, int serializedKeySize, int serializedValueSize,
                                                       AckHandle ackHandle) {
        Factory f = factory;
        if (f == null) {
            f = initialized();
        }
        return f.create(tp, offset, timestamp, timestampType, key, value, headers, leaderEpoch,
                serializedKeySize, serializedValueSize, ackHandle);
    }
}
