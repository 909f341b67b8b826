package io.kflux.protocol.message;

import static io.kflux.protocol.Field.field;
import static io.kflux.protocol.Types.BOOLEAN;
import static io.kflux.protocol.Types.INT16;
import static io.kflux.protocol.Types.INT32;
import static io.kflux.protocol.Types.INT8;
import static io.kflux.protocol.Types.STRING;
import static io.kflux.protocol.Types.UUID_TYPE;
import static io.kflux.protocol.Types.array;

import io.kflux.protocol.ApiKey;
import io.kflux.protocol.MessageSpec;
import io.kflux.protocol.Schema;
import java.util.List;
import java.util.UUID;

/**
 * GetTelemetrySubscriptions response (KIP-714). {@code clientInstanceId} is the assigned id when the request sent
 * the zero uuid. {@code acceptedCompressionTypes} are record-batch compression ids (0 none, 1 gzip, 2 snappy, 3 lz4,
 * 4 zstd). {@code requestedMetrics}: empty = nothing subscribed, a single "" = everything, else name prefixes.
 * {@code pushIntervalMs} in milliseconds; {@code telemetryMaxBytes} bounds the pushed (compressed) payload.
 */
public record GetTelemetrySubscriptionsResponse(int throttleTimeMs, short errorCode, UUID clientInstanceId,
                                                int subscriptionId, List<Byte> acceptedCompressionTypes,
                                                int pushIntervalMs, int telemetryMaxBytes, boolean deltaTemporality,
                                                List<String> requestedMetrics) {

    public static final MessageSpec<GetTelemetrySubscriptionsResponse> SPEC = MessageSpec.of(
            ApiKey.GET_TELEMETRY_SUBSCRIPTIONS, 0, 0, 0,
            Schema.of(GetTelemetrySubscriptionsResponse.class,
                    field("throttleTimeMs", INT32),
                    field("errorCode", INT16),
                    field("clientInstanceId", UUID_TYPE),
                    field("subscriptionId", INT32),
                    field("acceptedCompressionTypes", array(INT8)),
                    field("pushIntervalMs", INT32),
                    field("telemetryMaxBytes", INT32),
                    field("deltaTemporality", BOOLEAN),
                    field("requestedMetrics", array(STRING))));
}
