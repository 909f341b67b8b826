package io.kflux.protocol.message;

import static io.kflux.protocol.message.OracleEquivalence.assertEquivalent;
import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.protocol.message.ConsumerGroupHeartbeatResponse.Assignment;
import io.kflux.protocol.message.ConsumerGroupHeartbeatResponse.TopicPartitions;
import java.util.List;
import java.util.UUID;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.ShareGroupHeartbeatRequestData;
import org.apache.kafka.common.message.ShareGroupHeartbeatResponseData;
import org.junit.jupiter.api.Test;

class ShareGroupHeartbeatCodecTest {
    private static final UUID JOBS_ID = UUID.fromString("5d6a1f3e-2b47-4c1a-9f0e-7c3b2a1d0e9f");
    private static final UUID MAIL_ID = UUID.fromString("00000000-0000-0001-0000-000000000002");

    private static Uuid uuid(UUID u) {
        return new Uuid(u.getMostSignificantBits(), u.getLeastSignificantBits());
    }

    @Test
    void versionRangeIsTheSpecsAndTheNewestBrokersToo() {
        assertThat(ShareGroupHeartbeatRequest.SPEC.lowestVersion()).isEqualTo(ShareGroupHeartbeatRequestData.LOWEST_SUPPORTED_VERSION);
        assertThat(ShareGroupHeartbeatRequest.SPEC.highestVersion()).isEqualTo(ShareGroupHeartbeatRequestData.HIGHEST_SUPPORTED_VERSION)
                .isEqualTo(JsonOracle.KAFKA_4_4.highestVersion("ShareGroupHeartbeatRequest"));
        assertThat(ShareGroupHeartbeatResponse.SPEC.lowestVersion()).isEqualTo(ShareGroupHeartbeatResponseData.LOWEST_SUPPORTED_VERSION);
        assertThat(ShareGroupHeartbeatResponse.SPEC.highestVersion()).isEqualTo(ShareGroupHeartbeatResponseData.HIGHEST_SUPPORTED_VERSION)
                .isEqualTo(JsonOracle.KAFKA_4_4.highestVersion("ShareGroupHeartbeatResponse"));
    }

    @Test
    void joinAndUnchangedRequestsMatchOfficialBytes() {
        for (short v : OracleEquivalence.versions(ShareGroupHeartbeatRequest.SPEC)) {
            short version = v;
            ShareGroupHeartbeatRequest join = new ShareGroupHeartbeatRequest("workers", "Zr0YSzlPTSy8xqVj5gRnMg",
                    ShareGroupHeartbeatRequest.JOIN_EPOCH, "eu-west-1a", List.of("jobs", "mail"));
            OracleEquivalence.check(ShareGroupHeartbeatRequest.SPEC, join, new ShareGroupHeartbeatRequestData()
                            .setGroupId("workers").setMemberId("Zr0YSzlPTSy8xqVj5gRnMg").setMemberEpoch(0)
                            .setRackId("eu-west-1a").setSubscribedTopicNames(List.of("jobs", "mail")), v,
                    a -> new ShareGroupHeartbeatRequestData(a, version));

            ShareGroupHeartbeatRequest unchanged = new ShareGroupHeartbeatRequest("workers", "Zr0YSzlPTSy8xqVj5gRnMg", 9,
                    null, null);
            OracleEquivalence.check(ShareGroupHeartbeatRequest.SPEC, unchanged, new ShareGroupHeartbeatRequestData()
                            .setGroupId("workers").setMemberId("Zr0YSzlPTSy8xqVj5gRnMg").setMemberEpoch(9), v,
                    a -> new ShareGroupHeartbeatRequestData(a, version));

            ShareGroupHeartbeatRequest leave = new ShareGroupHeartbeatRequest("workers", "m",
                    ShareGroupHeartbeatRequest.LEAVE_EPOCH, null, List.of());
            OracleEquivalence.check(ShareGroupHeartbeatRequest.SPEC, leave, new ShareGroupHeartbeatRequestData()
                            .setGroupId("workers").setMemberId("m").setMemberEpoch(-1).setSubscribedTopicNames(List.of()), v,
                    a -> new ShareGroupHeartbeatRequestData(a, version));
        }
    }

    @Test
    void responsesWithAndWithoutAssignmentMatchOfficialBytes() {
        for (short v : OracleEquivalence.versions(ShareGroupHeartbeatResponse.SPEC)) {
            short version = v;
            ShareGroupHeartbeatResponse assigned = new ShareGroupHeartbeatResponse(3, (short) 0, null, "Zr0YSzlPTSy8xqVj5gRnMg",
                    4, 5000, new Assignment(List.of(new TopicPartitions(JOBS_ID, List.of(0, 1, 2)),
                            new TopicPartitions(MAIL_ID, List.of()))));
            OracleEquivalence.check(ShareGroupHeartbeatResponse.SPEC, assigned, new ShareGroupHeartbeatResponseData()
                            .setThrottleTimeMs(3).setMemberId("Zr0YSzlPTSy8xqVj5gRnMg").setMemberEpoch(4)
                            .setHeartbeatIntervalMs(5000).setAssignment(new ShareGroupHeartbeatResponseData.Assignment()
                                    .setTopicPartitions(List.of(
                                            new ShareGroupHeartbeatResponseData.TopicPartitions().setTopicId(uuid(JOBS_ID))
                                                    .setPartitions(List.of(0, 1, 2)),
                                            new ShareGroupHeartbeatResponseData.TopicPartitions().setTopicId(uuid(MAIL_ID))))),
                    v, a -> new ShareGroupHeartbeatResponseData(a, version));

            ShareGroupHeartbeatResponse unchanged = new ShareGroupHeartbeatResponse(0, (short) 0, null, "m", 4, 5000, null);
            OracleEquivalence.check(ShareGroupHeartbeatResponse.SPEC, unchanged, new ShareGroupHeartbeatResponseData()
                            .setMemberId("m").setMemberEpoch(4).setHeartbeatIntervalMs(5000), v,
                    a -> new ShareGroupHeartbeatResponseData(a, version));

            ShareGroupHeartbeatResponse disabled = new ShareGroupHeartbeatResponse(0, (short) 35,
                    "The share group feature is not enabled.", null, 0, 0, null);
            OracleEquivalence.check(ShareGroupHeartbeatResponse.SPEC, disabled, new ShareGroupHeartbeatResponseData()
                            .setErrorCode((short) 35).setErrorMessage(disabled.errorMessage()), v,
                    a -> new ShareGroupHeartbeatResponseData(a, version));
        }
    }

    @Test
    void defaultsMatchTheOfficialOnes() {
        assertEquivalent(ShareGroupHeartbeatRequest.SPEC.schema().defaults(), new ShareGroupHeartbeatRequestData(), "request");
        assertEquivalent(ShareGroupHeartbeatResponse.SPEC.schema().defaults(), new ShareGroupHeartbeatResponseData(), "response");
        assertEquivalent(Assignment.SCHEMA.defaults(), new ShareGroupHeartbeatResponseData.Assignment(), "assignment");
        assertEquivalent(TopicPartitions.SCHEMA.defaults(), new ShareGroupHeartbeatResponseData.TopicPartitions(), "tp");
    }
}
