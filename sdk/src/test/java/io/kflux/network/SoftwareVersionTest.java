package io.kflux.network;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * kflux's version (KIP-511's client software version, the {@code kafka.version} meter tag) comes from the resource the
 * build filters with the project version, so it is the same wherever kflux runs from; it read "dev" from the
 * installed jar before (issue #25: the jar's manifest had no Implementation-Version).
 */
class SoftwareVersionTest {

    @Test
    void theBuildWritesTheProjectVersionIntoTheResourceAndKfluxReportsIt() throws Exception {
        String built = NetworkOptions.builtVersion();
        assertThat(built).as("the resource the build filters").isNotNull().doesNotContain("${");
        assertThat(built).isEqualTo(projectVersion());
        assertThat(NetworkOptions.SOFTWARE_VERSION).isEqualTo(built).isNotEqualTo("dev");
    }

    /** The version sdk/pom.xml inherits (surefire runs in the module's directory). */
    private static String projectVersion() throws Exception {
        String pom = Files.readString(Path.of("pom.xml"));
        Matcher m = Pattern.compile("<parent>.*?<version>([^<]+)</version>", Pattern.DOTALL).matcher(pom);
        assertThat(m.find()).as("the parent version in sdk/pom.xml").isTrue();
        return m.group(1).trim();
    }
}
