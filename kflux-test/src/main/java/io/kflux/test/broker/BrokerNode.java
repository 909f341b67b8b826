package io.kflux.test.broker;

import java.io.File;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * One Kafka node: its ports and directory, which outlive the process so that a stopped node can
 * be started again as the same member of the quorum, and the forked JVM currently running it.
 */
final class BrokerNode {

    private static final int LOG_TAIL_LINES = 60;

    private final int nodeId;
    private final int port;
    private final int controllerPort;
    private final Path dir;
    /** Extra listeners (name to port), e.g. SASL_SSL, besides PLAINTEXT and CONTROLLER. */
    private final Map<String, Integer> listenerPorts;
    private volatile Process process;
    private volatile boolean paused;

    BrokerNode(int nodeId, int port, int controllerPort, Path dir, Map<String, Integer> listenerPorts) {
        this.listenerPorts = Map.copyOf(listenerPorts);
        this.nodeId = nodeId;
        this.port = port;
        this.controllerPort = controllerPort;
        this.dir = dir;
    }

    int nodeId() {
        return nodeId;
    }

    int port() {
        return port;
    }

    int controllerPort() {
        return controllerPort;
    }

    String address() {
        return "127.0.0.1:" + port;
    }

    /** Extra listener names to their ports. */
    Map<String, Integer> listenerPorts() {
        return listenerPorts;
    }

    Path dir() {
        return dir;
    }

    Path logDirs() {
        return dir.resolve("kraft-logs");
    }

    Path logFile() {
        return dir.resolve("broker.log");
    }

    Path serverProperties() {
        return dir.resolve("server.properties");
    }

    Path log4jProperties() {
        return dir.resolve("log4j2.properties");
    }

    boolean isRunning() {
        Process current = process;
        return current != null && current.isAlive();
    }

    boolean isPaused() {
        return paused && isRunning();
    }

    /** Starts {@code kafka.tools.StorageTool format}; the caller waits so nodes format in parallel. */
    Process startFormat(JavaLauncher launcher, String clusterId, List<String> extraArgs) {
        List<String> args = new ArrayList<>(List.of("format", "-t", clusterId, "-c", serverProperties().toString()));
        args.addAll(extraArgs);
        List<String> command = launcher.command(List.of("-Xmx256m"), "kafka.tools.StorageTool", args);
        return fork(command, dir.resolve("format.log"));
    }

    void awaitFormatted(Process format, Duration timeout) {
        try {
            if (!format.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                format.destroyForcibly();
                throw failure("formatting did not finish within " + timeout, dir.resolve("format.log"), null);
            }
        } catch (InterruptedException e) {
            format.destroyForcibly();
            Thread.currentThread().interrupt();
            throw failure("interrupted while formatting", dir.resolve("format.log"), e);
        }
        if (format.exitValue() != 0) {
            throw failure("formatting exited with code " + format.exitValue(), dir.resolve("format.log"), null);
        }
    }

    void launch(JavaLauncher launcher, List<String> extraJvmArgs) {
        if (isRunning()) {
            throw new IllegalStateException("node " + nodeId + " is already running");
        }
        List<String> jvmArgs = new ArrayList<>(List.of(
                "-Xms256m",
                "-Xmx1g",
                // otherwise log4j stops before Kafka's own shutdown hook logs why it is stopping
                "-Dlog4j2.shutdownHookEnabled=false",
                "-Dlog4j2.configurationFile=" + log4jProperties(),
                "-Dkflux.broker.node=" + nodeId));
        jvmArgs.addAll(extraJvmArgs);
        List<String> command = launcher.command(jvmArgs, KafkaClasspath.BROKER_MAIN,
                List.of(serverProperties().toString()));
        paused = false;
        process = fork(command, logFile());
        BrokerPidFiles.record(process.pid(), nodeId, dir);
    }

