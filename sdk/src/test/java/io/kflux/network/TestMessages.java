package io.kflux.network;

import static io.kflux.protocol.Field.field;
import static io.kflux.protocol.Types.INT16;
import static io.kflux.protocol.Types.INT32;
import static io.kflux.protocol.Types.RECORDS;
import static io.kflux.protocol.Types.STRING;

import io.kflux.protocol.ApiKey;
import io.kflux.protocol.ApiRequest;
import io.kflux.protocol.MessageSpec;
import io.kflux.protocol.Schema;
import io.netty.buffer.ByteBuf;

/**
 * Messages that exist only between the tests and the fake broker: real API keys with tiny schemas,
 * so the network layer is tested without depending on the real message classes.
 */
public final class TestMessages {
    private TestMessages() {
    }

    /** An echo request under the HEARTBEAT key; flexible from v4 like the real one. */
    public record PingRequest(int value, String text) implements ApiRequest<PingResponse> {
        static final MessageSpec<PingRequest> SPEC = MessageSpec.of(ApiKey.HEARTBEAT, 0, 4, 4,
                Schema.of(PingRequest.class, field("value", INT32), field("text", STRING)));

        @Override
        public MessageSpec<PingRequest> spec() {
            return SPEC;
        }

        @Override
        public MessageSpec<PingResponse> responseSpec() {
            return PingResponse.SPEC;
        }
    }

    public record PingResponse(short errorCode, int value, String text) {
        static final MessageSpec<PingResponse> SPEC = MessageSpec.of(ApiKey.HEARTBEAT, 0, 4, 4,
                Schema.of(PingResponse.class, field("errorCode", INT16), field("value", INT32), field("text", STRING)));
    }

    /** Asks for {@code size} bytes of record data under the FETCH key (classic versions only). */
    public record BlobRequest(int size) implements ApiRequest<BlobResponse> {
        static final MessageSpec<BlobRequest> SPEC = MessageSpec.of(ApiKey.FETCH, 0, 2, Short.MAX_VALUE,
                Schema.of(BlobRequest.class, field("size", INT32)));

        @Override
        public MessageSpec<BlobRequest> spec() {
            return SPEC;
        }

        @Override
        public MessageSpec<BlobResponse> responseSpec() {
            return BlobResponse.SPEC;
        }
    }

    public record BlobResponse(short errorCode, ByteBuf records) {
        static final MessageSpec<BlobResponse> SPEC = MessageSpec.of(ApiKey.FETCH, 0, 2, Short.MAX_VALUE,
                Schema.of(BlobResponse.class, field("errorCode", INT16), field("records", RECORDS)));
    }
}
