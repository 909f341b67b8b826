package io.kflux.protocol;

/** The Kafka API keys kflux speaks (the "apiKey" of each request/response JSON spec). */
public enum ApiKey {
    PRODUCE(0),
    FETCH(1),
    LIST_OFFSETS(2),
    METADATA(3),
    OFFSET_COMMIT(8),
    OFFSET_FETCH(9),
    FIND_COORDINATOR(10),
    JOIN_GROUP(11),
    HEARTBEAT(12),
    LEAVE_GROUP(13),
    SYNC_GROUP(14),
    DESCRIBE_GROUPS(15),
    SASL_HANDSHAKE(17),
    API_VERSIONS(18),
    OFFSET_FOR_LEADER_EPOCH(23),
    SASL_AUTHENTICATE(36),
    CONSUMER_GROUP_HEARTBEAT(68),
    CONSUMER_GROUP_DESCRIBE(69),
    GET_TELEMETRY_SUBSCRIPTIONS(71),
    PUSH_TELEMETRY(72),
    SHARE_GROUP_HEARTBEAT(76),
    SHARE_GROUP_DESCRIBE(77),
    SHARE_FETCH(78),
    SHARE_ACKNOWLEDGE(79);

    private static final ApiKey[] BY_ID = new ApiKey[128];

    static {
        for (ApiKey k : values()) {
            BY_ID[k.id] = k;
        }
    }

    public final short id;

    ApiKey(int id) {
        this.id = (short) id;
    }

    /** The key with this id, or null when kflux does not speak it. */
    public static ApiKey forId(int id) {
        return id >= 0 && id < BY_ID.length ? BY_ID[id] : null;
    }
}
