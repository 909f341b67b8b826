package io.kflux.protocol.message;

import static io.kflux.protocol.Field.field;
import static io.kflux.protocol.Types.STRING;

import io.kflux.protocol.ApiKey;
import io.kflux.protocol.ApiRequest;
import io.kflux.protocol.MessageSpec;
import io.kflux.protocol.Schema;

/**
 * SaslHandshake request (api key 17), never flexible (KAFKA-9577). v1: the SASL tokens then travel
 * in SaslAuthenticate requests (v0 sent raw tokens, which kflux does not do).
 */
public record SaslHandshakeRequest(String mechanism) implements ApiRequest<SaslHandshakeResponse> {

    public static final MessageSpec<SaslHandshakeRequest> SPEC = MessageSpec.of(ApiKey.SASL_HANDSHAKE, 0, 1,
            Short.MAX_VALUE,
            Schema.of(SaslHandshakeRequest.class,
                    field("mechanism", STRING).defaultValue("")));

    @Override
    public MessageSpec<SaslHandshakeRequest> spec() {
        return SPEC;
    }

    @Override
    public MessageSpec<SaslHandshakeResponse> responseSpec() {
        return SaslHandshakeResponse.SPEC;
    }
}
