package io.kflux;

import io.kflux.internal.config.ConsumerConfig;
import io.kflux.internal.config.ConsumerConfigDef;
import io.kflux.internal.config.OptionsAccess;
import io.kflux.internal.config.OptionsParsing;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;
import reactor.core.scheduler.Scheduler;

/**
 * Everything a {@link KafkaFluxConsumer} needs: the properties (the official Java consumer's names, types,
 * defaults and meaning), the key and value deserializers, what to consume (topics, a pattern, or partitions) and
 * an optional rebalance listener.
 *
 * <p>Immutable and thread-safe: every {@code withX}, {@code subscription}, {@code assignment} and
 * {@code rebalanceListener} call returns a copy. Properties are parsed and validated when the options are
 * created or copied with new properties, so configuration errors surface before any I/O.
 *
 * <pre>{@code
 * ConsumerOptions<String, String> options =
 *     ConsumerOptions.create(Map.of("bootstrap.servers", "localhost:9092", "group.id", "orders"),
 *                            Deserializers.string(), Deserializers.string())
 *         .subscription(List.of("orders"));
 * }</pre>
 *
 * @param <K> key type
 * @param <V> value type
 *
 * <p><b>Why one class past 500 lines.</b> It is the public, immutable builder users configure a consumer with;
 * most of its length is Javadoc of each {@code with...} method (shapes, units, errors), and splitting it would
 * split the one place a user looks for options.
 */
public final class ConsumerOptions<K, V> {

    /** What a consumer built from these options reads. */
    public enum SubscriptionType {
        /** Nothing chosen yet; {@link KafkaFluxConsumer#create} refuses such options. */
        NONE,
        /** A fixed list of topics, with group management ({@code group.id} required). */
        TOPICS,
        /** Every topic whose name matches a regular expression, with group management ({@code group.id} required). */
        PATTERN,
        /** A fixed list of partitions, without group management (commits still go to {@code group.id} if set). */
        ASSIGNMENT
    }

    static {
        // the implementation reads the parsed configuration through this; users see only properties()
        OptionsAccess.install(options -> options.state.config);
    }

    private static final RebalanceListener NO_OP_LISTENER = new RebalanceListener() {
        @Override
        public String toString() {
            return "no-op";
        }
    };

    /** Everything these options hold, in one value: a copy is a copy of it with one thing changed. */
    private final State state;

    /**
     * The options' values. Mutable only while a copy is being made ({@link #with}); once a {@code ConsumerOptions}
     * holds it, it never changes (published through the final field). Adding an option takes a field here, its line
     * in the copy constructor, and its {@code withX}.
     */
    private static final class State {
        Map<String, Object> properties;
        /** The parsed properties; parsing lives in {@code internal.config} ({@link OptionsParsing}). */
        ConsumerConfig config;
        Deserializer<?> keyDeserializer;
        Deserializer<?> valueDeserializer;
        SubscriptionType subscriptionType = SubscriptionType.NONE;
        List<String> topics = List.of();
        Pattern pattern;
        List<TopicPartition> partitions = List.of();
        RebalanceListener listener = NO_OP_LISTENER;
        long maxBufferedBytes = -1L;
        DeserializationErrorHandler deserializationErrorHandler = DeserializationErrorHandler.fail();
        int commitBatchSize;
        OAuthBearerTokenProvider tokenProvider;
        SaslMechanism saslMechanism;
        // Held as Object: Micrometer is an optional dependency, and these options must load (and be copied) without it.
        Object meterRegistry;
        Object observationRegistry;
        Scheduler emitScheduler;

        State(Map<String, Object> properties, Deserializer<?> keyDeserializer, Deserializer<?> valueDeserializer) {
            this.properties = properties;
            this.config = OptionsParsing.parse(properties);
            this.keyDeserializer = keyDeserializer;
            this.valueDeserializer = valueDeserializer;
        }

