package io.kflux.test.broker;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The forked broker's SLF4J binding comes from inside the kit's jar (so the kit declares none for the application)
 * and comes first on the broker's class path, so the broker writes its broker.log whatever binding the test JVM has.
 */
class BrokerLoggingTest {

    @Test
    void theBrokerClasspathStartsWithTheLog4j2BindingTheKitCarries(@TempDir Path dir) throws Exception {
        Path loggingDir = dir.resolve("logging");
        List<String> entries = Arrays.asList(KafkaClasspath.resolve(loggingDir).split(File.pathSeparator));

        List<String> jars = BrokerLogging.JARS.stream().map(name -> loggingDir.resolve(name).toString()).toList();
        assertThat(entries.subList(0, jars.size())).containsExactlyElementsOf(jars);
        assertThat(KafkaClasspath.containsBroker(String.join(File.pathSeparator, entries))).isTrue();
        URL[] urls = jars.stream().map(j -> {
            try {
                return Path.of(j).toUri().toURL();
            } catch (java.net.MalformedURLException e) {
                throw new IllegalStateException(e);
            }
        }).toArray(URL[]::new);
        try (URLClassLoader binding = new URLClassLoader(urls, ClassLoader.getPlatformClassLoader())) {
            // what SLF4J 2 looks up (ServiceLoader), and the log4j2 core that reads the broker's log4j2.properties
            assertThat(binding.findResource("META-INF/services/org.slf4j.spi.SLF4JServiceProvider")).isNotNull();
            assertThat(binding.findResource("org/apache/logging/log4j/core/LoggerContext.class")).isNotNull();
        }
    }
}
