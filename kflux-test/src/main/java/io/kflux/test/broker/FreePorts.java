package io.kflux.test.broker;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;

/** Picks loopback ports nobody listens on. */
final class FreePorts {

    private FreePorts() {
    }

    /**
     * Returns {@code count} distinct free ports. All sockets are held open until every port is
     * chosen so the kernel cannot hand out the same port twice; a small race with other processes
     * remains until the broker binds, which is acceptable for tests.
     */
    static List<Integer> pick(int count) {
        List<ServerSocket> sockets = new ArrayList<>();
        try {
            List<Integer> ports = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
                sockets.add(socket);
                ports.add(socket.getLocalPort());
            }
            return ports;
        } catch (IOException e) {
            throw new UncheckedIOException("no free loopback port", e);
        } finally {
            for (ServerSocket socket : sockets) {
                try {
                    socket.close();
                } catch (IOException ignored) {
                    // the port is still usable once the socket is gone
                }
            }
        }
    }
}
