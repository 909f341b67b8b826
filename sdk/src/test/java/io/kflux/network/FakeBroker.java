package io.kflux.network;

import io.kflux.network.TestMessages.BlobRequest;
import io.kflux.network.TestMessages.BlobResponse;
import io.kflux.network.TestMessages.PingRequest;
import io.kflux.network.TestMessages.PingResponse;
import io.kflux.protocol.ApiKey;
import io.kflux.protocol.MessageSpec;
import io.kflux.protocol.RequestHeader;
import io.kflux.protocol.ResponseHeader;
import io.kflux.protocol.Varint;
import io.kflux.protocol.message.ApiVersionsRequest;
import io.kflux.protocol.message.ApiVersionsResponse;
import io.kflux.protocol.message.ApiVersionsResponse.ApiVersion;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import reactor.core.publisher.Mono;
import reactor.netty.DisposableServer;
import reactor.netty.tcp.TcpServer;

/**
 * A Kafka broker stand-in on loopback: decodes request frames, answers ApiVersions with its
 * configured ranges (v0 + UNSUPPORTED_VERSION for versions it does not know, as real brokers do),
 * echoes {@link PingRequest}s, serves {@link BlobRequest}s, and lets a test replace the answer to
 * any API with its own behaviour (delay, garbage, silence, closing). {@link #speaks} makes it read a key's real
 * request schema instead; {@link FakeKafkaBroker} builds a one-node cluster on it that way.
 */
final class FakeBroker implements AutoCloseable {

    /** One decoded request, with the means to answer it. Handlers run on the server's event loop. */
    static final class Exchange {
        final ApiKey apiKey;
        final short version;
        final int correlationId;
        final String clientId;
        final Object body;
        final ChannelHandlerContext ctx;

        Exchange(ApiKey apiKey, short version, int correlationId, String clientId, Object body, ChannelHandlerContext ctx) {
            this.apiKey = apiKey;
            this.version = version;
            this.correlationId = correlationId;
            this.clientId = clientId;
            this.body = body;
            this.ctx = ctx;
        }

        <T> void respond(MessageSpec<T> spec, T response) {
            respond(spec, response, version, correlationId);
        }

        <T> void respond(MessageSpec<T> spec, T response, short bodyVersion, int withCorrelationId) {
            ByteBuf content = Unpooled.buffer();
            ResponseHeader.write(content, withCorrelationId, ResponseHeader.headerVersion(apiKey, spec.isFlexible(version)));
            spec.write(content, response, bodyVersion);
            respondRaw(content);
        }

        /** Writes {@code content} (response header and body) as one frame; takes ownership. */
        void respondRaw(ByteBuf content) {
            ByteBuf frame = ctx.alloc().buffer(4 + content.readableBytes());
            frame.writeInt(content.readableBytes());
            frame.writeBytes(content);
            content.release();
            ctx.writeAndFlush(frame);
        }

        /** Writes raw bytes, size prefix included. */
        void writeRaw(ByteBuf bytes) {
            ctx.writeAndFlush(bytes);
        }

        void closeConnection() {
            ctx.close();
        }
    }

    private final Map<ApiKey, ApiVersion> ranges = new ConcurrentHashMap<>();
    private final Map<ApiKey, Consumer<Exchange>> behaviours = new ConcurrentHashMap<>();
    /** Request schemas that replace {@link #specOf}'s for their key (see {@link #speaks}). */
    private final Map<ApiKey, MessageSpec<?>> spoken = new ConcurrentHashMap<>();
    final List<Exchange> received = new CopyOnWriteArrayList<>();
    final AtomicInteger connections = new AtomicInteger();
    /** Connections open now (a closed one is subtracted when its channel closes). */
    final AtomicInteger openConnections = new AtomicInteger();
    private final DisposableServer server;

