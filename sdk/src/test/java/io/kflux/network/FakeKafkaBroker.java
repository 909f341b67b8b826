package io.kflux.network;

import io.kflux.ConsumerOptions;
import io.kflux.Deserializers;
import io.kflux.KafkaFluxConsumer;
import io.kflux.TopicPartition;
import io.kflux.protocol.ApiKey;
import io.kflux.protocol.MessageSpec;
import io.kflux.protocol.ResponseHeader;
import io.kflux.protocol.message.FetchRequest;
import io.kflux.protocol.message.FetchResponse;
import io.kflux.protocol.message.FetchResponse.FetchableTopicResponse;
import io.kflux.protocol.message.FetchResponse.PartitionData;
import io.kflux.protocol.message.ListOffsetsRequest;
import io.kflux.protocol.message.ListOffsetsResponse;
import io.kflux.protocol.message.ListOffsetsResponse.ListOffsetsPartitionResponse;
import io.kflux.protocol.message.ListOffsetsResponse.ListOffsetsTopicResponse;
import io.kflux.protocol.message.MetadataRequest;
import io.kflux.protocol.message.MetadataResponse;
import io.kflux.protocol.message.MetadataResponse.MetadataResponseBroker;
import io.kflux.protocol.message.MetadataResponse.MetadataResponsePartition;
import io.kflux.protocol.message.MetadataResponse.MetadataResponseTopic;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.IntUnaryOperator;

/**
 * A one-node Kafka cluster on a {@link FakeBroker}, for consumer tests that need answers no real broker gives: it
 * speaks the real Metadata v12, ListOffsets v7 and Fetch v12 schemas (announced as the only versions), answers
 * Metadata with itself as node 1, the only broker and every partition's leader (epoch 0 unless
 * {@link #metadataLeaderEpoch} says otherwise), ListOffsets with earliest/latest from {@link #logRange}, and hands
 * each Fetch to the test's handler ({@link #onFetch}). Responses are encoded with kflux's own message specs, so what
 * is under test is the consumer core, not the codecs. Every answer is written through the connection's event loop
 * queue, so an answer given at once never overtakes an earlier request's answer (a broker answers in request order).
 */
public final class FakeKafkaBroker implements AutoCloseable {
    public static final int NODE_ID = 1;

    /** One Fetch request, with the means to answer it (on the server's event loop, or any thread). */
    public static final class FetchExchange {
        public final FetchRequest request;
        public final int number;
        private final FakeBroker.Exchange exchange;

        FetchExchange(FetchRequest request, int number, FakeBroker.Exchange exchange) {
            this.request = request;
            this.number = number;
            this.exchange = exchange;
        }

        /** The first partition's fetch offset (the tests fetch one partition). */
        public long fetchOffset() {
            return request.topics().get(0).partitions().get(0).fetchOffset();
        }

        /** Answers for the first requested partition with {@code records} (may be null) and {@code errorCode}. */
        public void respond(short errorCode, ByteBuf records) {
            respond(errorCode, records, 1000L);
        }

        /**
         * As {@link #respond(short, ByteBuf)}, with the partition's high watermark (and last stable offset) set to
         * {@code highWatermark} instead of 1000.
         */
        public void respond(short errorCode, ByteBuf records, long highWatermark) {
            writeFrame(encode(FetchResponse.SPEC, response(errorCode, records, highWatermark), exchange.version, 0), 0);
        }

        /**
         * Sends a valid frame of another API's response: {@code body} of {@code spec} at {@code version}, under
         * this request's correlation id plus {@code correlationIdShift} (0: an answer of the wrong API to this
         * Fetch; non-zero: an answer to a request never sent).
         */
        public <T> void respondAs(MessageSpec<T> spec, T body, short version, int correlationIdShift) {
            writeFrame(encode(spec, body, version, correlationIdShift), 0);
        }

        /** As {@link #respond(short, ByteBuf)}, but the frame carries this request's correlation id plus {@code shift}. */
        public void respondWithCorrelationShift(ByteBuf records, int shift) {
            writeFrame(encode(FetchResponse.SPEC, response((short) 0, records, 1000L), exchange.version, shift), 0);
        }

        /** As {@link #respond(short, ByteBuf)}, but the frame (size prefix consistent) ends {@code cut} bytes early. */
        public void respondTruncated(short errorCode, ByteBuf records, int cut) {
            writeFrame(encode(FetchResponse.SPEC, response(errorCode, records, 1000L), exchange.version, 0), cut);
        }

        /** Answers with no records after the request's max wait, as a broker with nothing new does. */
        public void respondEmptyAfterMaxWait() {
            exchange.ctx.executor().schedule(() -> respond((short) 0, null), Math.min(request.maxWaitMs(), 500),
                    TimeUnit.MILLISECONDS);
        }

