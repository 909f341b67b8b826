package io.kflux.network;

import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.network.FakeBroker.Exchange;
import io.kflux.protocol.ApiKey;
import io.kflux.protocol.Types;
import io.kflux.protocol.message.FetchRequest;
import io.kflux.protocol.message.FetchRequest.FetchPartition;
import io.kflux.protocol.message.FetchRequest.FetchTopic;
import io.kflux.protocol.message.FetchRequest.ForgottenTopic;
import io.kflux.protocol.message.OffsetCommitRequest;
import io.kflux.protocol.message.OffsetCommitRequest.OffsetCommitRequestPartition;
import io.kflux.protocol.message.OffsetCommitRequest.OffsetCommitRequestTopic;
import io.kflux.protocol.message.OffsetCommitResponse;
import io.kflux.protocol.message.OffsetFetchRequest;
import io.kflux.protocol.message.OffsetFetchRequest.OffsetFetchRequestGroup;
import io.kflux.protocol.message.OffsetFetchRequest.OffsetFetchRequestTopic;
import io.kflux.protocol.message.OffsetFetchRequest.OffsetFetchRequestTopics;
import io.kflux.protocol.message.OffsetFetchResponse;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A version that names topics by id never leaves the client with the zero UUID (issue #10: Kafka 4.2+ brokers
 * answered OffsetFetch/OffsetCommit v10 carrying the zero id with UNKNOWN_TOPIC_ID). Against a broker offering the
 * id versions, a request whose ids are all known goes out at the id version with those ids on the wire; one with
 * an unknown id goes out at the highest version that still names topics.
 */
class TopicIdVersionTest {
    private static final Duration WAIT = Duration.ofSeconds(10);
    private static final NetworkOptions OPTIONS = TestNetworkOptions.defaults().withClientId("ids-test")
            .withRequestTimeoutMs(5_000).withConnectionSetupTimeoutMs(3_000);
    private static final UUID ID = UUID.fromString("0f3c1c2e-5d2a-4a8e-9b1f-6a7c8d9e0f10");

    private FakeBroker broker;
    private BrokerConnection connection;

    @BeforeEach
    void start() {
        broker = new FakeBroker()
                .range(ApiKey.OFFSET_COMMIT, 2, 10)
                .range(ApiKey.OFFSET_FETCH, 1, 10)
                .on(ApiKey.OFFSET_COMMIT, ex -> ex.respond(OffsetCommitResponse.SPEC, new OffsetCommitResponse(0, List.of())))
                .on(ApiKey.OFFSET_FETCH, ex -> ex.respond(OffsetFetchResponse.SPEC,
                        new OffsetFetchResponse(0, List.of(), (short) 0, List.of())));
        connection = BrokerConnection.connect("127.0.0.1", broker.port(), OPTIONS).block(WAIT);
    }

    @AfterEach
    void stop() {
        connection.close().block(WAIT);
        broker.close();
    }

    private static OffsetCommitRequest commit(UUID id) {
        return new OffsetCommitRequest("g", -1, "", null, -1L, List.of(new OffsetCommitRequestTopic("t", id,
                List.of(new OffsetCommitRequestPartition(0, 5L, -1, "")))));
    }

    private static OffsetFetchRequest offsetFetch(UUID id) {
        return new OffsetFetchRequest("g", List.of(new OffsetFetchRequestTopic("t", List.of(0))),
                List.of(new OffsetFetchRequestGroup("g", null, -1, List.of(new OffsetFetchRequestTopics("t", id, List.of(0))))),
                true);
    }

    private Exchange sent(ApiKey key) {
        List<Exchange> all = broker.received(key);
        return all.get(all.size() - 1);
    }

    @Test
    void offsetCommitWithAKnownIdGoesOutAtV10CarryingIt() {
        connection.exchange(commit(ID)).block(WAIT);

        Exchange ex = sent(ApiKey.OFFSET_COMMIT);
        assertThat(ex.version).isEqualTo((short) 10);
        assertThat(((OffsetCommitRequest) ex.body).topics().get(0).topicId()).isEqualTo(ID);
    }

    @Test
    void offsetCommitWithAnUnknownIdGoesOutAtV9NamingTheTopic() {
        connection.exchange(commit(Types.ZERO_UUID)).block(WAIT);

        Exchange ex = sent(ApiKey.OFFSET_COMMIT);
        assertThat(ex.version).isEqualTo((short) 9);
        assertThat(((OffsetCommitRequest) ex.body).topics().get(0).name()).isEqualTo("t");
    }

    @Test
    void offsetFetchWithAKnownIdGoesOutAtV10CarryingIt() {
        connection.exchange(offsetFetch(ID)).block(WAIT);

        Exchange ex = sent(ApiKey.OFFSET_FETCH);
        assertThat(ex.version).isEqualTo((short) 10);
        assertThat(((OffsetFetchRequest) ex.body).groups().get(0).topics().get(0).topicId()).isEqualTo(ID);
    }

    @Test
    void offsetFetchWithAnUnknownIdGoesOutAtV9NamingTheTopic() {
        connection.exchange(offsetFetch(null)).block(WAIT);

        Exchange ex = sent(ApiKey.OFFSET_FETCH);
        assertThat(ex.version).isEqualTo((short) 9);
        assertThat(((OffsetFetchRequest) ex.body).groups().get(0).topics().get(0).name()).isEqualTo("t");
    }

    @Test
    void offsetFetchOfAllTopicsNamesNoTopicAndMayUseTheIdVersion() {
        OffsetFetchRequest all = new OffsetFetchRequest("g", null, List.of(new OffsetFetchRequestGroup("g", null, -1, null)),
                true);
        assertThat(all.maxVersion()).isEqualTo(OffsetFetchRequest.SPEC.highestVersion());
    }

    @Test
    void fetchStaysBelowV13WhileAFetchedOrForgottenTopicHasNoId() {
        FetchPartition p = new FetchPartition(0, 3, 10L, -1, -1L, 1 << 20, Types.ZERO_UUID,
                FetchRequest.HIGH_WATERMARK_UNSUPPORTED);
        FetchTopic known = new FetchTopic("t", ID, List.of(p));
        FetchTopic unknown = new FetchTopic("u", Types.ZERO_UUID, List.of(p));
        ForgottenTopic forgottenUnknown = new ForgottenTopic("v", Types.ZERO_UUID, List.of(0));

        assertThat(fetch(List.of(known), List.of()).maxVersion()).isEqualTo(FetchRequest.SPEC.highestVersion());
        assertThat(fetch(List.of(known, unknown), List.of()).maxVersion()).isEqualTo((short) 12);
        assertThat(fetch(List.of(known), List.of(forgottenUnknown)).maxVersion()).isEqualTo((short) 12);
    }

    private static FetchRequest fetch(List<FetchTopic> topics, List<ForgottenTopic> forgotten) {
        return new FetchRequest(null, FetchRequest.CONSUMER_REPLICA_ID, null, 500, 1, 1 << 20, (byte) 0, 0, 0, topics,
                forgotten, "");
    }
}
