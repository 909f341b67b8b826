package io.kflux.protocol.message;

import static io.kflux.protocol.Field.field;
import static io.kflux.protocol.Types.BOOLEAN;
import static io.kflux.protocol.Types.BYTES;
import static io.kflux.protocol.Types.INT32;
import static io.kflux.protocol.Types.INT8;
import static io.kflux.protocol.Types.UUID_TYPE;

import io.kflux.protocol.ApiKey;
import io.kflux.protocol.ApiRequest;
import io.kflux.protocol.MessageSpec;
import io.kflux.protocol.Schema;
import java.util.UUID;

/**
 * PushTelemetry request (api key 72, KIP-714), flexible; v0 is the only version up to Kafka 4.4. {@code metrics} is
 * an OTLP {@code MetricsData} protobuf, compressed with {@code compressionType} (record-batch compression id).
 * {@code terminating} marks the client's last push before it closes.
 */
public record PushTelemetryRequest(UUID clientInstanceId, int subscriptionId, boolean terminating,
                                   byte compressionType, byte[] metrics)
        implements ApiRequest<PushTelemetryResponse> {

    public static final MessageSpec<PushTelemetryRequest> SPEC = MessageSpec.of(ApiKey.PUSH_TELEMETRY, 0, 0, 0,
            Schema.of(PushTelemetryRequest.class,
                    field("clientInstanceId", UUID_TYPE),
                    field("subscriptionId", INT32),
                    field("terminating", BOOLEAN),
                    field("compressionType", INT8),
                    field("metrics", BYTES).defaultValue(new byte[0])));

    @Override
    public MessageSpec<PushTelemetryRequest> spec() {
        return SPEC;
    }

    @Override
    public MessageSpec<PushTelemetryResponse> responseSpec() {
        return PushTelemetryResponse.SPEC;
    }
}
