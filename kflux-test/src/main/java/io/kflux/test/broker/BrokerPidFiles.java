package io.kflux.test.broker;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * One file per live broker process under {@code ${java.io.tmpdir}/kflux-brokers/<pid>}, so that
 * {@code .ci/run} can kill brokers a crashed test JVM left behind. The file names the owning JVM
 * so the script can tell orphans from brokers of a build still running.
 */
final class BrokerPidFiles {

    private static final Path DIR = Path.of(System.getProperty("java.io.tmpdir"), "kflux-brokers");

    private BrokerPidFiles() {
    }

    static void record(long pid, int nodeId, Path dataDir) {
        String content = "owner=" + ProcessHandle.current().pid() + "\n"
                + "node=" + nodeId + "\n"
                + "dir=" + dataDir + "\n";
        try {
            Files.createDirectories(DIR);
            Files.writeString(DIR.resolve(Long.toString(pid)), content, StandardCharsets.UTF_8);
        } catch (IOException e) {
            // only the leftover clean-up depends on it; the broker itself runs fine without
            System.getLogger(BrokerPidFiles.class.getName())
                    .log(System.Logger.Level.WARNING, "cannot write broker pid file in " + DIR, e);
        }
    }

    static void remove(long pid) {
        try {
            Files.deleteIfExists(DIR.resolve(Long.toString(pid)));
        } catch (IOException e) {
            // a stale file only makes .ci/run check a dead pid
        }
    }
}
