package io.kflux.protocol.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.kflux.protocol.FuzzChecks;
import io.kflux.protocol.MalformedMessageException;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * Coverage-guided fuzzing of the consumer protocol's embedded formats, which a group leader reads from every other
 * member's JoinGroup metadata and every member from its SyncGroup assignment: {@link ConsumerProtocolSubscription},
 * {@link ConsumerProtocolAssignment}, and the sticky assignors' user data ({@link StickyAssignorUserData},
 * {@link CooperativeStickyAssignorUserData}).
 *
 * <p>Input layout: byte 0 picks the format (modulo 4), the rest is its bytes. Allowed outcomes: a decoded value
 * (the sticky user data formats are lenient by design, as the official assignors: unreadable data reads as "no
 * previous assignment, generation -1", never an error), or a {@link MalformedMessageException} holding nothing
 * untyped; the input buffer's position is left alone, and allocations stay proportional to the input.
 *
 * <p>Without {@code JAZZER_FUZZ} this replays the corpus in {@code src/test/resources/io/kflux/protocol/consumer/
 * ConsumerProtocolFuzzTestInputs/embedded}; with it, it fuzzes (see README, "Fuzzing").
 */
class ConsumerProtocolFuzzTest {

    @FuzzTest(maxDuration = "2m")
    void embedded(byte[] input) {
        if (input.length < 1) {
            return;
        }
        ByteBuffer data = ByteBuffer.wrap(Arrays.copyOfRange(input, 1, input.length));
        int position = data.position();
        try {
            Object value = FuzzChecks.withinAllocationBound(input.length, FuzzChecks.none(), () -> switch (input[0] & 3) {
                case 0 -> ConsumerProtocolSubscription.deserialize(data);
                case 1 -> ConsumerProtocolAssignment.deserialize(data);
                case 2 -> StickyAssignorUserData.deserialize(data);
                default -> CooperativeStickyAssignorUserData.deserialize(data);
            });
            assertThat(value).isNotNull();
        } catch (MalformedMessageException e) {
            assertThat(input[0] & 3).as("the sticky user data formats never fail").isLessThan(2);
            FuzzChecks.assertTyped(e, MalformedMessageException.class);
        }
        assertThat(data.position()).isEqualTo(position);
    }
}
