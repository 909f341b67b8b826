package io.kflux;

import java.nio.ByteBuffer;

/**
 * Turns the bytes of a record key or value into an object.
 *
 * <p>Contract:
 * <ul>
 *   <li>{@code data} is {@code null} when the key or value is null on the wire (length -1 in record format v2);
 *       most deserializers return {@code null} then.</li>
 *   <li>{@code data} holds exactly the key or value bytes between its position and limit. It is a view into the
 *       fetched buffer and is valid <em>only during the call</em>: the buffer is reused or released afterwards.
 *       A deserializer must not keep a reference to it (nor to a {@code duplicate()} or {@code slice()} of it);
 *       copy whatever it needs. Moving its position or limit is allowed and has no effect on the consumer.</li>
 *   <li>It is called from a single thread at a time per consumer, but may be called from different threads
 *       over time; a deserializer shared between consumers must be thread-safe.</li>
 *   <li>Throwing any exception makes the consumer fail {@code receive()} with
 *       {@link RecordDeserializationException} carrying the record's partition and offset (KIP-334); the
 *       position does not move past that record.</li>
 *   <li>{@link #close()} is called once when the consumer using it closes ({@link KafkaFluxConsumer#close()}), as
 *       the official client closes its deserializers; the key and value deserializer are closed separately unless
 *       they are the same instance. A deserializer holding resources therefore belongs to one consumer.</li>
 * </ul>
 *
 * @param <T> the produced type
 */
@FunctionalInterface
public interface Deserializer<T> {

    /**
     * Deserializes one key or value.
     *
     * @param topic   the record's topic
     * @param headers the record's headers (never {@code null}; may be {@link Headers#empty()})
     * @param data    the key or value bytes, or {@code null} for a null key or value; valid only during the call
     * @return the deserialized object, possibly {@code null}
     * @throws RuntimeException any, reported as {@link RecordDeserializationException}
     */
    T deserialize(String topic, Headers headers, ByteBuffer data);

    /**
     * Releases what the deserializer holds. Called once by {@link KafkaFluxConsumer#close()} (the first call of it),
     * after the last record was deserialized or once the close timeout passed; never called for a consumer that is
     * not closed. The default does nothing, which suits stateless deserializers such as {@link Deserializers}'.
     *
     * @throws RuntimeException any; logged at WARN, it does not fail {@code close()}
     */
    default void close() {
    }
}
