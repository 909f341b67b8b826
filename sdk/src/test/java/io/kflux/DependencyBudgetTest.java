package io.kflux;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Fails the build when the jars an application gets by depending on kflux-sdk grow past a budget (README,
 * "Dependencies", says what each is for). The list is maven-dependency-plugin's {@code list} of the runtime scope,
 * written by this module's pom before the tests run; optional dependencies (Micrometer) are left out, since an
 * application that does not add them does not get them.
 *
 * <p>Raising a limit is a decision: name the new jar and what it is for in the README in the same change.
 */
class DependencyBudgetTest {
    /**
     * 33 jars at the time the budget was set (reactor-netty-core with its netty modules, codecs, SCRAM; from 31 to 33
     * for client telemetry, KIP-714: opentelemetry-proto and protobuf-java, which encode the pushed metrics).
     */
    static final int MAX_JARS = 34;
    /**
     * 19.6 MiB at the time the budget was set; zstd-jni's natives for every platform are 7 MiB of it. Raised from 18
     * MiB for client telemetry: opentelemetry-proto 1.11.0-alpha (0.9 MiB) and protobuf-java 4.36.2 (1.7 MiB), 2.6
     * MiB together, required because the official client pushes telemetry by default ({@code enable.metrics.push}).
     */
    static final long MAX_BYTES = 20L * 1024 * 1024 + 512 * 1024;

    /** {@code group:artifact:jar[:classifier]:version:scope:/absolute/path.jar [(optional)] [-- module ...]}. */
    private static final Pattern ENTRY = Pattern.compile("^\\s*(\\S+?):jar:\\S*?:(?:compile|runtime):(.+?\\.jar)(.*)$");

    record Jar(String coordinates, Path file, boolean optional) {
    }

    static List<Jar> parse(List<String> lines) {
        return lines.stream()
                .map(ENTRY::matcher)
                .filter(Matcher::matches)
                .map(m -> new Jar(m.group(1), Path.of(m.group(2)), m.group(3).contains("(optional)")))
                .toList();
    }

    @Test
    void theRuntimeTreeOfKfluxSdkStaysWithinItsBudget() throws IOException {
        String listFile = System.getProperty("kflux.runtimeDependencies");
        assertThat(listFile).as("the pom passes the dependency list's path (run through Maven)").isNotNull();
        List<Jar> all = parse(Files.readAllLines(Path.of(listFile)));
        List<Jar> required = all.stream().filter(j -> !j.optional()).toList();
        assertThat(required).as("the list names reactor-core; it was not parsed").anyMatch(j -> j.coordinates()
                .equals("io.projectreactor:reactor-core"));
        long bytes = 0;
        StringBuilder report = new StringBuilder();
        for (Jar jar : required) {
            long size = Files.size(jar.file());
            bytes += size;
            report.append(String.format("%n  %,11d  %s", size, jar.coordinates()));
        }
        assertThat(required.size()).as("number of runtime jars of kflux-sdk:%s", report).isLessThanOrEqualTo(MAX_JARS);
        assertThat(bytes).as("bytes of the runtime jars of kflux-sdk (%.1f MiB):%s", bytes / 1048576.0, report)
                .isLessThanOrEqualTo(MAX_BYTES);
        // the HTTP stack reactor-netty-http brings (HTTP/2, HTTP/3, QUIC natives) must not come back by accident
        assertThat(required).extracting(Jar::coordinates)
                .doesNotContain("io.projectreactor.netty:reactor-netty-http", "io.netty:netty-codec-native-quic");
    }

    @Test
    void optionalDependenciesAreNotCountedAndClassifiedJarsAreRead() {
        List<Jar> jars = parse(List.of(
                "The following files have been resolved:",
                "   io.netty:netty-transport-native-epoll:jar:linux-x86_64:4.2.17.Final:compile:/r/epoll.jar -- module x",
                "   io.micrometer:micrometer-core:jar:1.17.2:compile:/r/mc.jar (optional) -- module micrometer.core",
                "   org.lz4:lz4-java:jar:1.8.0:runtime:/r/lz4.jar"));
        assertThat(jars).containsExactly(
                new Jar("io.netty:netty-transport-native-epoll", Path.of("/r/epoll.jar"), false),
                new Jar("io.micrometer:micrometer-core", Path.of("/r/mc.jar"), true),
                new Jar("org.lz4:lz4-java", Path.of("/r/lz4.jar"), false));
    }
}