        State(State s) {
            properties = s.properties;
            config = s.config;
            keyDeserializer = s.keyDeserializer;
            valueDeserializer = s.valueDeserializer;
            subscriptionType = s.subscriptionType;
            topics = s.topics;
            pattern = s.pattern;
            partitions = s.partitions;
            listener = s.listener;
            maxBufferedBytes = s.maxBufferedBytes;
            deserializationErrorHandler = s.deserializationErrorHandler;
            commitBatchSize = s.commitBatchSize;
            tokenProvider = s.tokenProvider;
            saslMechanism = s.saslMechanism;
            meterRegistry = s.meterRegistry;
            observationRegistry = s.observationRegistry;
            emitScheduler = s.emitScheduler;
        }
    }

    private ConsumerOptions(State state) {
        this.state = state;
    }

    /** A copy of these options with {@code change} applied to its state (the key and value types may change). */
    private <K2, V2> ConsumerOptions<K2, V2> with(java.util.function.Consumer<State> change) {
        State copy = new State(state);
        change.accept(copy);
        return new ConsumerOptions<>(copy);
    }

    /** One subscription replaces any other. */
    private static void subscribe(State s, SubscriptionType type, List<String> topics, Pattern pattern,
                                  List<TopicPartition> partitions) {
        s.subscriptionType = type;
        s.topics = topics;
        s.pattern = pattern;
        s.partitions = partitions;
    }

    // ------------------------------------------------------------------------------------------ factories

    /**
     * Creates options with the given deserializers. {@code key.deserializer} and {@code value.deserializer} in
     * {@code props}, if any, are ignored.
     *
     * @param props             consumer properties; values as strings or typed ({@code Integer}, {@code Long},
     *                          {@code Boolean}, {@code List}, ...); {@code bootstrap.servers} is required. Copied.
     * @param keyDeserializer   key deserializer, never {@code null}
     * @param valueDeserializer value deserializer, never {@code null}
     * @param <K>               key type
     * @param <V>               value type
     * @return options with no subscription yet
     * @throws ConfigException      for a missing required property, a bad value, or contradicting values; the
     *                              message names the key, the value and what is allowed
     * @throws NullPointerException if an argument is {@code null}
     */
    public static <K, V> ConsumerOptions<K, V> create(Map<String, ?> props, Deserializer<K> keyDeserializer,
                                                      Deserializer<V> valueDeserializer) {
        Objects.requireNonNull(props, "props");
        Objects.requireNonNull(keyDeserializer, "keyDeserializer");
        Objects.requireNonNull(valueDeserializer, "valueDeserializer");
        return new ConsumerOptions<>(new State(OptionsParsing.copy(props), keyDeserializer, valueDeserializer));
    }

    /**
     * Creates options that hand out keys and values as {@code byte[]} copies ({@link Deserializers#byteArray()}).
     *
     * @param props consumer properties, as for {@link #create(Map, Deserializer, Deserializer)}
     * @return options with no subscription yet
     * @throws ConfigException      as {@link #create(Map, Deserializer, Deserializer)}, and when
     *                              {@code key.deserializer} or {@code value.deserializer} names anything but the
     *                              official {@code ByteArrayDeserializer} (use {@link #fromProperties(Map)} then,
     *                              or pass deserializers)
     * @throws NullPointerException if {@code props} is {@code null}
     */
    public static ConsumerOptions<byte[], byte[]> create(Map<String, ?> props) {
        Objects.requireNonNull(props, "props");
        OptionsParsing.requireByteArrayDeserializers(props);
        return create(props, Deserializers.byteArray(), Deserializers.byteArray());
    }

