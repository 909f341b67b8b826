package io.kflux.protocol.message;

import static io.kflux.protocol.Field.field;
import static io.kflux.protocol.Types.BOOLEAN;
import static io.kflux.protocol.Types.INT16;
import static io.kflux.protocol.Types.INT32;
import static io.kflux.protocol.Types.STRING;
import static io.kflux.protocol.Types.UUID_TYPE;
import static io.kflux.protocol.Types.array;

import io.kflux.protocol.ApiKey;
import io.kflux.protocol.MessageSpec;
import io.kflux.protocol.Schema;
import java.util.List;
import java.util.UUID;

/**
 * Metadata response (api key 3), versions 0-13, flexible from 9: brokers, cluster id, controller,
 * and per topic its id (v10+), partitions, leaders and leader epochs (v7+). The top-level
 * {@code errorCode} exists from v13 (e.g. REBOOTSTRAP_REQUIRED).
 */
public record MetadataResponse(int throttleTimeMs, List<MetadataResponseBroker> brokers, String clusterId,
                               int controllerId, List<MetadataResponseTopic> topics, int clusterAuthorizedOperations,
                               short errorCode) {

    /** "Authorized operations" not requested/unknown (the spec's default, Integer.MIN_VALUE). */
    public static final int AUTHORIZED_OPERATIONS_OMITTED = Integer.MIN_VALUE;

    public record MetadataResponseBroker(int nodeId, String host, int port, String rack) {
        static final Schema<MetadataResponseBroker> SCHEMA = Schema.of(MetadataResponseBroker.class,
                field("nodeId", INT32),
                field("host", STRING).defaultValue(""),
                field("port", INT32),
                field("rack", STRING).versions(1));
    }

    /** A topic: {@code name} may be null (v12+) for an unknown topic asked by id; {@code topicId} is zero before v10. */
    public record MetadataResponseTopic(short errorCode, String name, UUID topicId, boolean isInternal,
                                        List<MetadataResponsePartition> partitions, int topicAuthorizedOperations) {
        static final Schema<MetadataResponseTopic> SCHEMA = Schema.of(MetadataResponseTopic.class,
                field("errorCode", INT16),
                field("name", STRING).defaultValue(""),
                field("topicId", UUID_TYPE).versions(10),
                field("isInternal", BOOLEAN).versions(1),
                field("partitions", array(MetadataResponsePartition.SCHEMA)),
                field("topicAuthorizedOperations", INT32).versions(8).defaultValue(AUTHORIZED_OPERATIONS_OMITTED));
    }

    public record MetadataResponsePartition(short errorCode, int partitionIndex, int leaderId, int leaderEpoch,
                                            List<Integer> replicaNodes, List<Integer> isrNodes,
                                            List<Integer> offlineReplicas) {
        static final Schema<MetadataResponsePartition> SCHEMA = Schema.of(MetadataResponsePartition.class,
                field("errorCode", INT16),
                field("partitionIndex", INT32),
                field("leaderId", INT32),
                field("leaderEpoch", INT32).versions(7).defaultValue(-1),
                field("replicaNodes", array(INT32)),
                field("isrNodes", array(INT32)),
                field("offlineReplicas", array(INT32)).versions(5));
    }

    public static final MessageSpec<MetadataResponse> SPEC = MessageSpec.of(ApiKey.METADATA, 0, 13, 9,
            Schema.of(MetadataResponse.class,
                    field("throttleTimeMs", INT32).versions(3),
                    field("brokers", array(MetadataResponseBroker.SCHEMA)),
                    field("clusterId", STRING).versions(2),
                    field("controllerId", INT32).versions(1).defaultValue(-1),
                    field("topics", array(MetadataResponseTopic.SCHEMA)),
                    field("clusterAuthorizedOperations", INT32).versions(8, 10).defaultValue(AUTHORIZED_OPERATIONS_OMITTED),
                    field("errorCode", INT16).versions(13)));
}
