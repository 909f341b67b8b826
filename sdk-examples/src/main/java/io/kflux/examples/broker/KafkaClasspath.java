package io.kflux.examples.broker;

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

/** Finds a classpath on which a forked JVM can run {@code kafka.Kafka}. */
final class KafkaClasspath {

    static final String BROKER_MAIN = "kafka.Kafka";
    private static final String BROKER_MAIN_RESOURCE = "kafka/Kafka.class";

    private KafkaClasspath() {
    }

    /**
     * Surefire and {@code java -cp} put everything on {@code java.class.path}; {@code exec:java}
     * and IDE runners may instead load the broker jars through a child class loader, whose URLs
     * are then the only place to find them.
     */
    static String resolve() {
        String systemPath = System.getProperty("java.class.path", "");
        if (containsBroker(systemPath)) {
            return systemPath;
        }
        String loaderPath = fromLoaders(Thread.currentThread().getContextClassLoader());
        if (containsBroker(loaderPath)) {
            return loaderPath;
        }
        throw new IllegalStateException(BROKER_MAIN + " is not reachable from java.class.path nor from the"
                + " context class loader; add org.apache.kafka:kafka_2.13 (and log4j-slf4j2-impl for its logs)"
                + " to the runtime classpath");
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
