package io.kflux.test.broker;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;

/**
 * The log4j2 jars a forked broker logs through. kflux-test carries them inside its own jar (its pom copies
 * them there at build time) instead of depending on them, so that the kit puts no SLF4J binding on the
 * application's test classpath (a Logback application would otherwise see "multiple SLF4J providers"); the
 * broker gets them first on its classpath, so its {@code broker.log} is written whatever binding the
 * application has.
 */
final class BrokerLogging {
    /** The names the pom gives the copies (versions stripped). */
    static final List<String> JARS = List.of("log4j-api.jar", "log4j-core.jar", "log4j-slf4j2-impl.jar");
    private static final String RESOURCE_DIR = "io/kflux/test/broker/logging/";

    private BrokerLogging() {
    }

    /**
     * Writes the jars into {@code dir} (a resource inside a jar cannot be on a classpath) and returns them.
     *
     * @throws IllegalStateException if this kit was built without them
     * @throws UncheckedIOException if {@code dir} cannot be written
     */
    static List<Path> extractTo(Path dir) {
        List<Path> out = new ArrayList<>();
        try {
            Files.createDirectories(dir);
            for (String name : JARS) {
                try (InputStream in = BrokerLogging.class.getClassLoader().getResourceAsStream(RESOURCE_DIR + name)) {
                    if (in == null) {
                        throw new IllegalStateException("kflux-test lacks " + RESOURCE_DIR + name
                                + "; its build copies it there (process-resources)");
                    }
                    Path target = dir.resolve(name);
                    Files.copy(in, target, StandardCopyOption.REPLACE_EXISTING);
                    out.add(target);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the broker's logging jars into " + dir, e);
        }
        return out;
    }
}
