package io.kflux.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.internal.config.ConsumerConfig;
import io.kflux.network.ConnectionSecurity;
import io.kflux.network.DnsLookup;
import io.kflux.network.NetworkOptions;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The official connection settings reach the network layer (they were parsed and then dropped before 0.2). */
class ClientSettingsTest {

    private static NetworkOptions network(Map<String, Object> extra) {
        Map<String, Object> props = new HashMap<>(Map.of("bootstrap.servers", "localhost:9092"));
        props.putAll(extra);
        return ClientSettings.from(ConsumerConfig.parse(props), 1 << 20, ConnectionSecurity.PLAINTEXT).network();
    }

    @Test
    void connectionSettingsAreCarriedToTheNetworkLayer() {
        NetworkOptions n = network(Map.of("send.buffer.bytes", 4096, "receive.buffer.bytes", -1,
                "connections.max.idle.ms", 1234L, "socket.connection.setup.timeout.ms", 500L,
                "socket.connection.setup.timeout.max.ms", 7000L,
                "client.dns.lookup", "resolve_canonical_bootstrap_servers_only"));
        assertThat(n.sendBufferBytes()).isEqualTo(4096);
        assertThat(n.receiveBufferBytes()).isEqualTo(-1);
        assertThat(n.connectionsMaxIdleMs()).isEqualTo(1234L);
        assertThat(n.connectionSetupTimeoutMs()).isEqualTo(500L);
        assertThat(n.connectionSetupTimeoutMaxMs()).isEqualTo(7000L);
        assertThat(n.dnsLookup()).isEqualTo(DnsLookup.RESOLVE_CANONICAL_BOOTSTRAP_SERVERS_ONLY);
    }

    @Test
    void theDefaultsAreTheOfficialOnes() {
        NetworkOptions n = network(Map.of());
        assertThat(n.sendBufferBytes()).isEqualTo(128 * 1024);
        assertThat(n.receiveBufferBytes()).isEqualTo(64 * 1024);
        assertThat(n.connectionsMaxIdleMs()).isEqualTo(540_000L);
        assertThat(n.connectionSetupTimeoutMs()).isEqualTo(10_000L);
        assertThat(n.connectionSetupTimeoutMaxMs()).isEqualTo(30_000L);
        assertThat(n.dnsLookup()).isEqualTo(DnsLookup.USE_ALL_DNS_IPS);
    }
}
