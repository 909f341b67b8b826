package io.kflux.network;

import java.net.InetSocketAddress;

/**
 * The broker at the address of a known node refused the connection with REBOOTSTRAP_REQUIRED to ApiVersions v5: it is
 * not the node of the cluster the client meant to reach (KIP-1242, Kafka 4.4), typically because the address now
 * belongs to another broker or another cluster. The client's metadata is stale: with
 * {@code metadata.recovery.strategy=rebootstrap} the metadata layer asks {@code bootstrap.servers} again. Retriable.
 */
public final class MisroutedConnectionException extends ConnectionFailedException {
    private static final long serialVersionUID = 1L;

    private final transient BrokerIdentity expected;

    /**
     * @param address  the address that was connected
     * @param expected the node and cluster the connection was meant to reach
     */
    public MisroutedConnectionException(InetSocketAddress address, BrokerIdentity expected) {
        super(address, "the broker at " + io.kflux.util.HostPort.of(address) + " is not " + expected
                + ": it refused the connection with REBOOTSTRAP_REQUIRED (KIP-1242)", null);
        this.expected = expected;
    }

    /** The node and cluster the connection was meant to reach. */
    public BrokerIdentity expected() {
        return expected;
    }
}
