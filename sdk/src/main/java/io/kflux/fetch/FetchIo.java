package io.kflux.fetch;

import io.kflux.TopicPartition;
import io.kflux.metadata.Cluster;
import io.kflux.metadata.Node;
import io.kflux.protocol.message.FetchRequest;
import io.kflux.protocol.message.FetchResponse;
import io.kflux.protocol.message.OffsetForLeaderEpochResponse.EpochEndOffset;
import java.time.Duration;
import java.util.Map;
import reactor.core.publisher.Mono;

/**
 * Everything {@link Fetcher} asks of the network and metadata layers, behind one seam so that the fetch loops can be
 * driven by a scripted cluster in tests (virtual time, no sockets), as {@code io.kflux.group.GroupIo} is for the
 * group member. {@link NetworkFetchIo} is the real one. Monos may signal on any thread; the fetcher hops back onto its
 * event loop.
 */
interface FetchIo {

    /** The latest metadata snapshot. */
    Cluster cluster();

    /** A fresh metadata snapshot; fails when no broker answers. */
    Mono<Cluster> refreshMetadata();

    /**
     * Sends a Fetch to {@code node} on the node's fetch connection.
     *
     * @return the answer and the Fetch version it was sent at (from v8 the client honours {@code throttle_time_ms},
     * KIP-219); fails with the network layer's exceptions, {@link io.kflux.protocol.MalformedMessageException} for an
     * undecodable answer. The caller owns the response's record buffers.
     */
    Mono<Fetched> fetch(Node node, FetchRequest request);

    /**
     * Sends OffsetForLeaderEpoch (KIP-320) to {@code leader}: for each partition, the end offset of the leader epoch
     * it last fetched.
     *
     * @return each partition's answer, per-partition errors included (not raised); fails with the network layer's
     * exceptions
     */
    Mono<Map<TopicPartition, EpochEndOffset>> offsetsForLeaderEpoch(Node leader,
                                                                  Map<TopicPartition, EpochEndOffsets.Query> queries);

    /**
     * ListOffsets for {@code timestamps} (-2 earliest, -1 latest, else a timestamp in ms), each partition asked of its
     * leader; leader errors are retried until {@code timeout} (see {@link OffsetLookup#list}).
     */
    Mono<Map<TopicPartition, ListedOffset>> listOffsets(Map<TopicPartition, Long> timestamps, Duration timeout);

    /** A Fetch answer and the version the request went out at. */
    record Fetched(FetchResponse response, short version) {
    }
}
