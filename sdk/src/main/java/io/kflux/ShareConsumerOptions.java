package io.kflux;

import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * The configuration of a {@link KafkaShareConsumer} (share groups, KIP-932, brokers 4.2+): immutable, each
 * {@code with...}/{@code subscription} call returns a copy. It takes the official share consumer's property names:
 * {@code bootstrap.servers} and {@code group.id} (the share group) are required; {@code share.acknowledgement.mode}
 * is {@code implicit} (the default, as the official client) or {@code explicit}; {@code share.lock.renewal.max.ms}
 * (kflux's own, see {@link ShareRecord}) bounds the automatic renewal of locks; {@code fetch.max.wait.ms},
 * {@code fetch.min.bytes}, {@code fetch.max.bytes}, {@code max.poll.records}, {@code client.rack},
 * {@code request.timeout.ms}, {@code retry.backoff.ms}/{@code retry.backoff.max.ms} and the security properties
 * mean what they mean for {@link ConsumerOptions}, whose parsing and validation this uses. Consumer-group
 * properties a share group has no use for ({@code auto.offset.reset}, {@code isolation.level},
 * {@code enable.auto.commit}, ...) are refused, as the official share consumer refuses them; a share group's start
 * and isolation are its group configs {@code share.auto.offset.reset} and {@code share.isolation.level}.
 *
 * @param <K> key type
 * @param <V> value type
 */
public final class ShareConsumerOptions<K, V> {
    /** The property naming the acknowledgement mode. */
    public static final String ACKNOWLEDGEMENT_MODE = "share.acknowledgement.mode";

    /** How records are acknowledged (the official share consumer's {@code share.acknowledgement.mode}). */
    public enum AcknowledgementMode {
        /**
         * A record counts as accepted once the subscriber requested the next record after it (its
         * {@code request(n)} that follows the record's {@code onNext}); {@link ShareRecord#acknowledge} is refused.
         */
        IMPLICIT,
        /** Every record must be acknowledged with {@link ShareRecord#acknowledge} (or a shortcut). */
        EXPLICIT
    }

    /**
     * Consumer-group properties a share consumer cannot honour, each with what to do instead. The official share
     * consumer refuses the same keys ({@code ShareConsumerConfig}: "cannot be set when using a share group"), so a
     * configuration copied from a consumer group fails at once instead of being silently without effect (e.g.
     * {@code auto.offset.reset=earliest}, which a share group takes from its group config). {@code session.timeout.ms}
     * is not among them: kflux reads it as the share group's session timeout (the guide's Share groups chapter).
     */
    private static final Map<String, String> REFUSED = Map.of(
            "auto.offset.reset", "not set: a share group starts where its group config share.auto.offset.reset says"
                    + " (Admin incrementalAlterConfigs on ConfigResource.Type.GROUP)",
            "isolation.level", "not set: a share group reads under its group config share.isolation.level",
            "enable.auto.commit", "not set: a share group has no offsets to commit (records are acknowledged)",
            "group.instance.id", "not set: share groups have no static membership",
            "partition.assignment.strategy", "not set: the broker assigns a share group's partitions",
            "group.remote.assignor", "not set: the broker assigns a share group's partitions",
            "group.protocol", "not set: a share consumer speaks the share group protocol",
            "heartbeat.interval.ms", "not set: the broker sets a share member's heartbeat interval"
                    + " (group config share.heartbeat.interval.ms)");

    private final ConsumerOptions<K, V> consumer;
    private final AcknowledgementMode mode;

    private ShareConsumerOptions(ConsumerOptions<K, V> consumer, AcknowledgementMode mode) {
        this.consumer = consumer;
        this.mode = mode;
    }

    /**
     * Creates options from properties and deserializers.
     *
     * @param props             properties, as for {@link ConsumerOptions#create}; {@code group.id} required
     * @param keyDeserializer   key deserializer
     * @param valueDeserializer value deserializer
     * @return options without a subscription yet
     * @throws ConfigException      for a missing {@code group.id}, a {@code share.acknowledgement.mode} other than
     *                              {@code implicit}/{@code explicit}, a consumer-group property a share consumer
     *                              cannot honour ({@code auto.offset.reset}, {@code isolation.level},
     *                              {@code enable.auto.commit}, {@code group.instance.id},
     *                              {@code partition.assignment.strategy}, {@code group.remote.assignor},
     *                              {@code group.protocol}, {@code heartbeat.interval.ms}: as the official share
     *                              consumer, the message says what to set instead), and as
     *                              {@link ConsumerOptions#create}
     * @throws NullPointerException if an argument is null
     */
    public static <K, V> ShareConsumerOptions<K, V> create(Map<String, ?> props, Deserializer<K> keyDeserializer,
                                                           Deserializer<V> valueDeserializer) {
        Objects.requireNonNull(props, "props");
        Map<String, Object> rest = new LinkedHashMap<>(props);
        Object modeValue = rest.remove(ACKNOWLEDGEMENT_MODE);
        AcknowledgementMode mode = AcknowledgementMode.IMPLICIT;
        if (modeValue != null) {
            String m = modeValue.toString().trim().toLowerCase(Locale.ROOT);
            if (!m.equals("implicit") && !m.equals("explicit")) {
                throw new ConfigException(ACKNOWLEDGEMENT_MODE, modeValue, "implicit or explicit");
            }
            mode = AcknowledgementMode.valueOf(m.toUpperCase(Locale.ROOT));
        }
        for (Map.Entry<String, String> refused : new TreeMap<>(REFUSED).entrySet()) {
            if (rest.containsKey(refused.getKey())) {
                throw new ConfigException(refused.getKey(), rest.get(refused.getKey()), refused.getValue());
            }
        }
        Object group = rest.get("group.id");
        if (group == null || group.toString().isBlank()) {
            throw new ConfigException("group.id", group, "the share group's id (required for a share consumer)");
        }
        return new ShareConsumerOptions<>(ConsumerOptions.create(rest, keyDeserializer, valueDeserializer), mode);
    }

    /**
     * Consumes these topics as a member of the share group.
     *
     * @param topics topic names, at least one
     * @return a copy
     * @throws IllegalArgumentException as {@link ConsumerOptions#subscription(Collection)} (empty, blank names)
     * @throws InvalidTopicException    as {@link ConsumerOptions#subscription(Collection)} (illegal names)
     */
    public ShareConsumerOptions<K, V> subscription(Collection<String> topics) {
        return new ShareConsumerOptions<>(consumer.subscription(topics), mode);
    }

    /**
     * Reports meters to {@code registry}, as {@link ConsumerOptions#withMeterRegistry}.
     *
     * @return a copy
     */
    public ShareConsumerOptions<K, V> withMeterRegistry(io.micrometer.core.instrument.MeterRegistry registry) {
        return new ShareConsumerOptions<>(consumer.withMeterRegistry(registry), mode);
    }

    /**
     * Observes each record's delivery (Micrometer Observation), as {@link ConsumerOptions#withObservationRegistry}
     * does for {@code receive()}: one {@code kflux.consumer.process} observation per {@link ShareRecord}, open while
     * the subscriber's {@code onNext} runs, its parent the W3C {@code traceparent} header when the producer wrote
     * one. Needs {@code io.micrometer:micrometer-observation} on the class path.
     *
     * @param registry where observations go
     * @return a copy
     * @throws NullPointerException if {@code registry} is {@code null}
     */
    public ShareConsumerOptions<K, V> withObservationRegistry(
            io.micrometer.observation.ObservationRegistry registry) {
        return new ShareConsumerOptions<>(consumer.withObservationRegistry(registry), mode);
    }

    /**
     * As {@link ConsumerOptions#withSaslMechanism}.
     *
     * @return a copy
     */
    public ShareConsumerOptions<K, V> withSaslMechanism(SaslMechanism mechanism) {
        return new ShareConsumerOptions<>(consumer.withSaslMechanism(mechanism), mode);
    }

    /**
     * As {@link ConsumerOptions#withOAuthBearerTokenProvider}.
     *
     * @return a copy
     */
    public ShareConsumerOptions<K, V> withOAuthBearerTokenProvider(OAuthBearerTokenProvider provider) {
        return new ShareConsumerOptions<>(consumer.withOAuthBearerTokenProvider(provider), mode);
    }

    /** The acknowledgement mode ({@code share.acknowledgement.mode}). */
    public AcknowledgementMode acknowledgementMode() {
        return mode;
    }

    /** The subscribed topics, empty before {@link #subscription}. */
    public List<String> subscribedTopics() {
        return consumer.subscribedTopics();
    }

    /**
     * The consumer options these share options are parsed as (connection, security, deserializers, fetch sizes).
     *
     * @return the options, without {@code share.acknowledgement.mode}
     */
    public ConsumerOptions<K, V> consumerOptions() {
        return consumer;
    }

    @Override
    public String toString() {
        return "ShareConsumerOptions(" + mode + ", " + consumer + ")";
    }
}
