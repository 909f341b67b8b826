package io.kflux.internal;

import static org.assertj.core.api.Assertions.assertThat;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kflux.ConfigException;
import io.kflux.fetch.FetchConfig;
import io.kflux.group.ConsumerGroupConfig;
import io.kflux.group.GroupConfig;
import io.kflux.group.assignor.PartitionAssignor;
import io.kflux.internal.config.ConsumerConfig;
import io.kflux.network.ConnectionSecurity;
import io.kflux.network.DnsLookup;
import io.kflux.network.NetworkOptions;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The official connection settings reach the network layer (they were parsed and then dropped before 0.2). */
class ClientSettingsTest {

    private static NetworkOptions network(Map<String, Object> extra) {
        Map<String, Object> props = new HashMap<>(Map.of("bootstrap.servers", "localhost:9092"));
        props.putAll(extra);
        return ClientSettings.from(ConsumerConfig.parse(props), 1 << 20, ConnectionSecurity.PLAINTEXT).network();
    }

    private static ClientSettings settings(Object... keyValues) {
        Map<String, Object> props = new HashMap<>(Map.of("bootstrap.servers", "localhost:9092"));
        for (int i = 0; i < keyValues.length; i += 2) {
            props.put((String) keyValues[i], keyValues[i + 1]);
        }
        return ClientSettings.of(props);
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
        // the one departure: kernel auto-tuning, not the official client's 64 KiB (issue #28)
        assertThat(n.receiveBufferBytes()).isEqualTo(-1);
        assertThat(n.connectionsMaxIdleMs()).isEqualTo(540_000L);
        assertThat(n.connectionSetupTimeoutMs()).isEqualTo(10_000L);
        assertThat(n.connectionSetupTimeoutMaxMs()).isEqualTo(30_000L);
        assertThat(n.dnsLookup()).isEqualTo(DnsLookup.USE_ALL_DNS_IPS);
    }

    @Test
    void theGroupSettingsOfBothProtocolsComeFromTheDefinitions() {
        GroupConfig classic = settings("group.id", "g", "group.instance.id", "i").classicGroup();
        assertThat(classic.sessionTimeoutMs()).isEqualTo(45_000);
        assertThat(classic.heartbeatIntervalMs()).isEqualTo(3_000);
        assertThat(classic.maxPollIntervalMs()).isEqualTo(300_000);
        assertThat(classic.retryBackoffMs()).isEqualTo(100);
        assertThat(classic.retryBackoffMaxMs()).isEqualTo(1_000);
        assertThat(classic.requestTimeoutMs()).isEqualTo(30_000);
        assertThat(classic.instanceId()).contains("i");
        assertThat(classic.excludeInternalTopics()).isTrue();
        assertThat(classic.assignors()).extracting(PartitionAssignor::name).containsExactly("range", "cooperative-sticky");

        ConsumerGroupConfig kip848 = settings("group.id", "g", "group.protocol", "consumer",
                "max.poll.interval.ms", 12_345, "group.remote.assignor", "uniform").consumerGroup();
        assertThat(kip848.rebalanceTimeoutMs()).isEqualTo(12_345);
        assertThat(kip848.remoteAssignor()).isEqualTo("uniform");
        assertThat(kip848.sessionTimeoutMs()).isEqualTo(45_000);
        assertThatThrownBy(() -> settings().classicGroup()).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void theFetchSettingsComeFromTheDefinitions() {
        FetchConfig fetch = settings("fetch.max.wait.ms", 250, "isolation.level", "read_committed").fetch();
        assertThat(fetch.maxWaitMs()).isEqualTo(250);
        assertThat(fetch.minBytes()).isEqualTo(1);
        assertThat(fetch.maxBytes()).isEqualTo(52_428_800);
        assertThat(fetch.partitionMaxBytes()).isEqualTo(1_048_576);
        assertThat(fetch.readCommitted()).isTrue();
        assertThat(fetch.maxBufferedBytes()).isEqualTo(2L * 52_428_800);
    }

    @Test
    void aValueTheNetworkLayerCannotUseFailsWhenParsedNamingTheProperty() {
        // 0 passed parsing and failed later as "(network settings) receiveBufferBytes" before the definitions held it
        for (String key : List.of("receive.buffer.bytes", "send.buffer.bytes")) {
            assertThatThrownBy(() -> settings(key, 0)).isInstanceOfSatisfying(ConfigException.class, e -> {
                assertThat(e.key()).isEqualTo(key);
                assertThat(e.getMessage()).contains(key).contains("-1 (the operating system default) or a size >= 1");
            });
        }
        assertThatThrownBy(() -> settings("request.timeout.ms", 0)).isInstanceOfSatisfying(ConfigException.class,
                e -> assertThat(e.key()).isEqualTo("request.timeout.ms"));
        assertThatThrownBy(() -> settings("socket.connection.setup.timeout.ms", 0L))
                .isInstanceOfSatisfying(ConfigException.class,
                        e -> assertThat(e.key()).isEqualTo("socket.connection.setup.timeout.ms"));
        assertThatThrownBy(() -> settings("socket.connection.setup.timeout.max.ms", 1L + Integer.MAX_VALUE))
                .isInstanceOfSatisfying(ConfigException.class,
                        e -> assertThat(e.key()).isEqualTo("socket.connection.setup.timeout.max.ms"));
        assertThatThrownBy(() -> settings("client.id", "c".repeat(Short.MAX_VALUE + 1)))
                .isInstanceOfSatisfying(ConfigException.class, e -> assertThat(e.key()).isEqualTo("client.id"));
        assertThat(network(Map.of("receive.buffer.bytes", -1)).receiveBufferBytes()).isEqualTo(-1);
    }

    @Test
    void theNetworkLayerReadsFurtherPropertiesByNameFromTheConfiguration() {
        NetworkOptions n = network(Map.of("metadata.max.age.ms", 777L));
        assertThat(n.config().value("metadata.max.age.ms", Long.class)).isEqualTo(777L);
        assertThatThrownBy(() -> n.config().value("no.such.property", Long.class))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
