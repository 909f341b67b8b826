package io.kflux.protocol.message;

import static io.kflux.protocol.message.OracleEquivalence.assertEquivalent;
import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.protocol.message.DescribeGroupsResponse.DescribedGroup;
import io.kflux.protocol.message.DescribeGroupsResponse.DescribedGroupMember;
import java.util.List;
import org.apache.kafka.common.message.DescribeGroupsRequestData;
import org.apache.kafka.common.message.DescribeGroupsResponseData;
import org.junit.jupiter.api.Test;

class DescribeGroupsCodecTest {
    private static final byte[] META = {0, 3, 0, 0, 0, 1, 0, 6, 'o', 'r', 'd', 'e', 'r', 's', -1, -1, -1, -1};
    private static final byte[] ASSIGN = {0, 3, 0, 0, 0, 0, -1, -1, -1, -1};

    @Test
    void versionRangeIsTheSpecs() {
        assertThat(DescribeGroupsRequest.SPEC.lowestVersion()).isEqualTo(DescribeGroupsRequestData.LOWEST_SUPPORTED_VERSION);
        assertThat(DescribeGroupsRequest.SPEC.highestVersion()).isEqualTo(DescribeGroupsRequestData.HIGHEST_SUPPORTED_VERSION);
        assertThat(DescribeGroupsResponse.SPEC.lowestVersion()).isEqualTo(DescribeGroupsResponseData.LOWEST_SUPPORTED_VERSION);
        assertThat(DescribeGroupsResponse.SPEC.highestVersion()).isEqualTo(DescribeGroupsResponseData.HIGHEST_SUPPORTED_VERSION);
    }

    @Test
    void requestMatchesOfficialBytesInEveryVersion() {
        for (short v : OracleEquivalence.versions(DescribeGroupsRequest.SPEC)) {
            DescribeGroupsRequest ours = new DescribeGroupsRequest(List.of("orders-app", "billing-app", ""), true);
            DescribeGroupsRequestData official = new DescribeGroupsRequestData()
                    .setGroups(List.of("orders-app", "billing-app", ""));
            if (v >= 3) {
                official.setIncludeAuthorizedOperations(true);
            }
            short version = v;
            OracleEquivalence.check(DescribeGroupsRequest.SPEC, ours, official, v, a -> new DescribeGroupsRequestData(a, version));
        }
    }

    @Test
    void responseMatchesOfficialBytesInEveryVersion() {
        for (short v : OracleEquivalence.versions(DescribeGroupsResponse.SPEC)) {
            DescribeGroupsResponse ours = new DescribeGroupsResponse(v >= 1 ? 3 : 0, List.of(
                    new DescribedGroup((short) 0, null, "orders-app", "Stable", "consumer", "range",
                            List.of(new DescribedGroupMember("consumer-1-4f6a", "pod-7", "orders-client", "/10.0.0.7", META, ASSIGN),
                                    new DescribedGroupMember("consumer-2-99ab", null, "orders-client", "/10.0.0.8",
                                            new byte[0], new byte[0])),
                            0b1000_1000),
                    new DescribedGroup((short) 69, "Group billing-app not found.", "billing-app", "Dead", "", "",
                            List.of(), Integer.MIN_VALUE)));
            DescribeGroupsResponseData.DescribedGroup g1 = new DescribeGroupsResponseData.DescribedGroup().setErrorCode((short) 0)
                    .setGroupId("orders-app").setGroupState("Stable").setProtocolType("consumer").setProtocolData("range")
                    .setMembers(List.of(
                            new DescribeGroupsResponseData.DescribedGroupMember().setMemberId("consumer-1-4f6a")
                                    .setGroupInstanceId(v >= 4 ? "pod-7" : null).setClientId("orders-client")
                                    .setClientHost("/10.0.0.7").setMemberMetadata(META).setMemberAssignment(ASSIGN),
                            new DescribeGroupsResponseData.DescribedGroupMember().setMemberId("consumer-2-99ab")
                                    .setGroupInstanceId(null).setClientId("orders-client").setClientHost("/10.0.0.8")));
            DescribeGroupsResponseData.DescribedGroup g2 = new DescribeGroupsResponseData.DescribedGroup().setErrorCode((short) 69)
                    .setGroupId("billing-app").setGroupState("Dead").setProtocolType("").setProtocolData("");
            if (v >= 3) {
                g1.setAuthorizedOperations(0b1000_1000);
            }
            if (v >= 6) {
                g2.setErrorMessage("Group billing-app not found.");
            }
            DescribeGroupsResponseData official = new DescribeGroupsResponseData().setGroups(List.of(g1, g2));
            if (v >= 1) {
                official.setThrottleTimeMs(3);
            }
            short version = v;
            OracleEquivalence.check(DescribeGroupsResponse.SPEC, ours, official, v, a -> new DescribeGroupsResponseData(a, version));
        }
    }

    @Test
    void defaultsMatchTheOfficialOnes() {
        assertEquivalent(DescribeGroupsRequest.SPEC.schema().defaults(), new DescribeGroupsRequestData(), "request");
        assertEquivalent(DescribeGroupsResponse.SPEC.schema().defaults(), new DescribeGroupsResponseData(), "response");
        assertEquivalent(DescribedGroup.SCHEMA.defaults(), new DescribeGroupsResponseData.DescribedGroup(), "group");
        assertEquivalent(DescribedGroupMember.SCHEMA.defaults(), new DescribeGroupsResponseData.DescribedGroupMember(), "member");
    }
}