    private Process fork(List<String> command, Path output) {
        ProcessBuilder builder = new ProcessBuilder(command)
                .directory(dir.toFile())
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(output.toFile()))
                .redirectInput(ProcessBuilder.Redirect.from(nullDevice()));
        try {
            return builder.start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + command.get(0), e);
        }
    }

    private static File nullDevice() {
        return new File(System.getProperty("os.name").startsWith("Windows") ? "NUL" : "/dev/null");
    }

    /** Waits until the PLAINTEXT listener accepts connections, failing early if the JVM died. */
    void awaitListening(Instant deadline) {
        while (true) {
            checkAlive();
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress("127.0.0.1", port), 200);
                return;
            } catch (IOException notYet) {
                if (Instant.now().isAfter(deadline)) {
                    throw failure("port " + port + " did not open in time", logFile(), notYet);
                }
                sleep(100);
            }
        }
    }

    void checkAlive() {
        Process current = process;
        if (current == null || !current.isAlive()) {
            String code = current == null ? "never started" : "exited with code " + current.exitValue();
            throw failure("broker " + code, logFile(), null);
        }
    }

    BrokerStartException failure(String what, Path log, Throwable cause) {
        return new BrokerStartException("Kafka node " + nodeId + " (" + dir + "): " + what
                + "\n--- first errors in " + log + " ---\n" + firstErrors(log)
                + "\n--- last lines of " + log + " ---\n" + tail(log), cause);
    }

    /**
     * The first ERROR lines with the start of the stack trace after each: a broker that refuses its configuration
     * says why long before its shutdown ends.
     */
    static String firstErrors(Path file) {
        List<String> lines;
        try {
            lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        } catch (IOException | java.io.UncheckedIOException e) {
            return "(cannot read log: " + e + ")";
        }
        List<String> out = new ArrayList<>();
        for (int i = 0; i < lines.size() && out.size() < 40; i++) {
            String line = lines.get(i);
            if (line.contains("] ERROR ") || line.contains("] FATAL ")) {
                out.add(line);
                for (int j = i + 1; j < lines.size() && j <= i + 12 && !lines.get(j).startsWith("["); j++) {
                    out.add(lines.get(j));
                }
            }
        }
        return String.join("\n", out);
    }

    /** Asks for a clean shutdown; a frozen JVM is thawed first or it would never see the signal. */
    void terminate() {
        Process current = process;
        if (current != null && current.isAlive()) {
            if (paused) {
                resume();
            }
            current.destroy();
        }
    }

    boolean awaitExit(Instant deadline) {
        Process current = process;
        if (current == null) {
            return true;
        }
        try {
            long millis = Math.max(0, Duration.between(Instant.now(), deadline).toMillis());
            boolean exited = current.waitFor(millis, TimeUnit.MILLISECONDS);
            if (exited) {
                exited();
            }
            return exited;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** SIGKILL, which also ends a process stopped by SIGSTOP, then reaps it. */
    void kill() {
        Process current = process;
        if (current == null) {
            return;
        }
        current.destroyForcibly();
        try {
            if (current.waitFor(10, TimeUnit.SECONDS)) {
                exited();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** For the shutdown hook: no waiting, since the JVM is going away anyway. */
    void killNow() {
        Process current = process;
        if (current != null) {
            current.destroyForcibly();
            BrokerPidFiles.remove(current.pid());
        }
    }

    private void exited() {
        paused = false;
        BrokerPidFiles.remove(process.pid());
    }

    void pause() {
        signal("STOP");
        paused = true;
    }

    void resume() {
        signal("CONT");
        paused = false;
    }

    /** Java can only send TERM and KILL itself; STOP and CONT need the kill command. */
    private void signal(String name) {
        Process current = process;
        if (current == null || !current.isAlive()) {
            throw new IllegalStateException("node " + nodeId + " is not running");
        }
        try {
            Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(current.pid()))
                    .redirectErrorStream(true)
                    .start();
            String output = new String(kill.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (kill.waitFor() != 0) {
                throw new IllegalStateException("kill -" + name + " " + current.pid() + " failed: " + output);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run kill -" + name, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while sending SIG" + name, e);
        }
    }

    /** Reads only the end of the file: an INFO-level broker log grows to megabytes. */
    static String tail(Path file) {
        if (!Files.exists(file)) {
            return "(no log file)";
        }
        try (RandomAccessFile in = new RandomAccessFile(file.toFile(), "r")) {
            long length = in.length();
            int size = (int) Math.min(length, 64 * 1024);
            byte[] bytes = new byte[size];
            in.seek(length - size);
            in.readFully(bytes);
            List<String> lines = new ArrayList<>(Arrays.asList(new String(bytes, StandardCharsets.UTF_8).split("\n")));
            if (length > size && !lines.isEmpty()) {
                lines.remove(0); // cut in the middle by the 64 KiB window
            }
            return String.join("\n", lines.subList(Math.max(0, lines.size() - LOG_TAIL_LINES), lines.size()));
        } catch (IOException e) {
            return "(cannot read log: " + e + ")";
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for Kafka node", e);
        }
    }
}
