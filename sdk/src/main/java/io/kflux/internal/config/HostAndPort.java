package io.kflux.internal.config;

import java.net.InetSocketAddress;

/**
 * One {@code bootstrap.servers} entry. Not resolved: DNS lookups happen when connecting, following
 * {@code client.dns.lookup}.
 *
 * @param host host name or IP literal (IPv6 without brackets)
 * @param port TCP port, 1-65535
 */
public record HostAndPort(String host, int port) {

    /**
     * Creates an unresolved socket address for the network layer.
     *
     * @return {@code InetSocketAddress.createUnresolved(host, port)}
     */
    public InetSocketAddress toUnresolvedAddress() {
        return InetSocketAddress.createUnresolved(host, port);
    }

    /**
     * Returns {@code host:port}, with brackets around IPv6 literals.
     *
     * @return the text form accepted by {@code bootstrap.servers}
     */
    @Override
    public String toString() {
        return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port;
    }
}
