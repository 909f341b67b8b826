package io.kflux.network;

import io.kflux.protocol.ApiKey;
import io.kflux.protocol.MalformedMessageException;
import io.kflux.protocol.MessageSpec;
import io.kflux.protocol.ResponseHeader;
import io.netty.buffer.ByteBuf;

/** Reads the body of one response frame whose correlation id was already matched to its request. */
final class ResponseDecoder {
    /** UNSUPPORTED_VERSION: the only error code this layer acts on itself (ApiVersions fallback). */
    static final short UNSUPPORTED_VERSION = 35;

    private ResponseDecoder() {
    }

    /**
     * Skips the response header and reads the body at {@code version}. Leaves the frame's
     * reference count alone: bodies may hold retained slices of it (record sets).
     *
     * @throws MalformedMessageException when the header or body is truncated or malformed
     */
    static <R> R decode(ByteBuf frame, ApiKey apiKey, MessageSpec<R> responseSpec, short version) {
        try {
            ResponseHeader.readCorrelationId(frame, ResponseHeader.headerVersion(apiKey, responseSpec.isFlexible(version)));
            return responseSpec.read(frame, bodyVersion(frame, apiKey, version));
        } catch (MalformedMessageException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new MalformedMessageException(apiKey + " v" + version + " response could not be decoded: " + e, e);
        }
    }

    /**
     * A broker asked for an ApiVersions version it does not know answers in the v0 layout, with
     * UNSUPPORTED_VERSION and its own range for ApiVersions (KIP-511), whatever version was asked.
     * The error code leads the body in every version, so it tells which layout to read.
     */
    private static short bodyVersion(ByteBuf frame, ApiKey apiKey, short version) {
        if (apiKey == ApiKey.API_VERSIONS && version > 0 && frame.readableBytes() >= 2
                && frame.getShort(frame.readerIndex()) == UNSUPPORTED_VERSION) {
            return 0;
        }
        return version;
    }
}