        /** A response for the first requested partition; takes over {@code records} (released once encoded). */
        private FetchResponse response(short errorCode, ByteBuf records, long highWatermark) {
            FetchRequest.FetchTopic topic = request.topics().get(0);
            FetchRequest.FetchPartition partition = topic.partitions().get(0);
            PartitionData data = new PartitionData(partition.partition(), errorCode, highWatermark, highWatermark, 0L,
                    FetchResponse.EpochEndOffset.NONE, FetchResponse.LeaderIdAndEpoch.NONE, FetchResponse.SnapshotId.NONE,
                    List.of(), FetchResponse.NO_PREFERRED_READ_REPLICA, records);
            return new FetchResponse(0, (short) 0, 0,
                    List.of(new FetchableTopicResponse(topic.topic(), topic.topicId(), List.of(data))), List.of());
        }

        /**
         * Header (of {@code spec}'s API, not necessarily the request's) and body; a Fetch response's records are
         * released once copied.
         */
        private <T> ByteBuf encode(MessageSpec<T> spec, T body, short bodyVersion, int correlationIdShift) {
            ByteBuf content = Unpooled.buffer();
            ResponseHeader.write(content, exchange.correlationId + correlationIdShift,
                    ResponseHeader.headerVersion(spec.apiKey(), spec.isFlexible(bodyVersion)));
            spec.write(content, body, bodyVersion);
            if (body instanceof FetchResponse fetch) {
                fetch.release();
            }
            return content;
        }

        private void writeFrame(ByteBuf content, int cut) {
            content.writerIndex(content.writerIndex() - cut);
            exchange.ctx.executor().execute(() -> exchange.respondRaw(content));
        }
    }

    private final FakeBroker broker = new FakeBroker();
    private final Map<String, Integer> topics = new ConcurrentHashMap<>();
    private final Map<String, UUID> topicIds = new ConcurrentHashMap<>();
    private volatile long logStart;
    private volatile long logEnd;
    private volatile Consumer<FetchExchange> fetchHandler = FetchExchange::respondEmptyAfterMaxWait;
    private final AtomicInteger fetches = new AtomicInteger();
    /** Every Fetch received, in order. */
    public final List<FetchRequest> fetchRequests = new CopyOnWriteArrayList<>();
    /** Connections accepted so far. */
    public final AtomicInteger connections = broker.connections;
    /** Connections open now (closed ones are subtracted when their channel closes). */
    public final AtomicInteger openConnections = broker.openConnections;
    /** While true, ApiVersions requests get no answer: a client stays in its connection handshake. */
    public volatile boolean holdApiVersions;
    /** ListOffsets requests received. */
    public final AtomicInteger listOffsetsRequests = new AtomicInteger();
    /** The error code every partition of a ListOffsets answer carries (0: the offsets of {@link #logRange}). */
    public volatile short listOffsetsError;
    /** Metadata requests received. */
    public final AtomicInteger metadataRequests = new AtomicInteger();
    /** The leader epoch Metadata answers, by the answer's number (1 for the first); 0 unless set. */
    public volatile IntUnaryOperator metadataLeaderEpoch = n -> 0;

    public FakeKafkaBroker() {
        broker.without(ApiKey.HEARTBEAT)
                .range(ApiKey.METADATA, 12, 12).speaks(ApiKey.METADATA, MetadataRequest.SPEC)
                .range(ApiKey.LIST_OFFSETS, 7, 7).speaks(ApiKey.LIST_OFFSETS, ListOffsetsRequest.SPEC)
                .range(ApiKey.FETCH, 12, 12).speaks(ApiKey.FETCH, FetchRequest.SPEC)
                .on(ApiKey.API_VERSIONS, this::apiVersions)
                .on(ApiKey.METADATA, this::metadata)
                .on(ApiKey.LIST_OFFSETS, this::listOffsets)
                .on(ApiKey.FETCH, ex -> {
                    FetchRequest request = (FetchRequest) ex.body;
                    fetchRequests.add(request);
                    fetchHandler.accept(new FetchExchange(request, fetches.incrementAndGet(), ex));
                });
    }

    public String bootstrapServers() {
        return "127.0.0.1:" + broker.port();
    }

    /**
     * Consumer properties for this broker: {@code bootstrap.servers}, {@code auto.offset.reset=earliest}, then
     * {@code extra} (key, value pairs) added or overriding.
     */
    public Map<String, Object> properties(Object... extra) {
        Map<String, Object> props = new HashMap<>();
        props.put("bootstrap.servers", bootstrapServers());
        props.put("auto.offset.reset", "earliest");
        for (int i = 0; i < extra.length; i += 2) {
            props.put((String) extra[i], extra[i + 1]);
        }
        return props;
    }

