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

    @SuppressWarnings({"unchecked", "rawtypes"})
    default void write(ByteBuf buf, short version) {
        ((MessageSpec) spec()).write(buf, this, version);
    }
}