    /**
     * Creates options taking the deserializers from {@code key.deserializer} and {@code value.deserializer}, as the
     * official client does, so existing property maps work unchanged. Each may be a {@link Deserializer} instance,
     * a {@code Class}, or a class name: the official client's String, ByteArray, ByteBuffer, Long, Integer, Short,
     * Double, Float, UUID and Void deserializer names map to the matching {@link Deserializers}; any other class
     * must implement {@link Deserializer} and have a public no-argument constructor, or be accepted by a
     * {@link DeserializerProvider} on the class path (with {@code io.kflux:kflux-kafka-serde} there, any
     * {@code org.apache.kafka.common.serialization.Deserializer}, configured once with these properties).
     *
     * <p>Deserializers made here are created once per call and closed when a consumer built from these options
     * closes: call this method once per consumer when they hold resources.
     *
     * <p>The key and value types are not checked against {@code K} and {@code V} (as with the official client's
     * constructor): a mismatch shows up as a {@link ClassCastException} where the records are used.
     *
     * @param props consumer properties, including both deserializer properties
     * @param <K>   key type
     * @param <V>   value type
     * @return options with no subscription yet
     * @throws ConfigException      when a deserializer property is missing or unusable, and as
     *                              {@link #create(Map, Deserializer, Deserializer)}
     * @throws NullPointerException if {@code props} is {@code null}
     */
    public static <K, V> ConsumerOptions<K, V> fromProperties(Map<String, ?> props) {
        Objects.requireNonNull(props, "props");
        Map<String, Object> copy = OptionsParsing.copy(props);
        return new ConsumerOptions<>(new State(copy, OptionsParsing.deserializer(copy, ConsumerConfigDef.KEY_DESERIALIZER),
                OptionsParsing.deserializer(copy, ConsumerConfigDef.VALUE_DESERIALIZER)));
    }

    // ------------------------------------------------------------------------------------------ copies

    /**
     * Consumes these topics with group management (partitions assigned by the group). Replaces any previous
     * subscription or assignment. Requires {@code group.id} (checked by {@link KafkaFluxConsumer#create}).
     *
     * @param topics topic names; duplicates are dropped, order kept
     * @return a copy
     * @throws NullPointerException     if {@code topics} or an element is {@code null}
     * @throws IllegalArgumentException if {@code topics} is empty or a name is blank
     * @throws InvalidTopicException    if a name breaks the broker's rules for topic names (1 to 249 characters,
     *                                  only ASCII letters, digits, '.', '_' and '-', not "." or ".."); it lists
     *                                  every illegal name
     */
    public ConsumerOptions<K, V> subscription(Collection<String> topics) {
        Objects.requireNonNull(topics, "topics");
        LinkedHashSet<String> set = new LinkedHashSet<>();
        for (String t : topics) {
            Objects.requireNonNull(t, "topic");
            if (t.isBlank()) {
                throw new IllegalArgumentException("blank topic name in subscription " + topics);
            }
            set.add(t);
        }
        if (set.isEmpty()) {
            throw new IllegalArgumentException("subscription needs at least one topic");
        }
        TopicNames.check(set);
        List<String> subscribed = List.copyOf(set);
        return with(s -> subscribe(s, SubscriptionType.TOPICS, subscribed, null, List.of()));
    }

    /**
     * Consumes every topic whose whole name matches the pattern, with group management; topics created or deleted
     * later are picked up at the next metadata refresh ({@code metadata.max.age.ms}). Internal topics are excluded
     * while {@code exclude.internal.topics=true}. Replaces any previous subscription or assignment. Requires
     * {@code group.id}.
     *
     * @param pattern regular expression matched against whole topic names
     * @return a copy
     * @throws NullPointerException if {@code pattern} is {@code null}
     */
    public ConsumerOptions<K, V> subscription(Pattern pattern) {
        Objects.requireNonNull(pattern, "pattern");
        return with(s -> subscribe(s, SubscriptionType.PATTERN, List.of(), pattern, List.of()));
    }

