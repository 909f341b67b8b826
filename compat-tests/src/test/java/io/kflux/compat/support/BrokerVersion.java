package io.kflux.compat.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The Apache Kafka broker version the compat tests run against, chosen by the system property
 * {@code kflux.broker.version} (a module of {@code brokers/}: 3.9, 4.0, 4.2 or 4.4; Maven passes it from the
 * property of the same name, default 4.4). Each version runs on the classpath its module resolved for it alone
 * ({@code brokers/kafka-X/target/broker.classpath}), never on the tests' own {@code kafka-clients}.
 */
public final class BrokerVersion {
    public static final String PROPERTY = "kflux.broker.version";
    private static final String DEFAULT = "4.4";
    private static final Pattern BROKER_JAR = Pattern.compile("kafka_2\\.13-(\\d+\\.\\d+\\.\\d+)\\.jar");

    private static volatile BrokerVersion current;

    private final String line;
    private final String full;
    private final String classpath;

    private BrokerVersion(String line, String full, String classpath) {
        this.line = line;
        this.full = full;
        this.classpath = classpath;
    }

    /** The version chosen for this test JVM. */
    public static BrokerVersion current() {
        BrokerVersion v = current;
        if (v == null) {
            synchronized (BrokerVersion.class) {
                if (current == null) {
                    current = load(System.getProperty(PROPERTY, DEFAULT).trim());
                }
                v = current;
            }
        }
        return v;
    }

    private static BrokerVersion load(String line) {
        Path brokers = Path.of(System.getProperty("kflux.brokers.dir", "../brokers"));
        Path file = brokers.resolve("kafka-" + line).resolve("target" + System.getProperty("kflux.build.suffix", ""))
                .resolve("broker.classpath");
        if (!Files.isRegularFile(file)) {
            throw new IllegalStateException("no classpath for Kafka broker " + line + " at " + file.toAbsolutePath()
                    + ": " + PROPERTY + " must name a module of brokers/ (3.9, 4.0, 4.2, 4.4), built first"
                    + " (mvn -pl compat-tests -am ... builds it)");
        }
        String classpath;
        try {
            classpath = Files.readString(file, StandardCharsets.UTF_8).trim();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Matcher m = BROKER_JAR.matcher(classpath);
        if (!m.find()) {
            throw new IllegalStateException(file + " holds no kafka_2.13 jar");
        }
        return new BrokerVersion(line, m.group(1), classpath);
    }

    /** The release line, e.g. {@code 4.4}: the key of per-version expectations. */
    public String line() {
        return line;
    }

    /** The exact release, e.g. {@code 4.4.0}, read from the broker jar on its classpath. */
    public String full() {
        return full;
    }

    /** The broker's own classpath, for {@code EmbeddedKafkaCluster.Builder.classpath}. */
    public String classpath() {
        return classpath;
    }

    /** Whether this broker is at least {@code major.minor}, for tests of features newer brokers add. */
    public boolean atLeast(int major, int minor) {
        String[] parts = full.split("\\.");
        int ma = Integer.parseInt(parts[0]);
        int mi = Integer.parseInt(parts[1]);
        return ma > major || (ma == major && mi >= minor);
    }

    @Override
    public String toString() {
        return "Kafka " + full;
    }
}
