package io.kflux.protocol.message;

import static io.kflux.protocol.Field.field;
import static io.kflux.protocol.Types.INT16;
import static io.kflux.protocol.Types.STRING;
import static io.kflux.protocol.Types.array;

import io.kflux.protocol.ApiKey;
import io.kflux.protocol.MessageSpec;
import io.kflux.protocol.Schema;
import java.util.List;

/** SaslHandshake response: the mechanisms the broker has enabled (UNSUPPORTED_SASL_MECHANISM otherwise). */
public record SaslHandshakeResponse(short errorCode, List<String> mechanisms) {

    public static final MessageSpec<SaslHandshakeResponse> SPEC = MessageSpec.of(ApiKey.SASL_HANDSHAKE, 0, 1,
            Short.MAX_VALUE,
            Schema.of(SaslHandshakeResponse.class,
                    field("errorCode", INT16),
                    field("mechanisms", array(STRING))));
}