    /**
     * Consumes exactly these partitions, without joining a group (no rebalances; the rebalance listener is not
     * called). Offsets can still be committed when {@code group.id} is set. Replaces any previous subscription or
     * assignment.
     *
     * @param partitions the partitions; duplicates are dropped, order kept
     * @return a copy
     * @throws NullPointerException     if {@code partitions} or an element is {@code null}
     * @throws IllegalArgumentException if {@code partitions} is empty
     * @throws InvalidTopicException    if a topic name breaks the broker's rules for topic names (see
     *                                  {@link #subscription(Collection)})
     */
    public ConsumerOptions<K, V> assignment(Collection<TopicPartition> partitions) {
        Objects.requireNonNull(partitions, "partitions");
        LinkedHashSet<TopicPartition> set = new LinkedHashSet<>();
        for (TopicPartition tp : partitions) {
            set.add(Objects.requireNonNull(tp, "partition"));
        }
        if (set.isEmpty()) {
            throw new IllegalArgumentException("assignment needs at least one partition");
        }
        TopicNames.check(set.stream().map(TopicPartition::topic).toList());
        List<TopicPartition> assigned = List.copyOf(set);
        return with(s -> subscribe(s, SubscriptionType.ASSIGNMENT, List.of(), null, assigned));
    }

    /**
     * Sets the rebalance listener (replacing any previous one). It is called only with a group subscription
     * ({@link #subscription(Collection) topics} or a pattern): with a manual {@link #assignment(Collection)} nothing
     * is assigned or revoked by a group, so it is never called; seek before subscribing instead.
     *
     * @param listener the listener, never {@code null}
     * @return a copy
     * @throws NullPointerException if {@code listener} is {@code null}
     */
    public ConsumerOptions<K, V> rebalanceListener(RebalanceListener listener) {
        Objects.requireNonNull(listener, "listener");
        return with(s -> s.listener = listener);
    }

    /**
     * Sets (or, with a {@code null} value, removes) one property and revalidates all of them. The deserializers
     * stay as they are, even when {@code key.deserializer} or {@code value.deserializer} changes: use
     * {@link #withKeyDeserializer} / {@link #withValueDeserializer} for that.
     *
     * @param key   property name, never {@code null}
     * @param value string or typed value; {@code null} removes the property (its default applies)
     * @return a copy
     * @throws ConfigException      as {@link #create(Map, Deserializer, Deserializer)}
     * @throws NullPointerException if {@code key} is {@code null}
     */
    public ConsumerOptions<K, V> withProperty(String key, Object value) {
        Objects.requireNonNull(key, "key");
        Map<String, Object> m = new LinkedHashMap<>(state.properties);
        if (value == null) {
            m.remove(key);
        } else {
            m.put(key, value);
        }
        return withAllProperties(m);
    }

    /**
     * Adds or replaces several properties and revalidates all of them.
     *
     * @param props properties to set; a {@code null} value removes that property
     * @return a copy
     * @throws ConfigException      as {@link #create(Map, Deserializer, Deserializer)}
     * @throws NullPointerException if {@code props} or one of its keys is {@code null}
     */
    public ConsumerOptions<K, V> withProperties(Map<String, ?> props) {
        Objects.requireNonNull(props, "props");
        Map<String, Object> m = new LinkedHashMap<>(state.properties);
        props.forEach((k, v) -> {
            Objects.requireNonNull(k, "property names must not be null");
            if (v == null) {
                m.remove(k);
            } else {
                m.put(k, v);
            }
        });
        return withAllProperties(m);
    }

    private ConsumerOptions<K, V> withAllProperties(Map<String, Object> m) {
        Map<String, Object> copy = OptionsParsing.copy(m);
        ConsumerConfig parsed = OptionsParsing.parse(copy);
        return with(s -> {
            s.properties = copy;
            s.config = parsed;
        });
    }

    /**
     * Replaces the key deserializer.
     *
     * @param keyDeserializer the new key deserializer, never {@code null}
     * @param <K2>            new key type
     * @return a copy
     * @throws NullPointerException if {@code keyDeserializer} is {@code null}
     */
    public <K2> ConsumerOptions<K2, V> withKeyDeserializer(Deserializer<K2> keyDeserializer) {
        Objects.requireNonNull(keyDeserializer, "keyDeserializer");
        return with(s -> s.keyDeserializer = keyDeserializer);
    }

