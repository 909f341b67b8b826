package io.kflux.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import org.apache.kafka.common.errors.RetriableException;
import org.junit.jupiter.api.Test;

class ErrorsTest {

    @Test
    void everyOfficialCodeHasTheSameNameAndRetriableFlag() {
        for (org.apache.kafka.common.protocol.Errors official : org.apache.kafka.common.protocol.Errors.values()) {
            short code = official.code();
            assertThat(Errors.isKnown(code)).as("code %d (%s) known", code, official.name()).isTrue();
            Errors ours = Errors.forCode(code);
            assertThat(ours.code()).isEqualTo(code);
            assertThat(ours.name()).as("name of %d", code).isEqualTo(official.name());
            assertThat(Errors.nameOf(code)).isEqualTo(official.name());
            assertThat(ours.retriable()).as("retriable %s", official.name())
                    .isEqualTo(official.exception() instanceof RetriableException);
        }
    }

    @Test
    void noCodeBeyondTheOfficialOnes() {
        assertThat(Errors.values()).hasSize(org.apache.kafka.common.protocol.Errors.values().length);
        for (Errors ours : Errors.values()) {
            assertThat(org.apache.kafka.common.protocol.Errors.forCode(ours.code()).name()).isEqualTo(ours.name());
        }
        assertThat(Arrays.stream(Errors.values()).mapToInt(Errors::code).max().getAsInt())
                .isEqualTo(Arrays.stream(org.apache.kafka.common.protocol.Errors.values()).mapToInt(e -> e.code()).max().getAsInt());
    }

    @Test
    void unknownCodesFallBackButKeepTheirNumber() {
        for (short code : new short[] {-2, 134, 999, Short.MAX_VALUE, Short.MIN_VALUE}) {
            assertThat(Errors.isKnown(code)).isFalse();
            assertThat(Errors.forCode(code)).isSameAs(Errors.UNKNOWN_SERVER_ERROR);
            assertThat(Errors.nameOf(code)).isEqualTo("UNKNOWN_ERROR_CODE_" + code);
        }
        assertThat(Errors.forCode((short) 0)).isSameAs(Errors.NONE);
        assertThat(Errors.NONE.isNone()).isTrue();
        assertThat(Errors.forCode((short) -1)).isSameAs(Errors.UNKNOWN_SERVER_ERROR);
    }
}
