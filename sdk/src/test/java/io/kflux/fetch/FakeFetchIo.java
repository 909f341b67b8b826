package io.kflux.fetch;

import static org.assertj.core.api.Assertions.assertThat;

import io.kflux.TopicPartition;
import io.kflux.metadata.Cluster;
import io.kflux.metadata.Node;
import io.kflux.testsupport.ScriptedMetadata;
import io.kflux.protocol.Errors;
import io.kflux.protocol.message.FetchRequest;
import io.kflux.protocol.message.FetchResponse;
import io.kflux.protocol.message.FetchResponse.FetchableTopicResponse;
import io.kflux.protocol.message.FetchResponse.PartitionData;
import io.kflux.protocol.message.OffsetForLeaderEpochResponse.EpochEndOffset;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.MemoryRecordsBuilder;
import org.apache.kafka.common.record.RecordBatch;
import org.apache.kafka.common.record.TimestampType;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * A scripted cluster for {@link Fetcher}: every Fetch, OffsetForLeaderEpoch and ListOffsets waits until the test
 * answers it; metadata refreshes answer at once with {@link #afterRefresh} (when set) or the current snapshot (the
 * metadata half is {@link ScriptedMetadata}, shared with the share path's fake). Answers are emitted on the test
 * thread, so with a SerialExecutor loop and a virtual-time scheduler each step is deterministic.
 */
final class FakeFetchIo extends ScriptedMetadata implements FetchIo {
    static final String TOPIC = "t";
    static final UUID TOPIC_ID = UUID.fromString("00000000-0000-0000-0000-0000000000aa");

    final Deque<PendingFetch> fetches = new ArrayDeque<>();
    final List<PendingFetch> fetchesSent = new ArrayList<>();
    final Deque<PendingEpochs> epochQueries = new ArrayDeque<>();
    final Deque<PendingList> listings = new ArrayDeque<>();

    FakeFetchIo(Cluster cluster) {
        super(cluster);
    }

    /** One Fetch sent: where to, what, and how to answer it. */
    record PendingFetch(Node node, FetchRequest request, Sinks.One<Fetched> sink) {
        /** Answers at Fetch version 12 (the client honours throttle times, KIP-219). */
        void answer(FetchResponse response) {
            answer(response, (short) 12);
        }

        void answer(FetchResponse response, short version) {
            sink.tryEmitValue(new Fetched(response, version));
        }

        /** The one partition this request lists. */
        FetchRequest.FetchPartition only(int partition) {
            return request.topics().stream().flatMap(t -> t.partitions().stream())
                    .filter(p -> p.partition() == partition).findFirst().orElseThrow(() -> new AssertionError(
                            "partition " + partition + " is not in the Fetch: " + request.topics()));
        }

        List<Integer> listed() {
            return request.topics().stream().flatMap(t -> t.partitions().stream())
                    .map(FetchRequest.FetchPartition::partition).toList();
        }

        List<Integer> forgotten() {
            return request.forgottenTopicsData().stream().flatMap(t -> t.partitions().stream()).toList();
        }
    }

    record PendingEpochs(Node leader, Map<TopicPartition, EpochEndOffsets.Query> queries,
                         Sinks.One<Map<TopicPartition, EpochEndOffset>> sink) {
    }

    record PendingList(Map<TopicPartition, Long> timestamps, Sinks.One<Map<TopicPartition, ListedOffset>> sink) {
    }

    @Override
    public Mono<Fetched> fetch(Node node, FetchRequest request) {
        PendingFetch pending = new PendingFetch(node, request, Sinks.one());
        fetches.add(pending);
        fetchesSent.add(pending);
        return pending.sink().asMono();
    }

    @Override
    public Mono<Map<TopicPartition, EpochEndOffset>> offsetsForLeaderEpoch(
            Node leader, Map<TopicPartition, EpochEndOffsets.Query> queries) {
        PendingEpochs pending = new PendingEpochs(leader, Map.copyOf(queries), Sinks.one());
        epochQueries.add(pending);
        return pending.sink().asMono();
    }

    @Override
    public Mono<Map<TopicPartition, ListedOffset>> listOffsets(Map<TopicPartition, Long> timestamps, Duration timeout) {
        PendingList pending = new PendingList(Map.copyOf(timestamps), Sinks.one());
        listings.add(pending);
        return pending.sink().asMono();
    }

    PendingFetch takeFetch() {
        PendingFetch f = fetches.poll();
        assertThat(f).as("a Fetch is pending").isNotNull();
        return f;
    }

    PendingEpochs takeEpochQuery() {
        PendingEpochs q = epochQueries.poll();
        assertThat(q).as("an OffsetForLeaderEpoch is pending").isNotNull();
        return q;
    }

    PendingList takeListing() {
        PendingList l = listings.poll();
        assertThat(l).as("a ListOffsets is pending").isNotNull();
        return l;
    }

    /** Brokers 1 and 2; topic {@link #TOPIC} with {@code partitions} partitions, each led by {@code leader}. */
    static Cluster cluster(int partitions, int leader, int leaderEpoch) {
        int[] leaders = new int[partitions];
        java.util.Arrays.fill(leaders, leader);
        return clusterLedBy(leaderEpoch, leaders);
    }

    /** Brokers 1 and 2; topic {@link #TOPIC} whose partition p is led by {@code leaders[p]}. */
    static Cluster clusterLedBy(int leaderEpoch, int... leaders) {
        return twoBrokers(TOPIC, TOPIC_ID, leaderEpoch, leaders);
    }

    /** A Fetch answer without a top-level error: session {@code sessionId}, these partitions' data. */
    static FetchResponse response(int throttleMs, int sessionId, PartitionData... partitions) {
        return new FetchResponse(throttleMs, (short) 0, sessionId,
                List.of(new FetchableTopicResponse(TOPIC, TOPIC_ID, List.of(partitions))), List.of());
    }

    /** A Fetch answer with only a top-level error. */
    static FetchResponse topLevelError(Errors error) {
        return new FetchResponse(0, error.code(), 0, List.of(), List.of());
    }

    /** A partition's answer: {@code error}, high watermark {@code highWatermark}, these records (null: none). */
    static PartitionData partition(int partition, Errors error, long highWatermark, ByteBuf records) {
        return new PartitionData(partition, error.code(), highWatermark, highWatermark, 0L,
                FetchResponse.EpochEndOffset.NONE, FetchResponse.LeaderIdAndEpoch.NONE, FetchResponse.SnapshotId.NONE,
                null, FetchResponse.NO_PREFERRED_READ_REPLICA, records == null ? Unpooled.EMPTY_BUFFER : records);
    }

    /** One record batch written by the official client: offsets {@code base} to {@code base + count - 1}. */
    static ByteBuf batch(long base, int leaderEpoch, int count) {
        ByteBuffer out = ByteBuffer.allocate(4096);
        append(out, base, leaderEpoch, count);
        out.flip();
        return Unpooled.wrappedBuffer(out);
    }

    /** Appends one batch written by the official client to {@code out}: {@code count} records from {@code base}. */
    static void append(ByteBuffer out, long base, int leaderEpoch, int count) {
        MemoryRecordsBuilder b = MemoryRecords.builder(out, RecordBatch.MAGIC_VALUE_V2, Compression.NONE,
                TimestampType.CREATE_TIME, base, 1000L, RecordBatch.NO_PRODUCER_ID, RecordBatch.NO_PRODUCER_EPOCH,
                RecordBatch.NO_SEQUENCE, false, leaderEpoch);
        for (int i = 0; i < count; i++) {
            b.append(1000L + i, ("k" + i).getBytes(), ("v" + i).getBytes());
        }
        b.close();
    }

    static EpochEndOffset epochEnd(int partition, int epoch, long endOffset) {
        return new EpochEndOffset((short) 0, partition, epoch, endOffset);
    }
}