    /**
     * Replaces the value deserializer.
     *
     * @param valueDeserializer the new value deserializer, never {@code null}
     * @param <V2>              new value type
     * @return a copy
     * @throws NullPointerException if {@code valueDeserializer} is {@code null}
     */
    public <V2> ConsumerOptions<K, V2> withValueDeserializer(Deserializer<V2> valueDeserializer) {
        Objects.requireNonNull(valueDeserializer, "valueDeserializer");
        return with(s -> s.valueDeserializer = valueDeserializer);
    }

    /**
     * Bounds the bytes fetched from brokers but not yet emitted downstream (kflux's own setting; the official
     * client has no equivalent because it only fetches inside {@code poll()}). While the buffer holds this many
     * bytes or more, no new Fetch is sent; a single response may still take it over the bound, so a batch larger
     * than the bound does not block progress.
     *
     * @param bytes the bound in bytes, {@code >= 1}
     * @return a copy
     * @throws IllegalArgumentException if {@code bytes < 1}
     */
    public ConsumerOptions<K, V> withMaxBufferedBytes(long bytes) {
        if (bytes < 1) {
            throw new IllegalArgumentException("maxBufferedBytes must be >= 1, was " + bytes);
        }
        return with(s -> s.maxBufferedBytes = bytes);
    }

    /**
     * Decides what happens when a key or value deserializer throws: by default
     * ({@link DeserializationErrorHandler#fail()}) {@code receive()} ends with the
     * {@link RecordDeserializationException}, after every record before it, and the position stays at that record.
     * With {@link DeserializationErrorHandler#logAndSkip()} or a handler of your own answering
     * {@link DeserializationErrorHandler.Decision#SKIP}, the record is never emitted and consumption goes on with the
     * next one; the skipped record counts as consumed (its offset is committable once the records before it are
     * acknowledged), so it never holds commits back. No other record is skipped.
     *
     * @param handler called on the consumer's emitting thread with the failure (topic, partition, offset, key or
     *                value, the deserializer's exception as the cause); it must not block. A handler that throws
     *                ends {@code receive()} with the {@link RecordDeserializationException}, the handler's exception
     *                added as suppressed
     * @return a copy
     * @throws NullPointerException if {@code handler} is {@code null}
     */
    public ConsumerOptions<K, V> withDeserializationErrorHandler(DeserializationErrorHandler handler) {
        Objects.requireNonNull(handler, "handler");
        return with(s -> s.deserializationErrorHandler = handler);
    }

    /**
     * Supplies SASL/OAUTHBEARER tokens programmatically; with {@code sasl.mechanism=OAUTHBEARER} it replaces
     * the token that {@code sasl.jaas.config} would describe (which may then be left out). See
     * {@link OAuthBearerTokenProvider} for caching and threading.
     *
     * @param provider the token source, never {@code null}
     * @return a copy
     * @throws NullPointerException if {@code provider} is {@code null}
     */
    public ConsumerOptions<K, V> withOAuthBearerTokenProvider(OAuthBearerTokenProvider provider) {
        Objects.requireNonNull(provider, "provider");
        return with(s -> s.tokenProvider = provider);
    }

    /**
     * Plugs in a SASL mechanism kflux does not build in; it is used when {@code sasl.mechanism} names it (with
     * {@code security.protocol} SASL_PLAINTEXT or SASL_SSL). Mechanisms can also be found by
     * {@link java.util.ServiceLoader}.
     *
     * @param mechanism the mechanism, never {@code null}
     * @return a copy
     * @throws NullPointerException if {@code mechanism} is {@code null}
     */
    public ConsumerOptions<K, V> withSaslMechanism(SaslMechanism mechanism) {
        Objects.requireNonNull(mechanism, "mechanism");
        return with(s -> s.saslMechanism = mechanism);
    }


