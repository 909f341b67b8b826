package io.kflux.bench;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * The class path a reactor-kafka JVM is forked on (the suite's reactor-kafka contender, and the reactor-kafka side of
 * compat-tests' ReactorKafkaSideBySideTest): this module's classes, then the reactor-kafka 1.3.25 run-time jars
 * (kafka-clients 3.9.1, reactor-core 3.4, ...) its build copies to {@code reactor-kafka-lib}, resolved apart from the
 * kafka-clients 4.x and reactor-core 3.8 everything else here runs on (see the module's pom).
 */
public final class ReactorKafkaClasspath {
    private ReactorKafkaClasspath() {
    }

    /**
     * @param buildDir the benchmarks module's build directory ({@code benchmarks/target}), as the system property
     *                 {@code kflux.bench.reactorKafkaDir} names it
     * @return the class path, entries joined with the platform's separator
     * @throws IllegalStateException when the module was not built that far (no classes or no copied jars)
     * @throws IOException           when the jar directory cannot be listed
     */
    public static String of(String buildDir) throws IOException {
        Path classes = Path.of(buildDir, "classes");
        Path lib = Path.of(buildDir, "reactor-kafka-lib");
        if (!Files.isDirectory(classes) || !Files.isDirectory(lib)) {
            throw new IllegalStateException(classes + " or " + lib + " is missing: build the benchmarks module first"
                    + " (mvn -pl benchmarks -am test-compile)");
        }
        List<String> entries = new ArrayList<>();
        entries.add(classes.toString());
        try (Stream<Path> jars = Files.list(lib)) {
            jars.filter(p -> p.toString().endsWith(".jar")).sorted().forEach(p -> entries.add(p.toString()));
        }
        return String.join(File.pathSeparator, entries);
    }
}
