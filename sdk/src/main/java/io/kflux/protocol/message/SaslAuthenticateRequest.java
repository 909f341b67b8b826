package io.kflux.protocol.message;

import static io.kflux.protocol.Field.field;
import static io.kflux.protocol.Types.BYTES;

import io.kflux.protocol.ApiKey;
import io.kflux.protocol.ApiRequest;
import io.kflux.protocol.MessageSpec;
import io.kflux.protocol.Schema;

/** SaslAuthenticate request (api key 36): one SASL token from the client; flexible from v2. */
public record SaslAuthenticateRequest(byte[] authBytes) implements ApiRequest<SaslAuthenticateResponse> {

    public static final MessageSpec<SaslAuthenticateRequest> SPEC = MessageSpec.of(ApiKey.SASL_AUTHENTICATE, 0, 2, 2,
            Schema.of(SaslAuthenticateRequest.class,
                    field("authBytes", BYTES).defaultValue(new byte[0])));

    @Override
    public MessageSpec<SaslAuthenticateRequest> spec() {
        return SPEC;
    }

    @Override
    public MessageSpec<SaslAuthenticateResponse> responseSpec() {
        return SaslAuthenticateResponse.SPEC;
    }
}