    /**
     * Commits once {@code acknowledgements} records were acknowledged since the last commit this option made, besides
     * the periodic commit of {@code enable.auto.commit} (reactor-kafka's {@code commitBatchSize}). What is committed
     * is the acknowledged prefix of every partition, as for {@link KafkaFluxConsumer#commit()}; a failed batch commit
     * is logged at WARN and does not end {@code receive()}. Works whatever {@code enable.auto.commit} says; needs a
     * {@code group.id} (without one, acknowledgements are not tracked and nothing is committed).
     *
     * @param acknowledgements records per commit, {@code >= 1}; 0 turns batch commits off (the default)
     * @return a copy
     * @throws IllegalArgumentException if {@code acknowledgements < 0}
     */
    public ConsumerOptions<K, V> withCommitBatchSize(int acknowledgements) {
        if (acknowledgements < 0) {
            throw new IllegalArgumentException("commitBatchSize must be >= 0, was " + acknowledgements);
        }
        return with(s -> s.commitBatchSize = acknowledgements);
    }

    /**
     * Publishes this consumer's metrics as Micrometer meters in {@code registry}: named, typed and tagged as
     * Micrometer's {@code KafkaClientMetrics} publishes the official consumer's ({@code kafka.consumer.*}, tags
     * {@code client.id} and {@code kafka.version} on every meter, kflux's version in the latter), so dashboards built
     * for the official client work unchanged; kflux's own meters start with {@code kflux.}. Meters are registered
     * when {@code receive()} is first subscribed to and removed when the consumer closes; consumers sharing a
     * registry are told apart by {@code client.id} (generated as {@code consumer-<group.id>-<n>} when not set, as
     * the official client does). The guide's "Metrics and tracing" chapter lists every meter.
     *
     * <p>Needs {@code io.micrometer:micrometer-core} on the class path (an optional dependency of kflux); without
     * a registry kflux records nothing and needs no Micrometer.
     *
     * @param registry where the meters go
     * @return a copy
     * @throws NullPointerException if {@code registry} is {@code null}
     */
    public ConsumerOptions<K, V> withMeterRegistry(io.micrometer.core.instrument.MeterRegistry registry) {
        Objects.requireNonNull(registry, "registry");
        return with(s -> s.meterRegistry = registry);
    }

    /**
     * Traces record processing with Micrometer Observation: one observation per record delivered to the
     * {@code receive()} subscriber, spanning its {@code onNext} (name {@code kflux.consumer.process}, contextual name
     * {@code "<topic> process"}, kind CONSUMER, tags {@code messaging.system=kafka}, {@code messaging.operation},
     * {@code messaging.destination.name}, {@code messaging.kafka.consumer.group}, {@code messaging.client.id}; the
     * partition and offset as high-cardinality tags). Its context reads the record's headers, so with Micrometer
     * Tracing (or its OpenTelemetry bridge) the consumer span continues the W3C {@code traceparent} the producer
     * wrote. Work done asynchronously after {@code onNext} returns is outside the observation. Without a registry
     * (the default) nothing is observed and nothing is allocated for it.
     *
     * <p>Needs {@code io.micrometer:micrometer-observation} on the class path (an optional dependency of kflux).
     *
     * @param registry where observations go
     * @return a copy
     * @throws NullPointerException if {@code registry} is {@code null}
     */
    public ConsumerOptions<K, V> withObservationRegistry(io.micrometer.observation.ObservationRegistry registry) {
        Objects.requireNonNull(registry, "registry");
        return with(s -> s.observationRegistry = registry);
    }

