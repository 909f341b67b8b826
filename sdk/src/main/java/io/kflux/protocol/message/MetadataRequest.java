package io.kflux.protocol.message;

import static io.kflux.protocol.Field.field;
import static io.kflux.protocol.Types.BOOLEAN;
import static io.kflux.protocol.Types.STRING;
import static io.kflux.protocol.Types.UUID_TYPE;
import static io.kflux.protocol.Types.array;

import io.kflux.protocol.ApiKey;
import io.kflux.protocol.ApiRequest;
import io.kflux.protocol.MessageSpec;
import io.kflux.protocol.Schema;
import io.kflux.protocol.Types;
import java.util.Collection;
import java.util.List;
import java.util.UUID;

/**
 * Metadata request (api key 3), versions 0-13, flexible from 9.
 *
 * <p>{@code topics}: from v1 on, null means "all topics" and an empty list means "no topics" (only
 * brokers and cluster id); in v0 null cannot be encoded and an empty list means "all topics".
 * kflux never needs v0 (every broker since 0.10 speaks v1+), it is kept because 4.x brokers still
 * accept it. Topic ids ({@code topicId}, with a null {@code name}) are only honoured from v12:
 * in v10-11 callers must send names and the zero id.
 */
public record MetadataRequest(List<MetadataRequestTopic> topics, boolean allowAutoTopicCreation,
                              boolean includeClusterAuthorizedOperations, boolean includeTopicAuthorizedOperations)
        implements ApiRequest<MetadataResponse> {

    /** One topic to describe: by name, or (v12+) by id with a null name. */
    public record MetadataRequestTopic(UUID topicId, String name) {
        static final Schema<MetadataRequestTopic> SCHEMA = Schema.of(MetadataRequestTopic.class,
                field("topicId", UUID_TYPE).versions(10),
                field("name", STRING).defaultValue(""));

        public static MetadataRequestTopic byName(String name) {
            return new MetadataRequestTopic(Types.ZERO_UUID, name);
        }

        public static MetadataRequestTopic byId(UUID topicId) {
            return new MetadataRequestTopic(topicId, null);
        }
    }

    public static final MessageSpec<MetadataRequest> SPEC = MessageSpec.of(ApiKey.METADATA, 0, 13, 9,
            Schema.of(MetadataRequest.class,
                    field("topics", array(MetadataRequestTopic.SCHEMA)),
                    field("allowAutoTopicCreation", BOOLEAN).versions(4).defaultValue(true),
                    field("includeClusterAuthorizedOperations", BOOLEAN).versions(8, 10),
                    field("includeTopicAuthorizedOperations", BOOLEAN).versions(8)));

    /** Metadata of every topic (v1+), without auto-creation. */
    public static MetadataRequest allTopics() {
        return new MetadataRequest(null, false, false, false);
    }

    /** Metadata of the named topics, without auto-creation (a consumer must not create topics). */
    public static MetadataRequest forTopics(Collection<String> names) {
        return new MetadataRequest(names.stream().map(MetadataRequestTopic::byName).toList(), false, false, false);
    }

    @Override
    public MessageSpec<MetadataRequest> spec() {
        return SPEC;
    }

    @Override
    public MessageSpec<MetadataResponse> responseSpec() {
        return MetadataResponse.SPEC;
    }
}
