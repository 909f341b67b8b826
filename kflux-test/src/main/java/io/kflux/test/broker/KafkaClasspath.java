package io.kflux.test.broker;

import java.io.File;
import java.io.IOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Finds a classpath on which a forked JVM can run {@code kafka.Kafka}: this JVM's, behind the log4j2 jars the kit
 * carries ({@link BrokerLogging}).
 */
final class KafkaClasspath {

    static final String BROKER_MAIN = "kafka.Kafka";
    private static final String BROKER_MAIN_RESOURCE = "kafka/Kafka.class";
    private static final String LOG4J_TO_SLF4J = "log4j-to-slf4j";

    private KafkaClasspath() {
    }

    /**
     * Surefire and {@code java -cp} put everything on {@code java.class.path}; {@code exec:java}
     * and IDE runners may instead load the broker jars through a child class loader, whose URLs
     * are then the only place to find them.
     */
    static String resolve(Path loggingDir) {
        String systemPath = System.getProperty("java.class.path", "");
        String found = containsBroker(systemPath) ? systemPath : fromLoaders(Thread.currentThread().getContextClassLoader());
        if (!containsBroker(found)) {
            throw new IllegalStateException(BROKER_MAIN + " is not reachable from java.class.path nor from the"
                    + " context class loader; add org.apache.kafka:kafka_2.13 to the runtime classpath");
        }
        List<String> entries = new ArrayList<>();
        // first, so that the broker's SLF4J binds to them whatever binding the application has
        BrokerLogging.extractTo(loggingDir).forEach(jar -> entries.add(jar.toString()));
        for (String entry : found.split(File.pathSeparator)) {
            // log4j-to-slf4j (every Spring Boot application has it) routes log4j2 to SLF4J: beside the kit's
            // log4j-slf4j2-impl, log4j2 refuses to start and the broker with it
            if (!entry.substring(entry.lastIndexOf(File.separatorChar) + 1).startsWith(LOG4J_TO_SLF4J)) {
                entries.add(entry);
            }
        }
        return String.join(File.pathSeparator, entries);
    }

    /** Checks a classpath in isolation from this JVM's own loaders, as the forked JVM will see it. */
    static boolean containsBroker(String classpath) {
        if (classpath == null || classpath.isBlank()) {
            return false;
        }
        List<URL> urls = new ArrayList<>();
        for (String entry : classpath.split(File.pathSeparator)) {
            if (entry.isBlank()) {
                continue;
            }
            try {
                urls.add(Path.of(entry).toUri().toURL());
            } catch (IOException | RuntimeException e) {
                // an unusable entry cannot hold the broker; the others may
            }
        }
        try (URLClassLoader probe = new URLClassLoader(urls.toArray(URL[]::new), ClassLoader.getPlatformClassLoader())) {
            return probe.findResource(BROKER_MAIN_RESOURCE) != null;
        } catch (IOException e) {
            return false;
        }
    }

    private static String fromLoaders(ClassLoader loader) {
        Set<String> entries = new LinkedHashSet<>();
        for (ClassLoader current = loader; current != null; current = current.getParent()) {
            if (current instanceof URLClassLoader urlLoader) {
                for (URL url : urlLoader.getURLs()) {
                    if ("file".equals(url.getProtocol())) {
                        try {
                            entries.add(Path.of(url.toURI()).toString());
                        } catch (URISyntaxException | RuntimeException e) {
                            // skip an entry that is not a plain file path
                        }
                    }
                }
            }
        }
        return String.join(File.pathSeparator, entries);
    }
}
