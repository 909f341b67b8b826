package io.kflux.network;

import io.kflux.internal.ClientSettings;
import java.util.Map;

/**
 * Network settings as a consumer with only {@code bootstrap.servers} set would get them (kflux's defaults, from
 * the property definitions), with client id "kflux": for tests that drive the network layer alone.
 */
final class TestNetworkOptions {
    private TestNetworkOptions() {
    }

    static NetworkOptions defaults() {
        return ClientSettings.of(Map.of("bootstrap.servers", "localhost:9092", "client.id", "kflux")).network();
    }
}