    /** A string consumer of {@code assignment} on this broker with {@code props}. */
    public static KafkaFluxConsumer<String, String> consumer(Map<String, Object> props, List<TopicPartition> assignment) {
        return KafkaFluxConsumer.create(ConsumerOptions.create(props, Deserializers.string(), Deserializers.string())
                .assignment(assignment));
    }

    /**
     * A string consumer of {@code partition} on this broker, retrying quickly (20 ms backoffs) and long-polling
     * 200 ms, as the tests against a fake broker use it.
     */
    public KafkaFluxConsumer<String, String> consumer(TopicPartition partition) {
        return consumer(properties("fetch.max.wait.ms", 200, "reconnect.backoff.ms", 20, "retry.backoff.ms", 20),
                List.of(partition));
    }

    public FakeKafkaBroker topic(String name, int partitions) {
        topics.put(name, partitions);
        topicIds.put(name, UUID.randomUUID());
        return this;
    }

    /** What ListOffsets answers for earliest (-2) and latest (-1). */
    public FakeKafkaBroker logRange(long start, long end) {
        this.logStart = start;
        this.logEnd = end;
        return this;
    }

    public FakeKafkaBroker onFetch(Consumer<FetchExchange> handler) {
        this.fetchHandler = handler;
        return this;
    }

    @Override
    public void close() {
        broker.close();
    }

    private void apiVersions(FakeBroker.Exchange ex) {
        if (!holdApiVersions) {
            inOrder(ex, () -> broker.answerApiVersions(ex));
        }
    }

    private void metadata(FakeBroker.Exchange ex) {
        MetadataRequest request = (MetadataRequest) ex.body;
        int leaderEpoch = metadataLeaderEpoch.applyAsInt(metadataRequests.incrementAndGet());
        List<String> names = new ArrayList<>();
        if (request.topics() == null) {
            names.addAll(topics.keySet());
        } else {
            request.topics().forEach(t -> names.add(t.name()));
        }
        List<MetadataResponseTopic> out = new ArrayList<>();
        for (String name : names) {
            Integer n = topics.get(name);
            if (n == null) {
                out.add(new MetadataResponseTopic((short) 3, name, new UUID(0, 0), false, List.of(),
                        MetadataResponse.AUTHORIZED_OPERATIONS_OMITTED));
                continue;
            }
            List<MetadataResponsePartition> partitions = new ArrayList<>();
            for (int p = 0; p < n; p++) {
                partitions.add(new MetadataResponsePartition((short) 0, p, NODE_ID, leaderEpoch, List.of(NODE_ID),
                        List.of(NODE_ID), List.of()));
            }
            out.add(new MetadataResponseTopic((short) 0, name, topicIds.get(name), false, partitions,
                    MetadataResponse.AUTHORIZED_OPERATIONS_OMITTED));
        }
        MetadataResponse response = new MetadataResponse(0,
                List.of(new MetadataResponseBroker(NODE_ID, "127.0.0.1", broker.port(), null)), "fake-cluster",
                NODE_ID, out, MetadataResponse.AUTHORIZED_OPERATIONS_OMITTED, (short) 0);
        inOrder(ex, () -> ex.respond(MetadataResponse.SPEC, response));
    }

    private void listOffsets(FakeBroker.Exchange ex) {
        ListOffsetsRequest request = (ListOffsetsRequest) ex.body;
        listOffsetsRequests.incrementAndGet();
        short error = listOffsetsError;
        List<ListOffsetsTopicResponse> out = new ArrayList<>();
        for (ListOffsetsRequest.ListOffsetsTopic t : request.topics()) {
            List<ListOffsetsPartitionResponse> ps = new ArrayList<>();
            for (ListOffsetsRequest.ListOffsetsPartition p : t.partitions()) {
                long offset = p.timestamp() == -2L ? logStart : logEnd;
                ps.add(error != 0 ? new ListOffsetsPartitionResponse(p.partitionIndex(), error, -1L, -1L, -1)
                        : new ListOffsetsPartitionResponse(p.partitionIndex(), (short) 0, -1L, offset, 0));
            }
            out.add(new ListOffsetsTopicResponse(t.name(), ps));
        }
        inOrder(ex, () -> ex.respond(ListOffsetsResponse.SPEC, new ListOffsetsResponse(0, out)));
    }

    /** Through the event loop's queue, as Fetch answers are written (see the class comment). */
    private static void inOrder(FakeBroker.Exchange ex, Runnable write) {
        ex.ctx.executor().execute(write);
    }
}