    FakeBroker() {
        range(ApiKey.API_VERSIONS, 0, 4);
        range(ApiKey.HEARTBEAT, 0, 4);
        range(ApiKey.FETCH, 0, 2);
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

    int port() {
        return server.port();
    }

    /** Announces {@code key} with versions {@code min..max}. */
    FakeBroker range(ApiKey key, int min, int max) {
        ranges.put(key, new ApiVersion(key.id, (short) min, (short) max));
        return this;
    }

    /** Reads requests of {@code key} with {@code request} (a real Kafka schema) instead of the test message. */
    FakeBroker speaks(ApiKey key, MessageSpec<?> request) {
        spoken.put(key, request);
        return this;
    }

    FakeBroker without(ApiKey key) {
        ranges.remove(key);
        return this;
    }

    /** Replaces the answer to {@code key}. */
    FakeBroker on(ApiKey key, Consumer<Exchange> behaviour) {
        behaviours.put(key, behaviour);
        return this;
    }

    /** Goes back to the default answer to {@code key}. */
    FakeBroker answerNormally(ApiKey key) {
        behaviours.remove(key);
        return this;
    }

    List<Exchange> received(ApiKey key) {
        List<Exchange> out = new ArrayList<>();
        for (Exchange e : received) {
            if (e.apiKey == key) {
                out.add(e);
            }
        }
        return out;
    }

    @Override
    public void close() {
        server.disposeNow();
    }

    private final class Handler extends ChannelInboundHandlerAdapter {
        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close(); // a client that closes with bytes unread resets the connection: expected here
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ByteBuf frame = (ByteBuf) msg;
            try {
                RequestHeader header = RequestHeader.read(frame);
                MessageSpec<?> spec = spoken.containsKey(header.apiKey()) ? spoken.get(header.apiKey())
                        : specOf(header.apiKey());
                ApiVersion range = ranges.get(header.apiKey());
                boolean known = range != null && header.apiVersion() >= range.minVersion()
                        && header.apiVersion() <= range.maxVersion();
                Object body = null;
                if (known && spec.supports(header.apiVersion())) {
                    if (spec.isFlexible(header.apiVersion())) {
                        skipTaggedFields(frame);
                    }
                    body = spec.read(frame, header.apiVersion());
                }
                Exchange exchange = new Exchange(header.apiKey(), header.apiVersion(), header.correlationId(),
                        header.clientId(), body, ctx);
                received.add(exchange);
                Consumer<Exchange> behaviour = behaviours.get(header.apiKey());
                if (behaviour != null) {
                    behaviour.accept(exchange);
                } else {
                    answer(exchange);
                }
            } finally {
                frame.release();
            }
        }
    }

    private void answer(Exchange ex) {
        switch (ex.apiKey) {
            case API_VERSIONS -> answerApiVersions(ex);
            case HEARTBEAT -> {
                PingRequest ping = (PingRequest) ex.body;
                ex.respond(PingResponse.SPEC, new PingResponse((short) 0, ping.value(), ping.text()));
            }
            case FETCH -> {
                BlobRequest blob = (BlobRequest) ex.body;
                ByteBuf data = Unpooled.buffer(blob.size());
                for (int i = 0; i < blob.size(); i++) {
                    data.writeByte(i);
                }
                ex.respond(BlobResponse.SPEC, new BlobResponse((short) 0, data));
                data.release();
            }
            default -> ex.closeConnection();
        }
    }

    /** The default ApiVersions answer: the announced ranges, or UNSUPPORTED_VERSION at v0 for a version not among them. */
    void answerApiVersions(Exchange ex) {
        ApiVersion own = ranges.get(ApiKey.API_VERSIONS);
        if (ex.version < own.minVersion() || ex.version > own.maxVersion()) {
            ex.respond(ApiVersionsResponse.SPEC, apiVersions((short) 35, List.of(own)), (short) 0, ex.correlationId);
        } else {
            ex.respond(ApiVersionsResponse.SPEC, apiVersions((short) 0, new ArrayList<>(ranges.values())));
        }
    }

    static ApiVersionsResponse apiVersions(short errorCode, List<ApiVersion> keys) {
        return new ApiVersionsResponse(errorCode, keys, 0, List.of(), -1L, List.of(), false);
    }

    private static MessageSpec<?> specOf(ApiKey key) {
        return switch (key) {
            case API_VERSIONS -> ApiVersionsRequest.SPEC;
            case HEARTBEAT -> PingRequest.SPEC;
            case FETCH -> BlobRequest.SPEC;
            case SASL_HANDSHAKE -> io.kflux.protocol.message.SaslHandshakeRequest.SPEC;
            case SASL_AUTHENTICATE -> io.kflux.protocol.message.SaslAuthenticateRequest.SPEC;
            case OFFSET_COMMIT -> io.kflux.protocol.message.OffsetCommitRequest.SPEC;
            case OFFSET_FETCH -> io.kflux.protocol.message.OffsetFetchRequest.SPEC;
            case METADATA -> io.kflux.protocol.message.MetadataRequest.SPEC;
            default -> throw new IllegalArgumentException("the fake broker does not speak " + key);
        };
    }

    private static void skipTaggedFields(ByteBuf buf) {
        int count = Varint.readUnsignedVarint(buf);
        for (int i = 0; i < count; i++) {
            Varint.readUnsignedVarint(buf);
            buf.skipBytes(Varint.readUnsignedVarint(buf));
        }
    }
}
