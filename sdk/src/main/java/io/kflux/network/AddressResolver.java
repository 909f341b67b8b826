package io.kflux.network;

import io.netty.util.NetUtil;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Arrays;
import java.util.List;
import reactor.core.publisher.Mono;

/**
 * Turns a broker's host name into the addresses to try, in order. A seam so that tests can give a name
 * several addresses (a real resolver rarely does on a test machine).
 */
@FunctionalInterface
interface AddressResolver {

    /**
     * The JDK resolver ({@code /etc/hosts}, the JVM DNS cache, as the official client), on {@link BlockingScheduler}
     * because it blocks. An already resolved address is returned as it is, and an IP literal ({@code 127.0.0.1},
     * {@code ::1}) is parsed on the calling thread: it needs no lookup, so it starts no blocking thread (every
     * connect of a cluster that advertises IPs used to start one, kept for a minute). Each resolved address keeps the
     * host name, so TLS still verifies the broker's certificate against the name.
     */
    AddressResolver JDK = address -> {
        if (!address.isUnresolved()) {
            return Mono.just(List.of(address));
        }
        byte[] literal = NetUtil.createByteArrayFromIpAddressString(address.getHostString());
        if (literal != null) {
            return Mono.fromCallable(() -> List.of(new InetSocketAddress(
                    InetAddress.getByAddress(address.getHostString(), literal), address.getPort())));
        }
        return Mono.fromCallable(() -> Arrays.stream(InetAddress.getAllByName(address.getHostString()))
                        .map(a -> new InetSocketAddress(a, address.getPort())).toList())
                .subscribeOn(BlockingScheduler.shared());
    };

    /**
     * @return at least one resolved address; fails with {@link java.net.UnknownHostException} when the name
     * does not resolve
     */
    Mono<List<InetSocketAddress>> resolve(InetSocketAddress address);
}
