package io.kflux.protocol.message;

import static io.kflux.protocol.Field.field;
import static io.kflux.protocol.Types.INT16;
import static io.kflux.protocol.Types.INT32;
import static io.kflux.protocol.Types.STRING;
import static io.kflux.protocol.Types.array;

import io.kflux.protocol.ApiKey;
import io.kflux.protocol.MessageSpec;
import io.kflux.protocol.Schema;
import java.util.List;

/**
 * FindCoordinator response. v0-3 answer for the single key in the top-level fields; v4+ answer
 * per key in {@code coordinators}. Use {@link #coordinatorFor} to read either shape.
 */
public record FindCoordinatorResponse(int throttleTimeMs, short errorCode, String errorMessage, int nodeId,
                                      String host, int port, List<Coordinator> coordinators) {

    public record Coordinator(String key, int nodeId, String host, int port, short errorCode, String errorMessage) {
        static final Schema<Coordinator> SCHEMA = Schema.of(Coordinator.class,
                field("key", STRING).defaultValue(""),
                field("nodeId", INT32),
                field("host", STRING).defaultValue(""),
                field("port", INT32),
                field("errorCode", INT16),
                field("errorMessage", STRING).defaultValue(""));
    }

    public static final MessageSpec<FindCoordinatorResponse> SPEC = MessageSpec.of(ApiKey.FIND_COORDINATOR, 0, 6, 3,
            Schema.of(FindCoordinatorResponse.class,
                    field("throttleTimeMs", INT32).versions(1),
                    field("errorCode", INT16).versions(0, 3),
                    field("errorMessage", STRING).versions(1, 3).defaultValue(""),
                    field("nodeId", INT32).versions(0, 3),
                    field("host", STRING).versions(0, 3).defaultValue(""),
                    field("port", INT32).versions(0, 3),
                    field("coordinators", array(Coordinator.SCHEMA)).versions(4)));

    /**
     * The answer for {@code key} in a response of {@code version}: the top-level fields as a
     * {@link Coordinator} for v0-3, the matching entry of {@code coordinators} for v4+ (null when
     * the broker sent none for that key).
     */
    public Coordinator coordinatorFor(String key, short version) {
        if (version < 4) {
            return new Coordinator(key, nodeId, host, port, errorCode, errorMessage);
        }
        for (Coordinator c : coordinators) {
            if (c.key().equals(key)) {
                return c;
            }
        }
        return null;
    }
}
