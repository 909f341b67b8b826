package io.kflux.bench;

import io.kflux.bench.runner.DrainHarness;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * A benchmark JVM forked by the suite ({@link BenchmarkSuite}, {@link ShareBenchmark}): its standard error goes
 * through, its standard output is echoed with its label, except the one line starting with
 * {@link DrainHarness#RESULT_PREFIX}, whose space-separated {@code key=value} pairs are its result, and lines
 * starting with {@link #PROGRESS_PREFIX}, which only {@link #runUntilKilled} reads.
 */
final class ForkedJvm {

    /** A line a forked JVM prints to report how far it is ({@code progress <n>}); not echoed. */
    static final String PROGRESS_PREFIX = "progress ";

    private ForkedJvm() {
    }

    /**
     * @return the result line's fields, in their order
     * @throws IllegalStateException when the JVM does not end within 15 minutes, exits with another status than 0, or
     *                               prints no result line
     */
    static Map<String, String> run(List<String> command, String label) throws IOException, InterruptedException {
        return run(command, label, null);
    }

    /**
     * Runs the JVM and kills it with SIGKILL ({@link Process#destroyForcibly()}: no shutdown hook, no close) as soon
     * as one of its {@link #PROGRESS_PREFIX} lines satisfies {@code killWhen}.
     *
     * @return the result line's fields when the JVM ended on its own before {@code killWhen} held, else an empty map
     * @throws IllegalStateException as {@link #run(List, String)}, for a JVM that was not killed
     */
    static Map<String, String> runUntilKilled(List<String> command, String label, Predicate<String> killWhen)
            throws IOException, InterruptedException {
        return run(command, label, killWhen);
    }

    private static Map<String, String> run(List<String> command, String label, Predicate<String> killWhen)
            throws IOException, InterruptedException {
        Process process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        String resultLine = null;
        boolean killed = false;
        try (BufferedReader out = new BufferedReader(
                new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = out.readLine()) != null) {
                if (line.startsWith(DrainHarness.RESULT_PREFIX)) {
                    resultLine = line.substring(DrainHarness.RESULT_PREFIX.length());
                } else if (line.startsWith(PROGRESS_PREFIX)) {
                    if (killWhen != null && killWhen.test(line.substring(PROGRESS_PREFIX.length()))) {
                        // destroyForcibly closes the output stream too: nothing more is read
                        process.destroyForcibly();
                        killed = true;
                        break;
                    }
                } else {
                    System.out.println("    [" + label + "] " + line);
                }
            }
        }
        if (!process.waitFor(15, TimeUnit.MINUTES)) {
            process.destroyForcibly();
            throw new IllegalStateException(label + " did not end");
        }
        if (killed) {
            return Map.of();
        }
        if (process.exitValue() != 0 || resultLine == null) {
            throw new IllegalStateException(label + " failed (exit " + process.exitValue() + ")");
        }
        Map<String, String> fields = new LinkedHashMap<>();
        for (String pair : resultLine.trim().split(" ")) {
            int eq = pair.indexOf('=');
            fields.put(pair.substring(0, eq), pair.substring(eq + 1));
        }
        return fields;
    }
}