    /**
     * Emits this consumer's records on {@code scheduler} instead of kflux's default emit scheduler. What runs there:
     * the key and value deserializers, the {@link DeserializationErrorHandler}, the {@code receive()} subscriber's
     * {@code onNext} and every operator after it up to the next {@code publishOn}. Each {@code receive()} subscription
     * takes one {@link Scheduler.Worker} of it ({@code createWorker()}), emits one record at a time on it and disposes
     * that worker when the subscription ends; kflux never disposes {@code scheduler} itself, so the caller disposes it
     * once no consumer uses it any more: close the consumers first. A scheduler that is disposed when
     * {@code receive()} is subscribed to ends the subscription at once with an {@link IllegalStateException}; one that
     * refuses a new task of the emitter later ends it with an {@link IllegalStateException} as well. But disposing a
     * scheduler drops the tasks already queued on it without a word (Reactor's schedulers shut their executors down
     * at once), and a subscription whose emitting task was queued at that moment is left without emission and without
     * an end; kflux does not detect that yet.
     *
     * <p>The default is shared by every consumer in the JVM: at most twice as many threads ({@code kflux-emit-N},
     * daemons, ended after 60 s unused) as kflux has I/O loops ({@code kflux-io-*}, the available processors but at
     * least 4), however many consumers there are. With more consumers than threads, several consumers are pinned to
     * one thread: a subscriber that blocks in {@code onNext} holds that thread and delays every other consumer pinned
     * to it, not only its own (consumers that do not block take turns there, at most 1,024 records each). A subscriber
     * that blocks (JDBC, a synchronous HTTP call) should pass
     * {@code Schedulers.boundedElastic()} or a scheduler of its own here, or move the blocking work off the emitting
     * thread with {@code publishOn} or {@code flatMap(... subscribeOn(...))}. A single-threaded scheduler
     * ({@code Schedulers.newSingle}) shared by several consumers emits their records one consumer at a time.
     *
     * <p>The scheduler must run tasks on threads of its own: with {@code Schedulers.immediate()} records would be
     * decoded on kflux's I/O threads, which must never wait for a subscriber.
     *
     * <p>This is where reactor-kafka's {@code ReceiverOptions.schedulerSupplier} maps to (there records were published
     * on that scheduler, which reactor-kafka disposed on close).
     *
     * @param scheduler where this consumer's records are emitted
     * @return a copy
     * @throws NullPointerException if {@code scheduler} is {@code null}
     */
    public ConsumerOptions<K, V> withEmitScheduler(Scheduler scheduler) {
        Objects.requireNonNull(scheduler, "scheduler");
        return with(s -> s.emitScheduler = scheduler);
    }

    /**
     * The scheduler set with {@link #withEmitScheduler}.
     *
     * @return the scheduler, or empty when records are emitted on kflux's default emit scheduler
     */
    public Optional<Scheduler> emitScheduler() {
        return Optional.ofNullable(state.emitScheduler);
    }

    /**
     * The registry set with {@link #withObservationRegistry}, typed as {@code Object} so that calling this needs no
     * Micrometer on the class path.
     *
     * @return the {@code ObservationRegistry}, or empty when tracing is off (the default)
     */
    public Optional<Object> observationRegistry() {
        return Optional.ofNullable(state.observationRegistry);
    }

    /**
     * The registry set with {@link #withMeterRegistry}, typed as {@code Object} so that calling this needs no
     * Micrometer on the class path.
     *
     * @return the {@code MeterRegistry}, or empty when metrics are off (the default)
     */
    public Optional<Object> meterRegistry() {
        return Optional.ofNullable(state.meterRegistry);
    }

    /**
     * Acknowledgements per batch commit (see {@link #withCommitBatchSize}).
     *
     * @return the batch size; 0 when batch commits are off
     */
    public int commitBatchSize() {
        return state.commitBatchSize;
    }

    // ------------------------------------------------------------------------------------------ accessors

    /**
     * The token provider set with {@link #withOAuthBearerTokenProvider}.
     *
     * @return the provider, if any
     */
    public Optional<OAuthBearerTokenProvider> oauthBearerTokenProvider() {
        return Optional.ofNullable(state.tokenProvider);
    }

    /**
     * The SASL mechanism set with {@link #withSaslMechanism}.
     *
     * @return the mechanism, if any
     */
    public Optional<SaslMechanism> saslMechanism() {
        return Optional.ofNullable(state.saslMechanism);
    }

    /**
     * The properties as given (unparsed), including unknown ones.
     *
     * @return an unmodifiable map in the order given
     */
    public Map<String, Object> properties() {
        return state.properties;
    }

