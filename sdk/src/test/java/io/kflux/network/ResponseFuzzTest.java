package io.kflux.network;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.kflux.protocol.FuzzChecks;
import io.kflux.protocol.MalformedMessageException;
import io.kflux.protocol.MessageSpec;
import io.kflux.protocol.message.ApiVersionsResponse;
import io.kflux.protocol.message.ConsumerGroupDescribeResponse;
import io.kflux.protocol.message.ConsumerGroupHeartbeatResponse;
import io.kflux.protocol.message.DescribeGroupsResponse;
import io.kflux.protocol.message.FetchResponse;
import io.kflux.protocol.message.FindCoordinatorResponse;
import io.kflux.protocol.message.GetTelemetrySubscriptionsResponse;
import io.kflux.protocol.message.HeartbeatResponse;
import io.kflux.protocol.message.JoinGroupResponse;
import io.kflux.protocol.message.LeaveGroupResponse;
import io.kflux.protocol.message.ListOffsetsResponse;
import io.kflux.protocol.message.MetadataResponse;
import io.kflux.protocol.message.OffsetCommitResponse;
import io.kflux.protocol.message.OffsetFetchResponse;
import io.kflux.protocol.message.OffsetForLeaderEpochResponse;
import io.kflux.protocol.message.PushTelemetryResponse;
import io.kflux.protocol.message.SaslAuthenticateResponse;
import io.kflux.protocol.message.SaslHandshakeResponse;
import io.kflux.protocol.message.ShareAcknowledgeResponse;
import io.kflux.protocol.message.ShareFetchResponse;
import io.kflux.protocol.message.ShareGroupDescribeResponse;
import io.kflux.protocol.message.ShareGroupHeartbeatResponse;
import io.kflux.protocol.message.SyncGroupResponse;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.File;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Coverage-guided fuzzing of every response decoder the client reads, through {@link ResponseDecoder#decode} (the
 * path {@code ConnectionHandler} takes for each frame), at every version kflux supports.
 *
 * <p>Input layout: byte 0 picks the spec ({@link #SPECS}, modulo), byte 1 the version (modulo the spec's range), the
 * rest is the response frame after its size prefix (header, then body). Allowed outcomes: a decoded message, or a
 * {@link MalformedMessageException} holding nothing untyped; the frame's reference count is back to one afterwards
 * (no retained slice leaks on either path), and the allocations stay proportional to the frame.
 *
 * <p>Without {@code JAZZER_FUZZ} this replays the corpus in {@code src/test/resources/io/kflux/network/
 * ResponseFuzzTestInputs/responses}; with it, it fuzzes (see README, "Fuzzing").
 */
class ResponseFuzzTest {
    static final List<MessageSpec<?>> SPECS = List.of(
            ApiVersionsResponse.SPEC, ConsumerGroupHeartbeatResponse.SPEC, DescribeGroupsResponse.SPEC,
            FetchResponse.SPEC, FindCoordinatorResponse.SPEC, HeartbeatResponse.SPEC, JoinGroupResponse.SPEC,
            LeaveGroupResponse.SPEC, ListOffsetsResponse.SPEC, MetadataResponse.SPEC, OffsetCommitResponse.SPEC,
            OffsetFetchResponse.SPEC, OffsetForLeaderEpochResponse.SPEC, SaslAuthenticateResponse.SPEC,
            SaslHandshakeResponse.SPEC, SyncGroupResponse.SPEC, ConsumerGroupDescribeResponse.SPEC,
            // appended, never inserted: byte 0 of the kept corpus indexes this list
            ShareGroupHeartbeatResponse.SPEC, ShareGroupDescribeResponse.SPEC, ShareFetchResponse.SPEC,
            ShareAcknowledgeResponse.SPEC, GetTelemetrySubscriptionsResponse.SPEC, PushTelemetryResponse.SPEC);

    @FuzzTest(maxDuration = "2m")
    void responses(byte[] input) {
        if (input.length < 2) {
            return;
        }
        MessageSpec<?> spec = SPECS.get(Byte.toUnsignedInt(input[0]) % SPECS.size());
        int range = spec.highestVersion() - spec.lowestVersion() + 1;
        short version = (short) (spec.lowestVersion() + Byte.toUnsignedInt(input[1]) % range);
        ByteBuf frame = Unpooled.wrappedBuffer(input, 2, input.length - 2);
        try {
            Object message = FuzzChecks.withinAllocationBound(input.length, FuzzChecks.none(),
                    () -> ResponseDecoder.decode(frame.duplicate(), spec.apiKey(), spec, version));
            assertThat(message).isNotNull();
            FuzzChecks.releaseAll(message);
        } catch (MalformedMessageException e) {
            FuzzChecks.assertTyped(e, MalformedMessageException.class);
        }
        assertThat(frame.refCnt()).as("frame reference count after decoding %s v%d", spec.apiKey(), version)
                .isEqualTo(1);
    }

    /** The fuzz target must not silently miss a response type added later. */
    @Test
    void coversEveryResponseSpec() {
        File dir = new File(FetchResponse.class.getProtectionDomain().getCodeSource().getLocation().getPath(),
                "io/kflux/protocol/message");
        List<String> responses = Arrays.stream(Objects.requireNonNull(dir.list()))
                .filter(n -> n.endsWith("Response.class") && !n.contains("$")).map(n -> n.replace(".class", "")).sorted()
                .collect(Collectors.toList());
        List<String> fuzzed = SPECS.stream().map(s -> s.schema().recordType().getSimpleName()).sorted()
                .collect(Collectors.toList());
        assertThat(fuzzed).isEqualTo(responses);
    }
}
