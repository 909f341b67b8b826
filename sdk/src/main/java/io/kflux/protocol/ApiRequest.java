package io.kflux.protocol;

import io.netty.buffer.ByteBuf;

/**
 * A request body record, which knows its own spec and the spec of the response it gets. The
 * network layer picks the version (the highest both kflux and the broker support), writes the
 * header and this body, and reads the answer with {@link #responseSpec()}.
 *
 * @param <R> the response record type
 */
public interface ApiRequest<R> {
    MessageSpec<? extends ApiRequest<R>> spec();

    MessageSpec<R> responseSpec();

    default ApiKey apiKey() {
        return spec().apiKey();
    }

    /**
     * The highest version this request can be written at, at most {@code spec().highestVersion()}. A request
     * that names topics by id in newer versions (OffsetCommit/OffsetFetch v10, Fetch v13+) caps itself below
     * them while one of its topic ids is unknown (the zero UUID), so a zero id never leaves the client; the
     * official client makes the same choice. Callers look ids up in metadata first, so this is the fallback
     * for a topic metadata does not know (deleted) or a broker that has no ids.
     */
    default short maxVersion() {
        return spec().highestVersion();
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    default void write(ByteBuf buf, short version) {
        ((MessageSpec) spec()).write(buf, this, version);
    }
}
