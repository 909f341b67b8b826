package io.kflux.internal.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kflux.ConfigException;
import io.kflux.internal.config.ConsumerConfig;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Test;

/**
 * Which SASL mechanism a configuration picks, and the errors when it cannot be used: without {@code sasl.mechanism}
 * both kflux and the official client use GSSAPI (and both refuse to start without its settings); an unknown
 * mechanism lists what is available. The official {@code KafkaConsumer} is the oracle for what fails at creation.
 */
class SaslMechanismChoiceTest {
    private static final String PLAIN_JAAS = "org.apache.kafka.common.security.plain.PlainLoginModule required "
            + "username=\"alice\" password=\"pw-Lk83\";";

    private static Map<String, Object> props(Object... kv) {
        Map<String, Object> p = new HashMap<>();
        p.put("bootstrap.servers", "127.0.0.1:9");
        for (int i = 0; i < kv.length; i += 2) {
            p.put((String) kv[i], kv[i + 1]);
        }
        return p;
    }

    private static void officialRefuses(Map<String, Object> p) {
        assertThatThrownBy(() -> new KafkaConsumer<>(p, new StringDeserializer(), new StringDeserializer()).close())
                .isInstanceOf(org.apache.kafka.common.KafkaException.class);
    }

    @Test
    void withoutSaslMechanismGssapiIsUsedAndTheMessageSaysSo() {
        Map<String, Object> p = props("security.protocol", "SASL_SSL", "sasl.jaas.config", PLAIN_JAAS);
        assertThatThrownBy(() -> ConnectionSecurities.from(ConsumerConfig.parse(p), null, null))
                .isInstanceOfSatisfying(ConfigException.class, e -> assertThat(e.key()).isEqualTo("sasl.kerberos.service.name"))
                .hasMessageContaining("sasl.mechanism is not set").hasMessageContaining("GSSAPI")
                .hasMessageNotContaining("pw-Lk83");
        officialRefuses(p);

        // with a service name but no login entry, the JAAS entry is what is missing (no JAAS file in this JVM)
        Map<String, Object> noJaas = props("security.protocol", "SASL_PLAINTEXT", "sasl.kerberos.service.name", "kafka");
        assertThatThrownBy(() -> ConnectionSecurities.from(ConsumerConfig.parse(noJaas), null, null))
                .isInstanceOfSatisfying(ConfigException.class, e -> assertThat(e.key()).isEqualTo("sasl.jaas.config"))
                .hasMessageContaining("Krb5LoginModule").hasMessageContaining("sasl.mechanism is not set");
        officialRefuses(noJaas);
    }

    @Test
    void anExplicitGssapiWithEverythingSetIsAcceptedWithoutLoggingInYet() {
        Map<String, Object> p = props("security.protocol", "SASL_PLAINTEXT", "sasl.mechanism", "GSSAPI",
                "sasl.kerberos.service.name", "kafka", "sasl.jaas.config",
                "com.sun.security.auth.module.Krb5LoginModule required useKeyTab=true storeKey=true "
                        + "keyTab=\"/nonexistent/client.keytab\" principal=\"client@KFLUX.TEST\";");
        // the login happens on the first connection, off the event loop; creating the security settings does no I/O
        assertThat(ConnectionSecurities.from(ConsumerConfig.parse(p), null, null).toString())
                .contains("SASL_PLAINTEXT").contains("GSSAPI");
        // the service name may come from the JAAS entry instead, as with the official client
        Map<String, Object> fromJaas = props("security.protocol", "SASL_PLAINTEXT", "sasl.mechanism", "GSSAPI",
                "sasl.jaas.config", "com.sun.security.auth.module.Krb5LoginModule required serviceName=\"kafka\" "
                        + "useKeyTab=true keyTab=\"/nonexistent/client.keytab\" principal=\"client@KFLUX.TEST\";");
        assertThat(ConnectionSecurities.from(ConsumerConfig.parse(fromJaas), null, null).sasl().mechanism())
                .isEqualTo("GSSAPI");
    }

    @Test
    void anUnknownMechanismListsTheAvailableOnes() {
        Map<String, Object> p = props("security.protocol", "SASL_SSL", "sasl.mechanism", "AWS_MSK_IAM");
        assertThatThrownBy(() -> ConnectionSecurities.from(ConsumerConfig.parse(p), null, null))
                .isInstanceOfSatisfying(ConfigException.class, e -> assertThat(e.key()).isEqualTo("sasl.mechanism"))
                .hasMessageContaining("AWS_MSK_IAM")
                .hasMessageContaining("[GSSAPI, PLAIN, SCRAM-SHA-256, SCRAM-SHA-512, OAUTHBEARER]")
                .hasMessageContaining("ServiceLoader");
    }
}
