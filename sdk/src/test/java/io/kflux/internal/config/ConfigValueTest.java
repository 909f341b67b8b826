package io.kflux.internal.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@link ConsumerConfig#value}: the one-call way to read a property (a new property takes its definition and the
 * call where it is used). Every definition's value has the Java type its type promises, so the call never casts
 * wrongly.
 */
class ConfigValueTest {
    private static final ConsumerConfig CONFIG = ConsumerConfig.parse(Map.of("bootstrap.servers", "b:9092",
            "check.crcs", "false", "fetch.max.wait.ms", "250", "group.id", "g", "ssl.key.password", "x"));

    @Test
    void everyDefinedPropertyReadsAsItsTypesJavaType() {
        ConsumerConfigDef.DEF.keys().values().forEach(key -> {
            Object v = CONFIG.value(key.name(), key.type().javaType());
            if (v != null) {
                assertThat(v).as(key.name()).isInstanceOf(key.type().javaType());
            }
        });
        assertThat(CONFIG.value(ConsumerConfigDef.CHECK_CRCS, Boolean.class)).isFalse();
        assertThat(CONFIG.value(ConsumerConfigDef.FETCH_MAX_WAIT_MS, Integer.class)).isEqualTo(250);
        assertThat(CONFIG.value(ConsumerConfigDef.GROUP_ID, String.class)).isEqualTo("g");
        assertThat(CONFIG.value(ConsumerConfigDef.BOOTSTRAP_SERVERS, List.class)).containsExactly("b:9092");
        assertThat(CONFIG.value("ssl.key.password", Password.class).value()).isEqualTo("x");
        assertThat(CONFIG.value(ConsumerConfigDef.SESSION_TIMEOUT_MS, Integer.class)).isEqualTo(45000);
    }

    @Test
    void aWrongTypeOrAnUndefinedNameFailsAtOnce() {
        assertThatThrownBy(() -> CONFIG.value(ConsumerConfigDef.CHECK_CRCS, Integer.class))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("check.crcs")
                .hasMessageContaining("boolean");
        assertThatThrownBy(() -> CONFIG.value("no.such.property", String.class))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("no.such.property");
    }
}
