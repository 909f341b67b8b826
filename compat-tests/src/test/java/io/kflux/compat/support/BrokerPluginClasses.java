package io.kflux.compat.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/**
 * Test classes that run inside a forked broker (SASL servers, telemetry receivers): the compiled classes of one
 * package copied to a directory of their own, to append to the broker's class path, so none of the tests' other
 * classes (nor their kafka-clients) reach the broker.
 */
public final class BrokerPluginClasses {
    private BrokerPluginClasses() {
    }

    /** A new directory holding the classes of {@code anyClassOfThePackage}'s package (not its subpackages). */
    public static String packageOf(Class<?> anyClassOfThePackage) {
        try {
            Path root = Path.of(anyClassOfThePackage.getProtectionDomain().getCodeSource().getLocation().toURI());
            String pkg = anyClassOfThePackage.getPackageName().replace('.', '/');
            Path target = Files.createTempDirectory("kflux-broker-plugin-");
            Files.createDirectories(target.resolve(pkg));
            try (Stream<Path> files = Files.list(root.resolve(pkg))) {
                for (Path f : (Iterable<Path>) files::iterator) {
                    if (Files.isRegularFile(f)) {
                        Files.copy(f, target.resolve(pkg).resolve(f.getFileName().toString()));
                    }
                }
            }
            return target.toString();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }
}
