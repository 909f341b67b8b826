package io.kflux.compat.support;

import io.kflux.protocol.ApiKey;
import io.kflux.protocol.MessageSpec;
import io.kflux.protocol.RequestHeader;
import io.kflux.protocol.ResponseHeader;
import io.kflux.protocol.Varint;
import io.kflux.protocol.message.ApiVersionsRequest;
import io.kflux.protocol.message.ApiVersionsResponse;
import io.kflux.protocol.message.ApiVersionsResponse.ApiVersion;
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
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import reactor.core.publisher.Mono;
import reactor.netty.DisposableServer;
import reactor.netty.tcp.TcpServer;

/**
 * A one-node Kafka stand-in on loopback for tests that need answers no real broker gives:
 * it answers ApiVersions (Metadata v12, ListOffsets v7 and Fetch v12 only), Metadata (itself as
 * node 1, the only broker and every partition's leader, epoch 0), ListOffsets (earliest/latest
 * from {@link #logRange}), and hands each Fetch to the test's handler ({@link #onFetch}).
 * Responses are encoded with kflux's own message specs, so what is under test is the consumer
 * core, not the codecs.
 */
public final class FakeKafkaBroker implements AutoCloseable {
    public static final int NODE_ID = 1;

    /** One Fetch request, with the means to answer it (on the server's event loop, or any thread). */
    public static final class FetchExchange {
        public final FetchRequest request;
        public final int number;
        private final short version;
        private final int correlationId;
        private final ChannelHandlerContext ctx;

        FetchExchange(FetchRequest request, int number, short version, int correlationId, ChannelHandlerContext ctx) {
            this.request = request;
            this.number = number;
            this.version = version;
            this.correlationId = correlationId;
            this.ctx = ctx;
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
            ByteBuf content = encode(FetchResponse.SPEC, response(errorCode, records, highWatermark), version, 0);
            writeFrame(content, content.readableBytes());
        }

        /**
         * Sends a valid frame of another API's response: {@code body} of {@code spec} at {@code version}, under
         * this request's correlation id plus {@code correlationIdShift} (0: an answer of the wrong API to this
         * Fetch; non-zero: an answer to a request never sent).
         */
        public <T> void respondAs(MessageSpec<T> spec, T body, short version, int correlationIdShift) {
            ByteBuf content = encode(spec, body, version, correlationIdShift);
            writeFrame(content, content.readableBytes());
        }

        /** As {@link #respond(short, ByteBuf)}, but the frame carries this request's correlation id plus {@code shift}. */
        public void respondWithCorrelationShift(ByteBuf records, int shift) {
            ByteBuf content = encode(FetchResponse.SPEC, response((short) 0, records, 1000L), version, shift);
            writeFrame(content, content.readableBytes());
        }

        /** As {@link #respond(short, ByteBuf)}, but the frame (size prefix consistent) ends {@code cut} bytes early. */
        public void respondTruncated(short errorCode, ByteBuf records, int cut) {
            ByteBuf content = encode(FetchResponse.SPEC, response(errorCode, records, 1000L), version, 0);
            writeFrame(content, content.readableBytes() - cut);
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

        /** Answers with no records after the request's max wait, as a broker with nothing new does. */
        public void respondEmptyAfterMaxWait() {
            ctx.executor().schedule(() -> respond((short) 0, null), Math.min(request.maxWaitMs(), 500), TimeUnit.MILLISECONDS);
        }

        /** Header and body; a Fetch response's records are released once copied into the frame. */
        private <T> ByteBuf encode(MessageSpec<T> spec, T body, short bodyVersion, int correlationIdShift) {
            ByteBuf content = Unpooled.buffer();
            ResponseHeader.write(content, correlationId + correlationIdShift,
                    ResponseHeader.headerVersion(spec.apiKey(), spec.isFlexible(bodyVersion)));
            spec.write(content, body, bodyVersion);
            if (body instanceof FetchResponse fetch) {
                fetch.release();
            }
            return content;
        }

        private void writeFrame(ByteBuf content, int length) {
            ByteBuf frame = Unpooled.buffer(4 + length);
            frame.writeInt(length);
            frame.writeBytes(content, content.readerIndex(), length);
            content.release();
            ctx.executor().execute(() -> ctx.writeAndFlush(frame));
        }
    }

    private final Map<String, Integer> topics = new ConcurrentHashMap<>();
    private final Map<String, UUID> topicIds = new ConcurrentHashMap<>();
    private volatile long logStart;
    private volatile long logEnd;
    private volatile Consumer<FetchExchange> fetchHandler = FetchExchange::respondEmptyAfterMaxWait;
    private final AtomicInteger fetches = new AtomicInteger();
    /** Every Fetch received, in order. */
    public final List<FetchRequest> fetchRequests = new CopyOnWriteArrayList<>();
    public final AtomicInteger connections = new AtomicInteger();
    /** Connections open now (closed ones are subtracted when their channel closes). */
    public final AtomicInteger openConnections = new AtomicInteger();
    /** While true, ApiVersions requests get no answer: a client stays in its connection handshake. */
    public volatile boolean holdApiVersions;
    /** Metadata requests received. */
    public final AtomicInteger metadataRequests = new AtomicInteger();
    /** The leader epoch Metadata answers, by the answer's number (1 for the first); 0 unless set. */
    public volatile java.util.function.IntUnaryOperator metadataLeaderEpoch = n -> 0;
    private final DisposableServer server;

