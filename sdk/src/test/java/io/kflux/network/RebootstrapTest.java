package io.kflux.network;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kflux.KafkaProtocolException;
import io.kflux.metadata.Cluster;
import io.kflux.metadata.MetadataManager;
import io.kflux.protocol.ApiKey;
import io.kflux.protocol.Errors;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code metadata.recovery.strategy} and {@code metadata.recovery.rebootstrap.trigger.ms} (KIP-899, KIP-1102) in
 * {@link MetadataManager}, against fake brokers on loopback ({@link FakeMetadataCluster}): a bootstrap server that names
 * node 1 first and node 2 once asked again, node 1 either silent or answering REBOOTSTRAP_REQUIRED. Real time with short settings (the
 * manager's clock is the connections' one); assertions are on which broker was asked, never on durations.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RebootstrapTest {
    private static final Duration WAIT = FakeMetadataCluster.WAIT;
    private final FakeMetadataCluster fakes = new FakeMetadataCluster(5);
    private final FakeBroker bootstrapServer = fakes.bootstrapServer;
    private final FakeBroker node1 = fakes.node1;

    @AfterEach
    void close() {
        fakes.close();
    }

    private static void answer(FakeBroker.Exchange ex, short error, int nodeId, int port) {
        FakeMetadataCluster.answer(ex, error, "cluster-a", nodeId, port);
    }

    /** The bootstrap server names node 1 the first time and node 2 every later time. */
    private MetadataManager manager(String strategy, long triggerMs) {
        return fakes.manager("request.timeout.ms", 300L, "metadata.recovery.strategy", strategy,
                "metadata.recovery.rebootstrap.trigger.ms", triggerMs);
    }

    /** Refreshes until one succeeds (failed ones are what the callers retry), at most {@code attempts}. */
    private static Cluster refreshUntilAnswered(MetadataManager manager, int attempts) {
        for (int i = 0; i < attempts; i++) {
            try {
                return manager.refresh().block(WAIT);
            } catch (RuntimeException e) {
                // unanswered: the next attempt may rebootstrap
            }
        }
        throw new AssertionError("no refresh answered in " + attempts + " attempts");
    }

    @Test
    void rebootstrapRequiredAsksTheBootstrapServersAtOnce() {
        node1.on(ApiKey.METADATA, ex -> answer(ex, Errors.REBOOTSTRAP_REQUIRED.code(), 1, node1.port()));
        MetadataManager manager = manager("rebootstrap", 300_000L);

        Cluster next = manager.refresh().block(WAIT);

        assertThat(next.nodes()).containsOnlyKeys(2);
        assertThat(node1.received(ApiKey.METADATA)).hasSize(1);
        assertThat(bootstrapServer.received(ApiKey.METADATA)).hasSize(2);
        assertThat(manager.refresh().block(WAIT).nodes()).containsOnlyKeys(2); // node 2 from now on
        assertThat(bootstrapServer.received(ApiKey.METADATA)).hasSize(2);
    }

    @Test
    void rebootstrapRequiredToATopicIdLookupSendsTheNextRequestToTheBootstrapServers() {
        node1.on(ApiKey.METADATA, ex -> answer(ex, Errors.REBOOTSTRAP_REQUIRED.code(), 1, node1.port()));
        MetadataManager manager = manager("rebootstrap", 300_000L);

        assertThat(manager.topicIds(List.of("t"), true).block(WAIT)).isEmpty(); // no id: the caller names topics
        assertThat(manager.current().nodes()).isEmpty();
        assertThat(manager.refresh().block(WAIT).nodes()).containsOnlyKeys(2);
        assertThat(node1.received(ApiKey.METADATA)).hasSize(1);
    }

    @Test
    void rebootstrapRequiredUnderNoneFailsTheRefreshTyped() {
        node1.on(ApiKey.METADATA, ex -> answer(ex, Errors.REBOOTSTRAP_REQUIRED.code(), 1, node1.port()));
        MetadataManager manager = manager("none", 300_000L);

        assertThatThrownBy(() -> manager.refresh().block(WAIT)).isInstanceOf(KafkaProtocolException.class)
                .hasMessageContaining("REBOOTSTRAP_REQUIRED");
        assertThat(bootstrapServer.received(ApiKey.METADATA)).hasSize(1);
        assertThat(manager.current().nodes()).containsOnlyKeys(1);
    }

    @Test
    void silentKnownBrokersRebootstrapOnceTheTriggerHasPassed() {
        node1.on(ApiKey.METADATA, ex -> { }); // accepts, never answers: each attempt times out
        MetadataManager manager = manager("rebootstrap", 500L);

        Cluster next = refreshUntilAnswered(manager, 30);

        assertThat(next.nodes()).containsOnlyKeys(2);
        assertThat(node1.received(ApiKey.METADATA)).isNotEmpty();
        assertThat(bootstrapServer.received(ApiKey.METADATA)).hasSize(2);
    }

    @Test
    void underNoneSilentKnownBrokersAreNeverLeftForTheBootstrapServers() {
        node1.on(ApiKey.METADATA, ex -> { });
        MetadataManager manager = manager("none", 0L);

        for (int i = 0; i < 4; i++) {
            assertThatThrownBy(() -> manager.refresh().block(WAIT)).isNotNull();
        }
        assertThat(node1.received(ApiKey.METADATA)).hasSize(4);
        assertThat(bootstrapServer.received(ApiKey.METADATA)).hasSize(1);
    }

    @Test
    void aKnownBrokerThatCannotBeConnectedRebootstrapsOnlyUnderRebootstrap() {
        MetadataManager manager = manager("rebootstrap", 300_000L);
        node1.close(); // the whole cluster replaced: its one broker is gone

        assertThat(manager.refresh().block(WAIT).nodes()).containsOnlyKeys(2);
    }

    @Test
    void aKnownBrokerThatCannotBeConnectedFailsTheRefreshUnderNone() {
        MetadataManager manager = manager("none", 300_000L);
        node1.close();

        assertThatThrownBy(() -> manager.refresh().block(WAIT)).isInstanceOf(ConnectionFailedException.class);
        assertThat(bootstrapServer.received(ApiKey.METADATA)).hasSize(1);
    }
}
