package io.kflux.test.broker;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Builds command lines for forked JVMs that share this JVM's Java installation and a classpath. */
final class JavaLauncher {

    private final Path javaExecutable;
    private final Path classpathArgFile;

    /**
     * The classpath goes into a {@code @argfile} because Linux refuses any single command-line
     * argument longer than 128 KiB, which a deep Maven repository path list can exceed.
     */
    JavaLauncher(String classpath, Path dir) {
        this.javaExecutable = Path.of(System.getProperty("java.home"), "bin", "java");
        this.classpathArgFile = dir.resolve("classpath.args");
        String quoted = "\"" + classpath.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
        try {
            Files.writeString(classpathArgFile, "-cp\n" + quoted + "\n", StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + classpathArgFile, e);
        }
    }

    List<String> command(List<String> jvmArgs, String mainClass, List<String> args) {
        List<String> command = new ArrayList<>();
        command.add(javaExecutable.toString());
        command.addAll(jvmArgs);
        command.add("@" + classpathArgFile);
        command.add(mainClass);
        command.addAll(args);
        return command;
    }
}
