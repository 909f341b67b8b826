package io.kflux.internal.config;

import io.kflux.ConfigException;
import io.kflux.Deserializer;
import io.kflux.Deserializers;
import java.util.Map;

/**
 * Turns a {@code key.deserializer} / {@code value.deserializer} value into a kflux {@link Deserializer}, so that
 * property maps written for the official client keep working: its common deserializer class names map to the
 * built-ins of {@link Deserializers} (which read the same bytes); any other name must be a class implementing
 * {@link Deserializer} with a public no-argument constructor.
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
     * @param property  {@code key.deserializer} or {@code value.deserializer}, for error messages
     * @param className the configured class name
     * @return the deserializer (a shared built-in, or a new instance of the named class)
     * @throws ConfigException when the class cannot be loaded, does not implement {@link Deserializer}, or
     *                         cannot be instantiated
     */
    public static Deserializer<?> resolve(String property, String className) {
        Deserializer<?> builtIn = OFFICIAL.get(className);
        if (builtIn != null) {
            return builtIn;
        }
        String allowed = "one of " + OFFICIAL.keySet().stream().sorted().toList()
                         + " or a class implementing io.kflux.Deserializer with a public no-argument constructor";
        Class<?> c;
        try {
            ClassLoader cl = Thread.currentThread().getContextClassLoader();
            c = Class.forName(className, true, cl != null ? cl : DeserializerResolver.class.getClassLoader());
        } catch (ClassNotFoundException | LinkageError e) {
            throw new ConfigException(property, className, allowed, e);
        }
        if (!Deserializer.class.isAssignableFrom(c)) {
            throw new ConfigException(property, className, allowed);
        }
        try {
            return (Deserializer<?>) c.getConstructor().newInstance();
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw new ConfigException(property, className, allowed, e);
        }
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
