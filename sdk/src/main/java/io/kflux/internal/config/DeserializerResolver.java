package io.kflux.internal.config;

import io.kflux.ConfigException;
import io.kflux.Deserializer;
import io.kflux.DeserializerProvider;
import io.kflux.Deserializers;
import java.util.Map;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;

/**
 * Turns a {@code key.deserializer} / {@code value.deserializer} value into a kflux {@link Deserializer}, so that
 * property maps written for the official client keep working: its common deserializer class names map to the
 * built-ins of {@link Deserializers} (which read the same bytes); any other name must be a class implementing
 * {@link Deserializer} with a public no-argument constructor, or a class a {@link DeserializerProvider} found by
 * {@link ServiceLoader} accepts (the {@code kflux-kafka-serde} module's provider accepts every
 * {@code org.apache.kafka.common.serialization.Deserializer}).
 */
public final class DeserializerResolver {

    private static final String PKG = "org.apache.kafka.common.serialization.";
    private static final Map<String, Deserializer<?>> OFFICIAL = Map.of(
        PKG + "StringDeserializer", Deserializers.string(),
        PKG + "ByteArrayDeserializer", Deserializers.byteArray(),
        PKG + "ByteBufferDeserializer", Deserializers.byteBuffer(),
        PKG + "LongDeserializer", Deserializers.longs(),
        PKG + "IntegerDeserializer", Deserializers.integers(),
        PKG + "ShortDeserializer", Deserializers.shorts(),
        PKG + "DoubleDeserializer", Deserializers.doubles(),
        PKG + "FloatDeserializer", Deserializers.floats(),
        PKG + "UUIDDeserializer", Deserializers.uuid(),
        PKG + "VoidDeserializer", Deserializers.voidDeserializer());

    private DeserializerResolver() {
    }

    /**
     * Resolves a class name.
     *
     * @param property           {@code key.deserializer} or {@code value.deserializer}, for error messages
     * @param className          the configured class name
     * @param consumerProperties all consumer properties, handed to a {@link DeserializerProvider}
     * @return the deserializer (a shared built-in, a new instance of the named class, or what a provider made)
     * @throws ConfigException when the class cannot be loaded, neither implements {@link Deserializer} nor is
     *                         accepted by a provider, or cannot be instantiated or configured
     */
    public static Deserializer<?> resolve(String property, String className, Map<String, ?> consumerProperties) {
        Deserializer<?> builtIn = OFFICIAL.get(className);
        if (builtIn != null) {
            return builtIn;
        }
        String allowed = "one of " + OFFICIAL.keySet().stream().sorted().toList()
                         + ", a class implementing io.kflux.Deserializer with a public no-argument constructor, or a"
                         + " class an io.kflux.DeserializerProvider on the class path accepts (io.kflux:kflux-kafka-serde"
                         + " accepts any org.apache.kafka.common.serialization.Deserializer)";
        ClassLoader cl = Thread.currentThread().getContextClassLoader();
        if (cl == null) {
            cl = DeserializerResolver.class.getClassLoader();
        }
        Class<?> c;
        try {
            c = Class.forName(className, true, cl);
        } catch (ClassNotFoundException | LinkageError e) {
            throw new ConfigException(property, className, allowed, e);
        }
        if (Deserializer.class.isAssignableFrom(c)) {
            try {
                return (Deserializer<?>) c.getConstructor().newInstance();
            } catch (ReflectiveOperationException | RuntimeException e) {
                throw new ConfigException(property, className, allowed, e);
            }
        }
        boolean isKey = ConsumerConfigDef.KEY_DESERIALIZER.equals(property);
        try {
            for (DeserializerProvider provider : ServiceLoader.load(DeserializerProvider.class, cl)) {
                Deserializer<?> d = provider.create(c, consumerProperties, isKey);
                if (d != null) {
                    return d;
                }
            }
        } catch (ServiceConfigurationError | RuntimeException e) {
            throw new ConfigException(property, className, allowed, e);
        }
        throw new ConfigException(property, className, allowed);
    }

    /**
     * Whether a class name denotes the byte-array deserializer (the built-in one or the official one).
     *
     * @param className a class name
     * @return {@code true} for the official {@code ByteArrayDeserializer}
     */
    public static boolean isByteArray(String className) {
        return (PKG + "ByteArrayDeserializer").equals(className);
    }
}
