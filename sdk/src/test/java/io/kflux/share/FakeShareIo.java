package io.kflux.share;

import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.metadata.Cluster;
import io.kflux.metadata.Node;
import io.kflux.testsupport.ScriptedMetadata;
import io.kflux.protocol.Errors;
import io.kflux.protocol.message.AcknowledgementBatch;
import io.kflux.protocol.message.FetchResponse.LeaderIdAndEpoch;
import io.kflux.protocol.message.ShareAcknowledgeRequest;
import io.kflux.protocol.message.ShareAcknowledgeResponse;
import io.kflux.protocol.message.ShareFetchRequest;
import io.kflux.protocol.message.ShareFetchResponse;
import io.kflux.protocol.message.ShareFetchResponse.AcquiredRecords;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.UUID;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * A scripted cluster for {@link ShareFetcher}: every ShareFetch and ShareAcknowledge waits until the test answers or
 * fails it; metadata refreshes answer at once with {@link #afterRefresh} (when set) or the current snapshot (the
 * metadata half is {@link ScriptedMetadata}, shared with the fetch path's fake). Each request's connection reports
 * ShareAcknowledge v{@link #acknowledgeVersion} at once. Answers are emitted on the test thread, so with a
 * SerialExecutor loop and a virtual-time scheduler each step is deterministic.
 */
final class FakeShareIo extends ScriptedMetadata implements ShareIo {
    static final String TOPIC = "jobs";
    static final UUID TOPIC_ID = UUID.fromString("5d6a1f3e-2b47-4c1a-9f0e-7c3b2a1d0e9f");
    /** The acquisition lock every answer reports (the broker's default, 30 s). */
    static final int LOCK_MS = 30_000;

    short acknowledgeVersion = 2;
    final Deque<Sent> pending = new ArrayDeque<>();
    final List<Sent> sent = new ArrayList<>();

    FakeShareIo(Cluster cluster) {
        super(cluster);
    }

    /** One request sent: where to, what, and how to answer it. */
    record Sent(Node node, Object request, Sinks.One<Object> sink) {
        void answer(Object response) {
            sink.tryEmitValue(response);
        }

        void fail(Throwable error) {
            sink.tryEmitError(error);
        }

        boolean isFetch() {
            return request instanceof ShareFetchRequest;
        }

        ShareFetchRequest fetch() {
            assertThat(request).as("a ShareFetch").isInstanceOf(ShareFetchRequest.class);
            return (ShareFetchRequest) request;
        }

        ShareAcknowledgeRequest acknowledge() {
            assertThat(request).as("a ShareAcknowledge").isInstanceOf(ShareAcknowledgeRequest.class);
            return (ShareAcknowledgeRequest) request;
        }

        int epoch() {
            return request instanceof ShareFetchRequest f ? f.shareSessionEpoch()
                    : ((ShareAcknowledgeRequest) request).shareSessionEpoch();
        }

        /** The acknowledgement batches this request carries for partition {@code partition} of {@link #TOPIC_ID}. */
        List<AcknowledgementBatch> batches(int partition) {
            List<AcknowledgementBatch> out = new ArrayList<>();
            if (request instanceof ShareFetchRequest f) {
                f.topics().stream().filter(t -> t.topicId().equals(TOPIC_ID)).flatMap(t -> t.partitions().stream())
                        .filter(p -> p.partitionIndex() == partition)
                        .forEach(p -> out.addAll(p.acknowledgementBatches()));
            } else {
                ((ShareAcknowledgeRequest) request).topics().stream().filter(t -> t.topicId().equals(TOPIC_ID))
                        .flatMap(t -> t.partitions().stream()).filter(p -> p.partitionIndex() == partition)
                        .forEach(p -> out.addAll(p.acknowledgementBatches()));
            }
            return out;
        }

        /** The offsets this request acknowledges of {@code partition}, as {@code offset:type} (1 accept, 2 release). */
        List<String> acknowledged(int partition) {
            List<String> out = new ArrayList<>();
            for (AcknowledgementBatch b : batches(partition)) {
                for (long o = b.firstOffset(); o <= b.lastOffset(); o++) {
                    byte type = b.acknowledgeTypes().size() == 1 ? b.acknowledgeTypes().get(0)
                            : b.acknowledgeTypes().get((int) (o - b.firstOffset()));
                    out.add(o + ":" + type);
                }
            }
            return out;
        }

        /** The partitions of {@link #TOPIC_ID} a ShareFetch lists. */
        List<Integer> listed() {
            return fetch().topics().stream().filter(t -> t.topicId().equals(TOPIC_ID))
                    .flatMap(t -> t.partitions().stream()).map(ShareFetchRequest.FetchPartition::partitionIndex)
                    .toList();
        }
    }

    @Override
    public Mono<ShareFetchResponse> shareFetch(Node node, ShareFetchRequest request, Connected connected) {
        return send(node, request, connected).cast(ShareFetchResponse.class);
    }

    @Override
    public Mono<ShareAcknowledgeResponse> shareAcknowledge(Node node, ShareAcknowledgeRequest request,
                                                           Connected connected) {
        return send(node, request, connected).cast(ShareAcknowledgeResponse.class);
    }

    private Mono<Object> send(Node node, Object request, Connected connected) {
        connected.acknowledgeVersion(acknowledgeVersion);
        Sent s = new Sent(node, request, Sinks.one());
        pending.add(s);
        sent.add(s);
        return s.sink().asMono();
    }

    /** The oldest request not taken yet. */
    Sent take() {
        Sent s = pending.poll();
        assertThat(s).as("a request is pending").isNotNull();
        return s;
    }

    /** Brokers 1 and 2; topic {@link #TOPIC} whose partition p is led by {@code leaders[p]}. */
    static Cluster cluster(int... leaders) {
        return twoBrokers(TOPIC, TOPIC_ID, 0, leaders);
    }

    /** A ShareFetch partition's answer: its fetch error, its acknowledgements' error, records and what was acquired. */
    static ShareFetchResponse.PartitionData fetched(int partition, Errors error, Errors ackError, ByteBuf records,
                                                    AcquiredRecords... acquired) {
        return new ShareFetchResponse.PartitionData(partition, error.code(), null, ackError.code(), null,
                LeaderIdAndEpoch.NONE, records, List.of(acquired));
    }

    /** A ShareFetch answer with top-level {@code error}, lock {@link #LOCK_MS}, these partitions of {@link #TOPIC}. */
    static ShareFetchResponse fetchAnswer(Errors error, ShareFetchResponse.PartitionData... partitions) {
        return new ShareFetchResponse(0, error.code(), error.isNone() ? null : "refused", LOCK_MS,
                List.of(new ShareFetchResponse.ShareFetchableTopicResponse(TOPIC_ID, List.of(partitions))), List.of());
    }

    /** A ShareFetch answer acquiring {@code first..last} (delivery 1) of partition {@code partition}, with records. */
    static ShareFetchResponse acquiring(int partition, long first, long last) {
        return fetchAnswer(Errors.NONE, fetched(partition, Errors.NONE, Errors.NONE, records(64),
                new AcquiredRecords(first, last, (short) 1)));
    }

    /** A ShareAcknowledge answer with top-level {@code error}, these partitions of {@link #TOPIC}. */
    static ShareAcknowledgeResponse acknowledgeAnswer(Errors error, ShareAcknowledgeResponse.PartitionData... ps) {
        return new ShareAcknowledgeResponse(0, error.code(), null, LOCK_MS,
                List.of(new ShareAcknowledgeResponse.ShareAcknowledgeTopicResponse(TOPIC_ID, List.of(ps))), List.of());
    }

    static ShareAcknowledgeResponse.PartitionData acknowledged(int partition, Errors error) {
        return new ShareAcknowledgeResponse.PartitionData(partition, error.code(), null, LeaderIdAndEpoch.NONE);
    }

    /** {@code bytes} bytes standing for record batches (the fetcher hands them on without reading them). */
    static ByteBuf records(int bytes) {
        return Unpooled.buffer(bytes).writeZero(bytes);
    }
}
