package io.kflux.util;

import java.net.InetSocketAddress;
import java.util.Collection;
import java.util.stream.Collectors;

/**
 * Broker addresses as the user wrote them ({@code host:port}) for log lines and exception messages:
 * {@code InetSocketAddress.toString()} gives {@code host/<unresolved>:port} for the unresolved addresses kflux
 * keeps (they are resolved at each connect), which reads like an error of its own.
 */
public final class HostPort {
    private HostPort() {
    }

    /** {@code host:port}, never resolved. */
    public static String of(InetSocketAddress address) {
        return address == null ? "null" : address.getHostString() + ":" + address.getPort();
    }

    /** {@code host1:port1,host2:port2}, as {@code bootstrap.servers} is written. */
    public static String of(Collection<InetSocketAddress> addresses) {
        return addresses.stream().map(HostPort::of).collect(Collectors.joining(","));
    }
}
