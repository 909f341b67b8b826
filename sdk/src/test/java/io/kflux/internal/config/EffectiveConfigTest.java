package io.kflux.internal.config;

import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.Deserializer;
import io.kflux.Deserializers;
import io.kflux.Headers;
import io.kflux.PropertyDescription;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The effective-configuration dump (secrets hidden) and the "did you mean" of unknown properties. */
class EffectiveConfigTest {
    private static final List<String> SECRETS = List.of("s3cr3t-truststore", "s3cr3t-jaas", "s3cr3t-client",
            "s3cr3t-url", "s3cr3t-keypass", "s3cr3t-pem-key");

    @Test
    void everyPropertyIsListedWithItsEffectiveValueAndNoSecret() {
        Map<String, Object> props = new LinkedHashMap<>();
        props.put("bootstrap.servers", "b1.example:9092,b2.example:9093");
        props.put("group.id", "orders");
        props.put("ssl.truststore.password", "s3cr3t-truststore");
        props.put("ssl.key.password", "s3cr3t-keypass");
        props.put("ssl.keystore.key", "s3cr3t-pem-key");
        props.put("sasl.jaas.config", "org.apache.kafka.common.security.plain.PlainLoginModule required "
                + "username=\"u\" password=\"s3cr3t-jaas\";");
        props.put("sasl.oauthbearer.client.credentials.client.secret", "s3cr3t-client");
        props.put("sasl.oauthbearer.token.endpoint.url", "https://svc:s3cr3t-url@idp.example/token");
        ConsumerConfig config = ConsumerConfig.parse(props);
        String dump = EffectiveConfig.describe(config, config.generateClientId(), Deserializers.string(),
                new OrderDeserializer(), Map.of("(ConsumerOptions) withCommitBatchSize", 0));

        assertThat(dump).startsWith("ConsumerConfig values:\n\t");
        SECRETS.forEach(secret -> assertThat(dump).doesNotContain(secret));
        assertThat(dump).contains("\n\tssl.truststore.password = [hidden]", "\n\tsasl.jaas.config = [hidden]",
                "\n\tssl.keystore.key = [hidden]", "\n\tssl.key.password = [hidden]",
                "\n\tsasl.oauthbearer.client.credentials.client.secret = [hidden]",
                "\n\tsasl.oauthbearer.token.endpoint.url = https://[hidden]@idp.example/token",
                "\n\tbootstrap.servers = b1.example:9092,b2.example:9093", "\n\tgroup.id = orders",
                "\n\tsession.timeout.ms = 45000", "\n\t(ConsumerOptions) withCommitBatchSize = 0");
        // the generated client id, not the empty default
        assertThat(dump).containsPattern("\n\tclient\\.id = consumer-orders-\\d+");
        assertThat(dump).contains("\n\tssl.keystore.location = null");
        // one line per property in effect, sorted; none that kflux ignores
        List<String> inEffect = ConsumerConfigDef.DEF.keys().values().stream()
                .filter(k -> k.support() != PropertyDescription.Support.IGNORED).map(ConfigKey::name).toList();
        List<String> names = dump.lines().skip(1).map(l -> l.substring(1, l.indexOf(" = "))).toList();
        assertThat(names.subList(0, inEffect.size())).isSorted().containsExactlyInAnyOrderElementsOf(inEffect);
        assertThat(dump).doesNotContain("metric.reporters", EffectiveConfig.IGNORED_HEADING);
    }

    /** A deserializer of the application's own, passed as an object. */
    static final class OrderDeserializer implements Deserializer<String> {
        @Override
        public String deserialize(String topic, Headers headers, java.nio.ByteBuffer data) {
            return data == null ? null : java.nio.charset.StandardCharsets.UTF_8.decode(data).toString();
        }
    }

    @Test
    void theDeserializersInUseAreShownAndIgnoredPropertiesAreMarkedApart() {
        // issue #25: metric.reporters and metrics.num.samples read as if in effect, value.deserializer = null
        Map<String, Object> props = new LinkedHashMap<>();
        props.put("bootstrap.servers", "b1.example:9092");
        props.put("metric.reporters", "com.example.Reporter");
        props.put("metrics.num.samples", "3");
        ConsumerConfig config = ConsumerConfig.parse(props);
        String dump = EffectiveConfig.describe(config, "c", Deserializers.string(), new OrderDeserializer(), Map.of());

        assertThat(dump).contains("\n\tvalue.deserializer = " + OrderDeserializer.class.getName() + "\n");
        // a lambda of kflux's own: its defining class, without the JVM's hidden-class suffix
        assertThat(dump).contains("\n\tkey.deserializer = io.kflux.Deserializers$$Lambda\n")
                .doesNotContain("value.deserializer = null");
        String inEffect = dump.substring(0, dump.indexOf(EffectiveConfig.IGNORED_HEADING));
        String ignored = dump.substring(dump.indexOf(EffectiveConfig.IGNORED_HEADING));
        assertThat(inEffect).doesNotContain("metric.reporters", "metrics.num.samples");
        assertThat(ignored).isEqualTo(EffectiveConfig.IGNORED_HEADING + "\n\tmetric.reporters = com.example.Reporter"
                + "\n\tmetrics.num.samples = 3");
    }

    @Test
    void aMisspelledPropertyGetsTheClosestKnownName() {
        var known = ConsumerConfigDef.DEF.keys().keySet();
        assertThat(KeySuggestion.closest("sesion.timeout.ms", known)).isEqualTo("session.timeout.ms");
        assertThat(KeySuggestion.closest("enable.autocommit", known)).isEqualTo("enable.auto.commit");
        assertThat(KeySuggestion.closest("GROUP.ID", known)).isEqualTo("group.id");
        assertThat(KeySuggestion.closest("auto.offset.rest", known)).isEqualTo("auto.offset.reset");
        // other clients' properties and far-off names get none
        assertThat(KeySuggestion.closest("acks", known)).isNull();
        assertThat(KeySuggestion.closest("linger.ms", known)).isNull();
        assertThat(KeySuggestion.closest("something.else.entirely", known)).isNull();
        assertThat(KeySuggestion.distance("kitten", "sitting", 10)).isEqualTo(3);
        assertThat(KeySuggestion.distance("abc", "abc", 0)).isZero();
    }
}
