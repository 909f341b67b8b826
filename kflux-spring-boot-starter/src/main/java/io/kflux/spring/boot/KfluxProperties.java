package io.kflux.spring.boot;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The {@code kflux.*} properties. {@code kflux.consumer} holds what every consumer shares (typically
 * {@code bootstrap.servers} and security); {@code kflux.consumers.<name>} declares one named consumer each, whose
 * Kafka properties are laid over the shared ones. Without any named consumer, {@code kflux.consumer} itself is the
 * one consumer, named {@value #DEFAULT_CONSUMER}.
 *
 * <p>Kafka keys pass through unchanged under {@code properties.*} (e.g.
 * {@code kflux.consumers.orders.properties.group.id=orders}); kflux checks them when the context starts and a bad
 * value fails the start with kflux's {@code ConfigException} text (the key, the value and what is allowed).
 */
@ConfigurationProperties(prefix = "kflux")
public class KfluxProperties {

    /** The name of the consumer {@code kflux.consumer} declares when no named consumer is declared. */
    public static final String DEFAULT_CONSUMER = "default";

    /** Shared by every consumer; the only consumer when {@code kflux.consumers} is empty. */
    private Consumer consumer = new Consumer();

    /** Named consumers, each laid over {@code kflux.consumer}. */
    private Map<String, Consumer> consumers = new LinkedHashMap<>();

    public Consumer getConsumer() {
        return consumer;
    }

    public void setConsumer(Consumer consumer) {
        this.consumer = consumer;
    }

    public Map<String, Consumer> getConsumers() {
        return consumers;
    }

    public void setConsumers(Map<String, Consumer> consumers) {
        this.consumers = consumers;
    }

    /** What a pipeline's failure (its publisher ending with an error) leads to. */
    public enum OnFailure {
        /** Log it and subscribe to the pipeline again after a growing, jittered backoff. */
        RESTART,
        /** Log it, leave the pipeline stopped and report the consumer's health as DOWN. */
        DOWN
    }

    /** One consumer: its Kafka properties, its subscription and what its pipeline does on failure. */
    public static class Consumer {

        /** Kafka consumer properties under their official names, e.g. {@code bootstrap.servers}, {@code group.id}. */
        private Map<String, String> properties = new LinkedHashMap<>();

        /**
         * Topics subscribed to with group management (needs {@code group.id}); a named consumer without topics takes
         * {@code kflux.consumer.topics}. A consumer needs topics unless a {@link KfluxConsumerCustomizer} sets its
         * subscription (pattern) or assignment.
         */
        private List<String> topics = new ArrayList<>();

        /**
         * A Spring SSL bundle ({@code spring.ssl.bundle.*}) to connect with: its trust and key material become kflux's
         * PEM TLS properties and {@code security.protocol} defaults to {@code SSL}. Kafka {@code ssl.*} keys set under
         * {@code properties} win. A named consumer without one takes {@code kflux.consumer.ssl-bundle}.
         */
        private String sslBundle;

        /** What a pipeline failure leads to. */
        private OnFailure onFailure = OnFailure.RESTART;

        /** First wait before a failed pipeline is subscribed to again; doubles (jittered) on each further failure. */
        private Duration restartBackoff = Duration.ofSeconds(1);

        /** Longest wait between two restarts of a failing pipeline. */
        private Duration restartMaxBackoff = Duration.ofSeconds(30);

        /**
         * Time budget of the consumer's close at shutdown (final commit and LeaveGroup); keep it within
         * {@code spring.lifecycle.timeout-per-shutdown-phase}.
         */
        private Duration closeTimeout = Duration.ofSeconds(20);

        public Map<String, String> getProperties() {
            return properties;
        }

        public void setProperties(Map<String, String> properties) {
            this.properties = properties;
        }

        public List<String> getTopics() {
            return topics;
        }

        public void setTopics(List<String> topics) {
            this.topics = topics;
        }

        public String getSslBundle() {
            return sslBundle;
        }

        public void setSslBundle(String sslBundle) {
            this.sslBundle = sslBundle;
        }

        public OnFailure getOnFailure() {
            return onFailure;
        }

        public void setOnFailure(OnFailure onFailure) {
            this.onFailure = onFailure;
        }

        public Duration getRestartBackoff() {
            return restartBackoff;
        }

        public void setRestartBackoff(Duration restartBackoff) {
            this.restartBackoff = restartBackoff;
        }

        public Duration getRestartMaxBackoff() {
            return restartMaxBackoff;
        }

        public void setRestartMaxBackoff(Duration restartMaxBackoff) {
            this.restartMaxBackoff = restartMaxBackoff;
        }

        public Duration getCloseTimeout() {
            return closeTimeout;
        }

        public void setCloseTimeout(Duration closeTimeout) {
            this.closeTimeout = closeTimeout;
        }
    }
}
