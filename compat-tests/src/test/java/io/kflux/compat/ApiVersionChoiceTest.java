package io.kflux.compat;

import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.compat.support.BrokerVersion;
import io.kflux.test.KafkaTest;
import io.kflux.test.broker.EmbeddedKafkaCluster;
import io.kflux.network.BrokerConnection;
import io.kflux.network.NetworkOptions;
import io.kflux.protocol.MessageSpec;
import io.kflux.protocol.message.ApiVersionsRequest;
import io.kflux.protocol.message.ConsumerGroupHeartbeatRequest;
import io.kflux.protocol.message.DescribeGroupsRequest;
import io.kflux.protocol.message.FetchRequest;
import io.kflux.protocol.message.FindCoordinatorRequest;
import io.kflux.protocol.message.HeartbeatRequest;
import io.kflux.protocol.message.JoinGroupRequest;
import io.kflux.protocol.message.LeaveGroupRequest;
import io.kflux.protocol.message.ListOffsetsRequest;
import io.kflux.protocol.message.MetadataRequest;
import io.kflux.protocol.message.OffsetCommitRequest;
import io.kflux.protocol.message.OffsetFetchRequest;
import io.kflux.protocol.message.OffsetForLeaderEpochRequest;
import io.kflux.protocol.message.SaslAuthenticateRequest;
import io.kflux.protocol.message.SaslHandshakeRequest;
import io.kflux.protocol.message.SyncGroupRequest;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The version kflux chooses for each API it uses, per broker release line: a new broker (or a codec change) that
 * moves a choice fails here as one line naming the API, instead of surfacing as a user's outage (issue #10: Kafka
 * 4.2 moved OffsetCommit/OffsetFetch to v10, which names topics by id). When this fails after adding a broker or a
 * message version, check that the new version is really supported end to end, then update the table.
 */
@Tag("smoke")
@KafkaTest(nodes = 1)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ApiVersionChoiceTest {
    private static final Duration WAIT = Duration.ofSeconds(30);

    /** The APIs kflux sends, in the table's column order. */
    private static final List<MessageSpec<?>> SPECS = List.of(
            ApiVersionsRequest.SPEC, MetadataRequest.SPEC, FetchRequest.SPEC, ListOffsetsRequest.SPEC,
            OffsetForLeaderEpochRequest.SPEC, FindCoordinatorRequest.SPEC, JoinGroupRequest.SPEC, SyncGroupRequest.SPEC,
            HeartbeatRequest.SPEC, LeaveGroupRequest.SPEC, OffsetCommitRequest.SPEC, OffsetFetchRequest.SPEC,
            DescribeGroupsRequest.SPEC, ConsumerGroupHeartbeatRequest.SPEC, SaslHandshakeRequest.SPEC,
            SaslAuthenticateRequest.SPEC);

    /**
     * Broker line -> chosen version per API, in {@link #SPECS} order (-1: the broker does not offer it).
     * ApiVersions, Metadata, Fetch, ListOffsets, OffsetForLeaderEpoch, FindCoordinator, JoinGroup, SyncGroup,
     * Heartbeat, LeaveGroup, OffsetCommit, OffsetFetch, DescribeGroups, ConsumerGroupHeartbeat, SaslHandshake,
     * SaslAuthenticate.
     */
    private static final Map<String, List<Integer>> EXPECTED = Map.of(
            //            AV  Md  Fe  LO  OfLE FC  JG  SG  HB  LG  OC  OF  DG  CGHB SH  SA
            "3.9", List.of(4, 12, 17, 9, 4, 6, 9, 5, 4, 5, 9, 9, 5, 0, 1, 2),
            "4.0", List.of(4, 13, 17, 10, 4, 6, 9, 5, 4, 5, 9, 9, 6, 1, 1, 2),
            // 4.2 adds OffsetCommit/OffsetFetch v10 (topics by id) and Fetch v18
            "4.2", List.of(4, 13, 18, 10, 4, 6, 9, 5, 4, 5, 10, 10, 6, 1, 1, 2),
            // 4.4 adds ApiVersions v5 (the cluster and node a connection means to reach, KIP-1242)
            "4.4", List.of(5, 13, 18, 10, 4, 6, 9, 5, 4, 5, 10, 10, 6, 1, 1, 2));

    @Test
    void kfluxChoosesTheTabledVersionOfEveryApiItUses(EmbeddedKafkaCluster kafka) {
        String[] hostPort = kafka.address(1).split(":");
        BrokerConnection c = BrokerConnection.connect(new InetSocketAddress(hostPort[0], Integer.parseInt(hostPort[1])),
                io.kflux.internal.ClientSettings.of(java.util.Map.of("bootstrap.servers", "localhost:9092", "client.id", "kflux")).network()).block(WAIT);
        try {
            Map<String, Integer> chosen = new LinkedHashMap<>();
            for (MessageSpec<?> spec : SPECS) {
                chosen.put(spec.apiKey().name(), (int) c.version(spec));
            }
            BrokerVersion broker = BrokerVersion.current();
            Map<String, Integer> expected = new LinkedHashMap<>();
            List<Integer> row = EXPECTED.get(broker.line());
            assertThat(row).as("no row for broker line %s in EXPECTED; kflux chose %s", broker.line(), chosen.values())
                    .isNotNull().hasSize(SPECS.size());
            for (int i = 0; i < SPECS.size(); i++) {
                expected.put(SPECS.get(i).apiKey().name(), row.get(i));
            }
            assertThat(chosen).as("versions kflux chooses against %s", broker).containsExactlyEntriesOf(expected);
        } finally {
            c.close().block(WAIT);
        }
    }
}
