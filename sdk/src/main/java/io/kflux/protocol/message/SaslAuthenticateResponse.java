package io.kflux.protocol.message;

import static io.kflux.protocol.Field.field;
import static io.kflux.protocol.Types.BYTES;
import static io.kflux.protocol.Types.INT16;
import static io.kflux.protocol.Types.INT64;
import static io.kflux.protocol.Types.STRING;

import io.kflux.protocol.ApiKey;
import io.kflux.protocol.MessageSpec;
import io.kflux.protocol.Schema;

/**
 * SaslAuthenticate response: the server's token; from v1 the session lifetime (KIP-368: 0 means
 * no re-authentication required).
 */
public record SaslAuthenticateResponse(short errorCode, String errorMessage, byte[] authBytes, long sessionLifetimeMs) {

    public static final MessageSpec<SaslAuthenticateResponse> SPEC = MessageSpec.of(ApiKey.SASL_AUTHENTICATE, 0, 2, 2,
            Schema.of(SaslAuthenticateResponse.class,
                    field("errorCode", INT16),
                    field("errorMessage", STRING).defaultValue(""),
                    field("authBytes", BYTES).defaultValue(new byte[0]),
                    field("sessionLifetimeMs", INT64).versions(1)));
}
