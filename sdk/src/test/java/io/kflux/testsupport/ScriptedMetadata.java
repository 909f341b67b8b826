package io.kflux.testsupport;

import io.kflux.metadata.Cluster;
import io.kflux.protocol.message.MetadataResponse;
import io.kflux.protocol.message.MetadataResponse.MetadataResponseBroker;
import io.kflux.protocol.message.MetadataResponse.MetadataResponsePartition;
import io.kflux.protocol.message.MetadataResponse.MetadataResponseTopic;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import reactor.core.publisher.Mono;

/**
 * The metadata half of the scripted clusters the fetch and share loops run against on virtual time
 * ({@code FakeFetchIo}, {@code FakeShareIo}, which extend it): the current snapshot, what the next refresh brings, how
 * many refreshes were asked, and the two-broker clusters they are built from. Its {@link #cluster()} and
 * {@link #refreshMetadata()} are the I/O seams' methods of the same names.
 */
public class ScriptedMetadata {
    /** The snapshot the loop reads now. */
    public volatile Cluster cluster;
    /** What the next metadata refresh brings (null: the current snapshot again). */
    public volatile Cluster afterRefresh;
    /** Metadata refreshes asked so far. */
    public int refreshCount;

    protected ScriptedMetadata(Cluster cluster) {
        this.cluster = cluster;
    }

    public Cluster cluster() {
        return cluster;
    }

    /** Answers at once (on subscription): {@link #afterRefresh} once, when set, else the current snapshot. */
    public Mono<Cluster> refreshMetadata() {
        refreshCount++;
        return Mono.fromSupplier(() -> {
            if (afterRefresh != null) {
                cluster = afterRefresh;
                afterRefresh = null;
            }
            return cluster;
        });
    }

    /**
     * Brokers 1 and 2 (port 9092); topic {@code topic} ({@code topicId}) whose partition p is led by
     * {@code leaders[p]} in leader epoch {@code leaderEpoch}, both brokers its replicas.
     */
    public static Cluster twoBrokers(String topic, UUID topicId, int leaderEpoch, int... leaders) {
        List<MetadataResponsePartition> ps = new ArrayList<>();
        for (int p = 0; p < leaders.length; p++) {
            ps.add(new MetadataResponsePartition((short) 0, p, leaders[p], leaderEpoch, List.of(1, 2), List.of(1, 2),
                    List.of()));
        }
        MetadataResponse r = new MetadataResponse(0, List.of(new MetadataResponseBroker(1, "broker1", 9092, null),
                new MetadataResponseBroker(2, "broker2", 9092, null)), "cluster", 1,
                List.of(new MetadataResponseTopic((short) 0, topic, topicId, false, ps, 0)), 0, (short) 0);
        return Cluster.from(r, Cluster.EMPTY, false, 1L);
    }
}
