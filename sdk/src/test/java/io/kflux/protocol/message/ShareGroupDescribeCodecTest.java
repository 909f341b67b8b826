package io.kflux.protocol.message;

import static io.kflux.protocol.message.OracleEquivalence.assertEquivalent;
import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.protocol.message.ConsumerGroupDescribeResponse.Assignment;
import io.kflux.protocol.message.ConsumerGroupDescribeResponse.TopicPartitions;
import io.kflux.protocol.message.ShareGroupDescribeResponse.DescribedGroup;
import io.kflux.protocol.message.ShareGroupDescribeResponse.Member;
import java.util.List;
import java.util.UUID;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.ShareGroupDescribeRequestData;
import org.apache.kafka.common.message.ShareGroupDescribeResponseData;
import org.junit.jupiter.api.Test;

class ShareGroupDescribeCodecTest {
    private static final UUID JOBS_ID = UUID.fromString("5d6a1f3e-2b47-4c1a-9f0e-7c3b2a1d0e9f");

    @Test
    void versionRangeIsTheSpecsAndTheNewestBrokersToo() {
        assertThat(ShareGroupDescribeRequest.SPEC.lowestVersion()).isEqualTo(ShareGroupDescribeRequestData.LOWEST_SUPPORTED_VERSION);
        assertThat(ShareGroupDescribeRequest.SPEC.highestVersion()).isEqualTo(ShareGroupDescribeRequestData.HIGHEST_SUPPORTED_VERSION)
                .isEqualTo(JsonOracle.KAFKA_4_4.highestVersion("ShareGroupDescribeRequest"));
        assertThat(ShareGroupDescribeResponse.SPEC.highestVersion()).isEqualTo(ShareGroupDescribeResponseData.HIGHEST_SUPPORTED_VERSION)
                .isEqualTo(JsonOracle.KAFKA_4_4.highestVersion("ShareGroupDescribeResponse"));
    }

    @Test
    void requestMatchesOfficialBytes() {
        for (short v : OracleEquivalence.versions(ShareGroupDescribeRequest.SPEC)) {
            short version = v;
            OracleEquivalence.check(ShareGroupDescribeRequest.SPEC, new ShareGroupDescribeRequest(List.of("workers", "mailers"), true),
                    new ShareGroupDescribeRequestData().setGroupIds(List.of("workers", "mailers")).setIncludeAuthorizedOperations(true),
                    v, a -> new ShareGroupDescribeRequestData(a, version));
        }
    }

    @Test
    void responseWithMembersAndAnUnknownGroupMatchesOfficialBytes() {
        for (short v : OracleEquivalence.versions(ShareGroupDescribeResponse.SPEC)) {
            short version = v;
            ShareGroupDescribeResponse ours = new ShareGroupDescribeResponse(0, List.of(
                    new DescribedGroup((short) 0, null, "workers", "Stable", 5, 5, "simple", List.of(
                            new Member("Zr0YSzlPTSy8xqVj5gRnMg", null, 5, "worker-1", "/10.0.0.7", List.of("jobs"),
                                    new Assignment(List.of(new TopicPartitions(JOBS_ID, "jobs", List.of(0, 1)))))),
                            Integer.MIN_VALUE),
                    new DescribedGroup((short) 69, "Group mailers not found.", "mailers", "Dead", -1, -1, "", List.of(), 0)));
            ShareGroupDescribeResponseData official = new ShareGroupDescribeResponseData().setGroups(List.of(
                    new ShareGroupDescribeResponseData.DescribedGroup().setGroupId("workers").setGroupState("Stable")
                            .setGroupEpoch(5).setAssignmentEpoch(5).setAssignorName("simple").setMembers(List.of(
                                    new ShareGroupDescribeResponseData.Member().setMemberId("Zr0YSzlPTSy8xqVj5gRnMg")
                                            .setMemberEpoch(5).setClientId("worker-1").setClientHost("/10.0.0.7")
                                            .setSubscribedTopicNames(List.of("jobs"))
                                            .setAssignment(new ShareGroupDescribeResponseData.Assignment().setTopicPartitions(List.of(
                                                    new ShareGroupDescribeResponseData.TopicPartitions()
                                                            .setTopicId(new Uuid(JOBS_ID.getMostSignificantBits(), JOBS_ID.getLeastSignificantBits()))
                                                            .setTopicName("jobs").setPartitions(List.of(0, 1))))))),
                    new ShareGroupDescribeResponseData.DescribedGroup().setErrorCode((short) 69)
                            .setErrorMessage("Group mailers not found.").setGroupId("mailers").setGroupState("Dead")
                            .setGroupEpoch(-1).setAssignmentEpoch(-1).setAuthorizedOperations(0)));
            OracleEquivalence.check(ShareGroupDescribeResponse.SPEC, ours, official, v,
                    a -> new ShareGroupDescribeResponseData(a, version));
        }
    }

    @Test
    void defaultsMatchTheOfficialOnes() {
        assertEquivalent(ShareGroupDescribeRequest.SPEC.schema().defaults(), new ShareGroupDescribeRequestData(), "request");
        assertEquivalent(ShareGroupDescribeResponse.SPEC.schema().defaults(), new ShareGroupDescribeResponseData(), "response");
        assertEquivalent(DescribedGroup.SCHEMA.defaults(), new ShareGroupDescribeResponseData.DescribedGroup(), "group");
        assertEquivalent(Member.SCHEMA.defaults(), new ShareGroupDescribeResponseData.Member(), "member");
    }
}
