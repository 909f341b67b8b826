package io.kflux.protocol;

import io.netty.buffer.ByteBuf;

/**
 * A top-level request or response body: its API key, the versions kflux can code (a subrange of
 * the spec's validVersions: what Kafka 3.x-4.x brokers accept), the first flexible version
 * (KIP-482), and its schema.
 *
 * @param <T> the message record type
 */
public record MessageSpec<T>(ApiKey apiKey, short lowestVersion, short highestVersion, short firstFlexibleVersion,
                             Schema<T> schema) {

    /** {@code firstFlexible} is {@link Short#MAX_VALUE} for messages with no flexible version. */
    public static <T> MessageSpec<T> of(ApiKey apiKey, int lowest, int highest, int firstFlexible, Schema<T> schema) {
        return new MessageSpec<>(apiKey, (short) lowest, (short) highest, (short) firstFlexible, schema);
    }

    public boolean isFlexible(short version) {
        return version >= firstFlexibleVersion;
    }

    public boolean supports(short version) {
        return version >= lowestVersion && version <= highestVersion;
    }

    public void write(ByteBuf buf, T message, short version) {
        if (!supports(version)) {
            throw new IllegalArgumentException(apiKey + " v" + version + " is outside kflux's " + lowestVersion + "-" + highestVersion);
        }
        schema.write(buf, message, version, isFlexible(version));
    }

    /**
     * Reads a body of {@code version}.
     *
     * @throws MalformedMessageException when the bytes are truncated or malformed
     */
    public T read(ByteBuf buf, short version) {
        try {
            return schema.read(buf, version, isFlexible(version));
        } catch (IndexOutOfBoundsException e) {
            throw new MalformedMessageException(apiKey + " v" + version + " body is truncated", e);
        }
    }
}
