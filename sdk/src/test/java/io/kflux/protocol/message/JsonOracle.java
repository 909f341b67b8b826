package io.kflux.protocol.message;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kflux.protocol.MessageSpec;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import org.apache.kafka.common.Uuid;

/**
 * kafka-clients as an oracle addressed by message name, its messages built from and compared as the generated
 * {@code *JsonConverter}s' JSON (field names in camelCase, topic ids in Kafka's base64 form), so one test can ask
 * two kafka-clients versions about the same message. {@link #TESTS} is the tests' own kafka-clients (4.1.1);
 * {@link #KAFKA_4_4} is kafka-clients 4.4 from its own jar (copied by the sdk pom to {@code target/oracle}, path
 * in {@code kflux.oracle.jar}) in a child-first class loader, so its classes never meet the 4.1.1 ones: the oracle
 * of versions 4.1.1 lacks (ShareFetch and ShareAcknowledge v2). Jackson is shared with the tests' class loader,
 * which is what lets the JSON cross.
 */
final class JsonOracle {
    private static final String MESSAGES = "org.apache.kafka.common.message.";
    private static final ObjectMapper JSON = new ObjectMapper();

    static final JsonOracle TESTS = new JsonOracle("4.1.1", JsonOracle.class.getClassLoader());
    static final JsonOracle KAFKA_4_4 = new JsonOracle("4.4.0", isolatedLoader());

    private final String version;
    private final ClassLoader loader;

    private JsonOracle(String version, ClassLoader loader) {
        this.version = version;
        this.loader = loader;
    }

    private static ClassLoader isolatedLoader() {
        Path jar = Path.of(System.getProperty("kflux.oracle.jar", "target/oracle/kafka-clients-oracle.jar"));
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException("no newer kafka-clients at " + jar.toAbsolutePath()
                    + " (the sdk pom copies it in generate-test-resources)");
        }
        try {
            return new URLClassLoader(new URL[]{jar.toUri().toURL()}, JsonOracle.class.getClassLoader()) {
                @Override
                protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
                    if (!name.startsWith("org.apache.kafka.")) {
                        return super.loadClass(name, resolve);
                    }
                    synchronized (getClassLoadingLock(name)) {
                        Class<?> c = findLoadedClass(name);
                        return c != null ? c : findClass(name);
                    }
                }
            };
        } catch (MalformedURLException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The versions of {@code spec} this kafka-clients also knows as message {@code name}. */
    List<Short> versions(MessageSpec<?> spec, String name) {
        return OracleEquivalence.versions(spec).stream()
                .filter(v -> v >= lowestVersion(name) && v <= highestVersion(name)).toList();
    }

    /** A topic id as the JSON converters write it (Kafka's base64 {@code Uuid} form). */
    static String topicId(UUID id) {
        return new Uuid(id.getMostSignificantBits(), id.getLeastSignificantBits()).toString();
    }

    /** The {@code LOWEST_SUPPORTED_VERSION} of message {@code name} (e.g. "ShareFetchRequest"). */
    short lowestVersion(String name) {
        return versionConstant(name, "LOWEST_SUPPORTED_VERSION");
    }

    /** The {@code HIGHEST_SUPPORTED_VERSION} of message {@code name}. */
    short highestVersion(String name) {
        return versionConstant(name, "HIGHEST_SUPPORTED_VERSION");
    }

    private short versionConstant(String name, String constant) {
        try {
            return dataClass(name).getField(constant).getShort(null);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Both directions at {@code version}, as {@link OracleCodec#assertSameBytes}: kflux writes the bytes the newer
     * kafka-clients writes for {@code officialJson}, reads them back into a message that writes them again, and
     * kafka-clients reads kflux's bytes into the same message.
     */
    <T> void assertSameBytes(MessageSpec<T> spec, T ours, String name, String officialJson, short version) {
        Object official = fromJson(name, officialJson, version);
        byte[] expected = bytes(official, version);
        byte[] actual = OracleCodec.kfluxBytes(spec, ours, version);
        assertThat(actual).as("%s v%d written by kflux, against kafka-clients %s", spec.apiKey(), version, this.version).isEqualTo(expected);
        T reread = OracleCodec.kfluxRead(spec, expected, version);
        assertThat(OracleCodec.kfluxBytes(spec, reread, version)).as("%s v%d re-written after kflux read",
                spec.apiKey(), version).isEqualTo(expected);
        assertThat(toJson(name, read(name, actual, version), version))
                .as("%s v%d read by kafka-clients %s", spec.apiKey(), version, this.version)
                .isEqualTo(toJson(name, official, version));
    }

    private Class<?> dataClass(String name) throws ClassNotFoundException {
        return loader.loadClass(MESSAGES + name + "Data");
    }

    private Object fromJson(String name, String json, short version) {
        try {
            Class<?> converter = loader.loadClass(MESSAGES + name + "DataJsonConverter");
            return converter.getMethod("read", JsonNode.class, short.class).invoke(null, JSON.readTree(json), version);
        } catch (InvocationTargetException e) {
            throw new IllegalArgumentException("kafka-clients rejected the JSON of " + name, e.getCause());
        } catch (ReflectiveOperationException | java.io.IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private JsonNode toJson(String name, Object message, short version) {
        try {
            Class<?> converter = loader.loadClass(MESSAGES + name + "DataJsonConverter");
            return (JsonNode) converter.getMethod("write", dataClass(name), short.class).invoke(null, message, version);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    private byte[] bytes(Object message, short version) {
        try {
            Class<?> messageUtil = loader.loadClass("org.apache.kafka.common.protocol.MessageUtil");
            Method toAccessor = null;
            for (Method m : messageUtil.getMethods()) {
                if (m.getName().equals("toByteBufferAccessor") && m.getParameterCount() == 2) {
                    toAccessor = m;
                }
            }
            Object accessor = toAccessor.invoke(null, message, version);
            ByteBuffer buffer = (ByteBuffer) accessor.getClass().getMethod("buffer").invoke(accessor);
            byte[] out = new byte[buffer.remaining()];
            buffer.duplicate().get(out);
            return out;
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    private Object read(String name, byte[] bytes, short version) {
        try {
            Class<?> readable = loader.loadClass("org.apache.kafka.common.protocol.Readable");
            Object accessor = loader.loadClass("org.apache.kafka.common.protocol.ByteBufferAccessor")
                    .getConstructor(ByteBuffer.class).newInstance(ByteBuffer.wrap(bytes));
            Constructor<?> c = dataClass(name).getConstructor(readable, short.class);
            return c.newInstance(accessor, version);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }
}
