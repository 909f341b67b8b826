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

/**
 * A benchmark JVM forked by the suite ({@link BenchmarkSuite}, {@link ShareBenchmark}): its standard error goes
 * through, its standard output is echoed with its label, except the one line starting with
 * {@link DrainHarness#RESULT_PREFIX}, whose space-separated {@code key=value} pairs are its result.
 */
final class ForkedJvm {

    private ForkedJvm() {
    }

    /**
     * @return the result line's fields, in their order
     * @throws IllegalStateException when the JVM does not end within 15 minutes, exits with another status than 0, or
     *                               prints no result line
     */
    static Map<String, String> run(List<String> command, String label) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        String resultLine = null;
        try (BufferedReader out = new BufferedReader(
                new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = out.readLine()) != null) {
                if (line.startsWith(DrainHarness.RESULT_PREFIX)) {
                    resultLine = line.substring(DrainHarness.RESULT_PREFIX.length());
                } else {
                    System.out.println("    [" + label + "] " + line);
                }
            }
        }
        if (!process.waitFor(15, TimeUnit.MINUTES)) {
            process.destroyForcibly();
            throw new IllegalStateException(label + " did not end");
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
