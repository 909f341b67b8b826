package io.kflux.compat.support;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Stream;

/**
 * The machine's open TCP sockets to a broker port, read from {@code /proc/net/tcp} and {@code tcp6} (Linux), as the
 * leak checks count them: what the operating system holds, not what a client believes it closed. The broker's own
 * clients (its inter-broker connections to its listener) are sockets to that port too; {@link Socket#inThisJvm}
 * tells them apart from this test JVM's.
 */
public final class ClientSockets {
    private ClientSockets() {
    }

    /**
     * One socket whose remote end is the port.
     *
     * @param localPort the socket's own port
     * @param state     the kernel's state, e.g. {@code ESTABLISHED}
     * @param inThisJvm whether this JVM holds it (its inode is one of {@code /proc/self/fd})
     */
    public record Socket(int localPort, String state, boolean inThisJvm) {
        @Override
        public String toString() {
            return ":" + localPort + " " + state + (inThisJvm ? " (this JVM)" : " (another process)");
        }
    }

    /** Sockets to {@code port} that are connecting, open, or closed by the peer and not yet by their owner. */
    public static List<Socket> to(int port) {
        String hexPort = String.format(Locale.ROOT, ":%04X", port);
        Set<String> own = ownSocketInodes();
        List<Socket> sockets = new ArrayList<>();
        for (String file : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
            List<String> lines;
            try {
                lines = Files.readAllLines(Path.of(file));
            } catch (IOException e) {
                continue; // no such table (no IPv6): nothing to count there
            }
            for (String line : lines.subList(Math.min(1, lines.size()), lines.size())) {
                String[] f = line.trim().split("\\s+");
                // f[1] local address:port, f[2] remote, f[3] state (01 ESTABLISHED, 02 SYN_SENT, 08 CLOSE_WAIT), f[9] inode
                if (f.length > 9 && f[2].endsWith(hexPort)) {
                    String state = switch (f[3]) {
                        case "01" -> "ESTABLISHED";
                        case "02" -> "SYN_SENT";
                        case "08" -> "CLOSE_WAIT";
                        default -> null;
                    };
                    if (state != null) {
                        int localPort = Integer.parseInt(f[1].substring(f[1].lastIndexOf(':') + 1), 16);
                        sockets.add(new Socket(localPort, state, own.contains(f[9])));
                    }
                }
            }
        }
        return sockets;
    }

    /** How many sockets {@link #to} finds, in any process. */
    public static int count(int port) {
        return to(port).size();
    }

    /** This JVM's sockets among {@link #to}. */
    public static List<Socket> ofThisJvm(int port) {
        return to(port).stream().filter(Socket::inThisJvm).toList();
    }

    private static Set<String> ownSocketInodes() {
        Set<String> inodes = new HashSet<>();
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
            fds.forEach(fd -> {
                try {
                    String target = Files.readSymbolicLink(fd).toString();
                    if (target.startsWith("socket:[")) {
                        inodes.add(target.substring(8, target.length() - 1));
                    }
                } catch (IOException | UnsupportedOperationException e) {
                    // closed since it was listed: not open any more
                }
            });
        } catch (IOException e) {
            throw new IllegalStateException("cannot list /proc/self/fd", e);
        }
        return inodes;
    }
}