    public FakeKafkaBroker() {
        server = TcpServer.create()
                .host("127.0.0.1")
                .port(0)
                .doOnConnection(c -> {
                    connections.incrementAndGet();
                    openConnections.incrementAndGet();
                    c.onDispose(openConnections::decrementAndGet);
                    c.addHandlerLast("frames", new LengthFieldBasedFrameDecoder(1 << 20, 0, 4, 0, 4));
                    c.addHandlerLast("broker", new Handler());
                    c.channel().config().setAutoRead(true);
                })
                .handle((in, out) -> Mono.never())
                .bindNow();
    }

    public String bootstrapServers() {
        return "127.0.0.1:" + server.port();
    }

    /**
     * A string consumer of {@code partition} on this broker, retrying quickly (20 ms backoffs) and long-polling
     * 200 ms, as the tests against a fake broker use it.
     */
    public io.kflux.KafkaFluxConsumer<String, String> consumer(io.kflux.TopicPartition partition) {
        return Kflux.strings(Kflux.props(bootstrapServers(), "fetch.max.wait.ms", 200,
                "reconnect.backoff.ms", 20, "retry.backoff.ms", 20), List.of(partition));
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
        server.disposeNow();
    }

    private final class Handler extends ChannelInboundHandlerAdapter {
        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close();
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ByteBuf frame = (ByteBuf) msg;
            try {
                RequestHeader header = RequestHeader.read(frame);
                MessageSpec<?> spec = switch (header.apiKey()) {
                    case API_VERSIONS -> ApiVersionsRequest.SPEC;
                    case METADATA -> MetadataRequest.SPEC;
                    case LIST_OFFSETS -> ListOffsetsRequest.SPEC;
                    case FETCH -> FetchRequest.SPEC;
                    default -> null;
                };
                if (spec == null) {
                    ctx.close();
                    return;
                }
                if (spec.isFlexible(header.apiVersion())) {
                    skipTaggedFields(frame);
                }
                Object body = spec.read(frame, header.apiVersion());
                answer(ctx, header, body);
            } finally {
                frame.release();
            }
        }
    }

    private void answer(ChannelHandlerContext ctx, RequestHeader header, Object body) {
        short v = header.apiVersion();
        switch (header.apiKey()) {
            case API_VERSIONS -> {
                if (!holdApiVersions) {
                    respondApiVersions(ctx, header);
                }
            }
            case METADATA -> {
                MetadataRequest request = (MetadataRequest) body;
                int leaderEpoch = metadataLeaderEpoch.applyAsInt(metadataRequests.incrementAndGet());
                List<MetadataResponseTopic> out = new ArrayList<>();
                List<String> names = new ArrayList<>();
                if (request.topics() == null) {
                    names.addAll(topics.keySet());
                } else {
                    request.topics().forEach(t -> names.add(t.name()));
                }
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
                respond(ctx, header, MetadataResponse.SPEC, new MetadataResponse(0,
                        List.of(new MetadataResponseBroker(NODE_ID, "127.0.0.1", server.port(), null)), "fake-cluster",
                        NODE_ID, out, MetadataResponse.AUTHORIZED_OPERATIONS_OMITTED, (short) 0));
            }
            case LIST_OFFSETS -> {
                ListOffsetsRequest request = (ListOffsetsRequest) body;
                List<ListOffsetsTopicResponse> out = new ArrayList<>();
                for (ListOffsetsRequest.ListOffsetsTopic t : request.topics()) {
                    List<ListOffsetsPartitionResponse> ps = new ArrayList<>();
                    for (ListOffsetsRequest.ListOffsetsPartition p : t.partitions()) {
                        long offset = p.timestamp() == -2L ? logStart : logEnd;
                        ps.add(new ListOffsetsPartitionResponse(p.partitionIndex(), (short) 0, -1L, offset, 0));
                    }
                    out.add(new ListOffsetsTopicResponse(t.name(), ps));
                }
                respond(ctx, header, ListOffsetsResponse.SPEC, new ListOffsetsResponse(0, out));
            }
            case FETCH -> {
                FetchRequest request = (FetchRequest) body;
                fetchRequests.add(request);
                fetchHandler.accept(new FetchExchange(request, fetches.incrementAndGet(), v, header.correlationId(), ctx));
            }
            default -> ctx.close();
        }
    }

    private static void respondApiVersions(ChannelHandlerContext ctx, RequestHeader header) {
        respond(ctx, header, ApiVersionsResponse.SPEC, new ApiVersionsResponse((short) 0, List.of(
                range(ApiKey.API_VERSIONS, 0, 4), range(ApiKey.METADATA, 12, 12),
                range(ApiKey.LIST_OFFSETS, 7, 7), range(ApiKey.FETCH, 12, 12)), 0, List.of(), -1L, List.of(), false));
    }

    private static ApiVersion range(ApiKey key, int min, int max) {
        return new ApiVersion(key.id, (short) min, (short) max);
    }

    private static <T> void respond(ChannelHandlerContext ctx, RequestHeader header, MessageSpec<T> spec, T body) {
        ByteBuf content = Unpooled.buffer();
        ResponseHeader.write(content, header.correlationId(),
                ResponseHeader.headerVersion(header.apiKey(), spec.isFlexible(header.apiVersion())));
        spec.write(content, body, header.apiVersion());
        ByteBuf frame = ctx.alloc().buffer(4 + content.readableBytes());
        frame.writeInt(content.readableBytes());
        frame.writeBytes(content);
        content.release();
        // Through the event loop's queue, as Fetch answers are written: an answer given at once never overtakes an
        // earlier request's answer on the connection (a broker answers in request order).
        ctx.executor().execute(() -> ctx.writeAndFlush(frame));
    }

    private static void skipTaggedFields(ByteBuf buf) {
        int count = Varint.readUnsignedVarint(buf);
        for (int i = 0; i < count; i++) {
            Varint.readUnsignedVarint(buf);
            buf.skipBytes(Varint.readUnsignedVarint(buf));
        }
    }
}
