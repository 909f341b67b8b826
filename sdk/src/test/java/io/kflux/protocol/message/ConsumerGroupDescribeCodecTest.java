package io.kflux.protocol.message;

import static io.kflux.protocol.message.OracleEquivalence.assertEquivalent;
import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.protocol.message.ConsumerGroupDescribeResponse.Assignment;
import io.kflux.protocol.message.ConsumerGroupDescribeResponse.DescribedGroup;
import io.kflux.protocol.message.ConsumerGroupDescribeResponse.Member;
import io.kflux.protocol.message.ConsumerGroupDescribeResponse.TopicPartitions;
import java.util.List;
import java.util.UUID;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.ConsumerGroupDescribeRequestData;
import org.apache.kafka.common.message.ConsumerGroupDescribeResponseData;
import org.junit.jupiter.api.Test;

class ConsumerGroupDescribeCodecTest {
    private static final UUID ORDERS_ID = UUID.fromString("5d6a1f3e-2b47-4c1a-9f0e-7c3b2a1d0e9f");

    @Test
    void versionRangeIsTheSpecs() {
        assertThat(ConsumerGroupDescribeRequest.SPEC.lowestVersion())
                .isEqualTo(ConsumerGroupDescribeRequestData.LOWEST_SUPPORTED_VERSION);
        assertThat(ConsumerGroupDescribeRequest.SPEC.highestVersion())
                .isEqualTo(ConsumerGroupDescribeRequestData.HIGHEST_SUPPORTED_VERSION);
        assertThat(ConsumerGroupDescribeResponse.SPEC.lowestVersion())
                .isEqualTo(ConsumerGroupDescribeResponseData.LOWEST_SUPPORTED_VERSION);
        assertThat(ConsumerGroupDescribeResponse.SPEC.highestVersion())
                .isEqualTo(ConsumerGroupDescribeResponseData.HIGHEST_SUPPORTED_VERSION);
    }

    @Test
    void requestMatchesOfficialBytesInEveryVersion() {
        for (short v : OracleEquivalence.versions(ConsumerGroupDescribeRequest.SPEC)) {
            short version = v;
            OracleEquivalence.check(ConsumerGroupDescribeRequest.SPEC,
                    new ConsumerGroupDescribeRequest(List.of("orders-app", "billing"), true),
                    new ConsumerGroupDescribeRequestData().setGroupIds(List.of("orders-app", "billing"))
                            .setIncludeAuthorizedOperations(true), v,
                    a -> new ConsumerGroupDescribeRequestData(a, version));
        }
    }

    @Test
    void responseMatchesOfficialBytesInEveryVersion() {
        for (short v : OracleEquivalence.versions(ConsumerGroupDescribeResponse.SPEC)) {
            short version = v;
            Assignment current = new Assignment(List.of(new TopicPartitions(ORDERS_ID, "orders", List.of(0, 2))));
            Assignment target = new Assignment(List.of(new TopicPartitions(ORDERS_ID, "orders", List.of(0))));
            byte type = v >= 1 ? (byte) 1 : (byte) -1;
            ConsumerGroupDescribeResponse ours = new ConsumerGroupDescribeResponse(3, List.of(
                    new DescribedGroup((short) 0, null, "orders-app", "Reconciling", 7, 7, "uniform", List.of(
                            new Member("Zr0YSzlPTSy8xqVj5gRnMg", "pod-7", "eu-west-1a", 6, "kflux-1", "/10.0.0.7",
                                    List.of("orders"), null, current, target, type),
                            new Member("m2", null, null, 7, "official", "/10.0.0.8", List.of(), "orders-.*",
                                    new Assignment(List.of()), new Assignment(List.of()), type)),
                            Integer.MIN_VALUE),
                    new DescribedGroup((short) 69, "Group billing not found.", "billing", "", 0, 0, "", List.of(),
                            Integer.MIN_VALUE)));
            ConsumerGroupDescribeResponseData.Assignment officialCurrent = new ConsumerGroupDescribeResponseData.Assignment()
                    .setTopicPartitions(List.of(new ConsumerGroupDescribeResponseData.TopicPartitions()
                            .setTopicId(new Uuid(ORDERS_ID.getMostSignificantBits(), ORDERS_ID.getLeastSignificantBits()))
                            .setTopicName("orders").setPartitions(List.of(0, 2))));
            ConsumerGroupDescribeResponseData.Assignment officialTarget = new ConsumerGroupDescribeResponseData.Assignment()
                    .setTopicPartitions(List.of(new ConsumerGroupDescribeResponseData.TopicPartitions()
                            .setTopicId(new Uuid(ORDERS_ID.getMostSignificantBits(), ORDERS_ID.getLeastSignificantBits()))
                            .setTopicName("orders").setPartitions(List.of(0))));
            ConsumerGroupDescribeResponseData official = new ConsumerGroupDescribeResponseData().setThrottleTimeMs(3)
                    .setGroups(List.of(
                            new ConsumerGroupDescribeResponseData.DescribedGroup().setGroupId("orders-app")
                                    .setGroupState("Reconciling").setGroupEpoch(7).setAssignmentEpoch(7)
                                    .setAssignorName("uniform").setMembers(List.of(
                                            new ConsumerGroupDescribeResponseData.Member()
                                                    .setMemberId("Zr0YSzlPTSy8xqVj5gRnMg").setInstanceId("pod-7")
                                                    .setRackId("eu-west-1a").setMemberEpoch(6).setClientId("kflux-1")
                                                    .setClientHost("/10.0.0.7").setSubscribedTopicNames(List.of("orders"))
                                                    .setAssignment(officialCurrent).setTargetAssignment(officialTarget)
                                                    .setMemberType(type),
                                            new ConsumerGroupDescribeResponseData.Member().setMemberId("m2")
                                                    .setMemberEpoch(7).setClientId("official").setClientHost("/10.0.0.8")
                                                    .setSubscribedTopicRegex("orders-.*").setMemberType(type))),
                            new ConsumerGroupDescribeResponseData.DescribedGroup().setErrorCode((short) 69)
                                    .setErrorMessage("Group billing not found.").setGroupId("billing")));
            OracleEquivalence.check(ConsumerGroupDescribeResponse.SPEC, ours, official, v,
                    a -> new ConsumerGroupDescribeResponseData(a, version));
        }
    }

    @Test
    void defaultsMatchTheOfficialOnes() {
        assertEquivalent(ConsumerGroupDescribeRequest.SPEC.schema().defaults(), new ConsumerGroupDescribeRequestData(),
                "request");
        assertEquivalent(ConsumerGroupDescribeResponse.SPEC.schema().defaults(), new ConsumerGroupDescribeResponseData(),
                "response");
        assertEquivalent(DescribedGroup.SCHEMA.defaults(), new ConsumerGroupDescribeResponseData.DescribedGroup(), "group");
        assertEquivalent(Member.SCHEMA.defaults(), new ConsumerGroupDescribeResponseData.Member(), "member");
        assertEquivalent(Assignment.SCHEMA.defaults(), new ConsumerGroupDescribeResponseData.Assignment(), "assignment");
        assertEquivalent(TopicPartitions.SCHEMA.defaults(), new ConsumerGroupDescribeResponseData.TopicPartitions(),
                "topic partitions");
    }
}