    /**
     * The key deserializer.
     *
     * @return never {@code null}
     */
    @SuppressWarnings("unchecked") // typed by the factory or withKeyDeserializer that set it
    public Deserializer<K> keyDeserializer() {
        return (Deserializer<K>) state.keyDeserializer;
    }

    /**
     * The value deserializer.
     *
     * @return never {@code null}
     */
    @SuppressWarnings("unchecked") // typed by the factory or withValueDeserializer that set it
    public Deserializer<V> valueDeserializer() {
        return (Deserializer<V>) state.valueDeserializer;
    }

    /**
     * Which kind of subscription was chosen.
     *
     * @return NONE, TOPICS, PATTERN or ASSIGNMENT
     */
    public SubscriptionType subscriptionType() {
        return state.subscriptionType;
    }

    /**
     * The subscribed topics.
     *
     * @return an unmodifiable list, empty unless {@link #subscriptionType()} is TOPICS
     */
    public List<String> subscribedTopics() {
        return state.topics;
    }

    /**
     * The subscription pattern.
     *
     * @return the pattern, present only when {@link #subscriptionType()} is PATTERN
     */
    public Optional<Pattern> subscribedPattern() {
        return Optional.ofNullable(state.pattern);
    }

    /**
     * The manually assigned partitions.
     *
     * @return an unmodifiable list, empty unless {@link #subscriptionType()} is ASSIGNMENT
     */
    public List<TopicPartition> assignedPartitions() {
        return state.partitions;
    }

    /**
     * The rebalance listener.
     *
     * @return the listener set, or a listener that does nothing
     */
    public RebalanceListener rebalanceListener() {
        return state.listener;
    }

    /**
     * The bound on fetched-but-not-emitted bytes (see {@link #withMaxBufferedBytes(long)}).
     *
     * @return bytes; unless set, twice {@code fetch.max.bytes} (one response being emitted while the next
     *         arrives), at least 1
     */
    public long maxBufferedBytes() {
        return OptionsParsing.maxBufferedBytes(state.config, state.maxBufferedBytes);
    }

    /**
     * What happens when a deserializer throws (see {@link #withDeserializationErrorHandler}).
     *
     * @return the handler; {@link DeserializationErrorHandler#fail()} unless set
     */
    public DeserializationErrorHandler deserializationErrorHandler() {
        return state.deserializationErrorHandler;
    }

    /**
     * Every consumer property kflux knows, with type, default, a one-line description and whether it is honoured,
     * in a stable order. Meant for generating and checking documentation.
     *
     * @return an unmodifiable list
     */
    public static List<PropertyDescription> describeProperties() {
        return ConsumerConfigDef.DEF.describe();
    }

    /**
     * Checks what {@link KafkaFluxConsumer#create} needs beyond valid properties.
     *
     * @throws IllegalArgumentException when no subscription or assignment was chosen
     * @throws ConfigException          when subscribing to topics or a pattern without {@code group.id}
     */
    void checkConsumable() {
        OptionsParsing.checkConsumable(state.config, state.subscriptionType, state.pattern);
    }

    /**
     * Describes the options with password values hidden.
     *
     * @return a single-line description
     */
    @Override
    public String toString() {
        List<String> parts = new ArrayList<>();
        parts.add("properties=" + ConsumerConfig.masked(state.properties));
        parts.add("subscription=" + switch (state.subscriptionType) {
            case NONE -> "none";
            case TOPICS -> "topics" + state.topics;
            case PATTERN -> "pattern(" + state.pattern + ")";
            case ASSIGNMENT -> "partitions" + state.partitions;
        });
        parts.add("rebalanceListener=" + state.listener);
        parts.add("maxBufferedBytes=" + maxBufferedBytes());
        parts.add("deserializationErrorHandler=" + state.deserializationErrorHandler);
        if (state.commitBatchSize > 0) {
            parts.add("commitBatchSize=" + state.commitBatchSize);
        }
        if (state.emitScheduler != null) {
            parts.add("emitScheduler=" + state.emitScheduler);
        }
        return "ConsumerOptions" + parts;
    }
}
