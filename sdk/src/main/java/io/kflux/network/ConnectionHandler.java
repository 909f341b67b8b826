package io.kflux.network;

import io.kflux.util.ClientMetrics;
import io.kflux.protocol.MalformedMessageException;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoop;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.util.ReferenceCountUtil;
import java.util.ArrayDeque;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The request/response bookkeeping of one connection, as the last kflux handler of its pipeline
 * (after the length-field frame decoder): assigns correlation ids, writes frames, keeps the
 * requests in flight in send order, matches each response frame to the oldest one (Kafka answers
 * in order on a connection), times requests out, and fails whatever is left when the connection
 * ends. Every method runs on the channel's event loop, so the queue needs no lock.
 */
final class ConnectionHandler extends ChannelInboundHandlerAdapter {
    private static final Logger log = LoggerFactory.getLogger(ConnectionHandler.class);

    /**
     * Correlation ids wrap before the top of the int range, as the official client's do (it keeps the
     * last few ids for SASL's own requests; kflux numbers SASL requests like any other).
     */
    private static final int MAX_CORRELATION_ID = Integer.MAX_VALUE - 8;

    private final Channel channel;
    private final String broker;
    private final NetworkOptions options;
    private final ClientMetrics metrics;
    /** Whose traffic this is, for per-node meters: the broker's node id, -1 for a bootstrap server. */
    private final int nodeId;
    private final ArrayDeque<InFlightRequest<?>> inFlight = new ArrayDeque<>();
    /** Requests submitted while re-authentication is due or running, written when it ends. */
    private final ArrayDeque<InFlightRequest<?>> held = new ArrayDeque<>();
    private AuthState authState = AuthState.READY;
    private Runnable whenDrained;
    private int nextCorrelationId;

    /** Why the connection ended; null while open. Written on the event loop, read anywhere. */
    private volatile DisconnectedException closeCause;
    /** Set (before closeCause) when the connection ended for being idle, which is no failure. */
    private volatile boolean closedWhileIdle;
    /**
     * Requests written and not yet answered plus requests held back, as last counted on the event loop; read
     * anywhere when a broker is chosen by load (a stuck broker's requests pile up here).
     */
    private volatile int waiting;
    /** When the connection ended (nanoTime), 0 while open: set before any request in flight is failed. */
    private volatile long closedAtNanos;

    ConnectionHandler(Channel channel, String broker, NetworkOptions options, ClientMetrics metrics, int nodeId) {
        this.channel = channel;
        this.broker = broker;
        this.options = options;
        this.metrics = metrics;
        this.nodeId = nodeId;
    }

    boolean isOpen() {
        return closeCause == null && channel.isActive();
    }

    DisconnectedException closeCause() {
        return closeCause;
    }

    /** Whether the connection was closed for {@code connections.max.idle.ms}, not for an error. */
    boolean closedWhileIdle() {
        return closedWhileIdle;
    }

    long closedAtNanos() {
        return closedAtNanos;
    }

    /** Requests sent and not answered, or held back for re-authentication; a snapshot from any thread. */
    int waiting() {
        return waiting;
    }

    private void countWaiting() {
        waiting = inFlight.size() + held.size();
    }

    /** Sends {@code request} from any thread; its sink is completed on the event loop. */
    void submit(InFlightRequest<?> request) {
        EventLoop loop = channel.eventLoop();
        if (loop.inEventLoop()) {
            sendOrHold(request);
            return;
        }
        try {
            loop.execute(() -> sendOrHold(request));
        } catch (RejectedExecutionException e) {
            request.fail(new DisconnectedException("connection to " + broker + " is closed (its event loop is shut down); "
                    + request.describe() + " was not sent", e));
        }
    }

    /** Closes the connection from any thread, failing every request in flight with {@code reason}. */
    void close(String reason) {
        close(reason, null);
    }

    /** As {@link #close(String)}, with the error that made the connection unusable (the close cause's cause). */
    void close(String reason, Throwable cause) {
        EventLoop loop = channel.eventLoop();
        if (loop.inEventLoop()) {
            closeWith(reason, cause);
            return;
        }
        try {
            loop.execute(() -> closeWith(reason, cause));
        } catch (RejectedExecutionException e) {
            channel.close();
        }
    }

    /**
     * Starts re-authentication (KIP-368): requests submitted from now on are held back; once the ones in
     * flight are answered, {@code authenticate} runs on the event loop and must end with
     * {@link #reauthenticated()} or by closing the connection. Runs on the event loop.
     */
    void holdForReauthentication(Runnable authenticate) {
        if (closeCause != null) {
            return;
        }
        authState = authState.moveTo(AuthState.DRAINING);
        whenDrained = authenticate;
        maybeDrained();
    }

    private void maybeDrained() {
        if (authState == AuthState.DRAINING && inFlight.isEmpty() && closeCause == null) {
            authState = authState.moveTo(AuthState.AUTHENTICATING);
            Runnable run = whenDrained;
            whenDrained = null;
            run.run();
        }
    }

    /** Ends re-authentication: the held requests are written, in the order they came. Runs on the event loop. */
    void reauthenticated() {
        authState = authState.moveTo(AuthState.READY);
        InFlightRequest<?> next;
        while (authState == AuthState.READY && (next = held.pollFirst()) != null) {
            send(next);
        }
    }

    private void sendOrHold(InFlightRequest<?> request) {
        if (authState != AuthState.READY && !request.authentication && closeCause == null) {
            held.addLast(request);
            countWaiting();
            return;
        }
        send(request);
    }

    private void send(InFlightRequest<?> request) {
        DisconnectedException closed = closeCause;
        if (closed != null) {
            request.fail(new DisconnectedException(closed.getMessage() + "; " + request.describe() + " was not sent",
                    closed.getCause()));
            return;
        }
        if (request.cancelled) {
            return;
        }
        int correlationId = nextCorrelationId;
        nextCorrelationId = correlationId >= MAX_CORRELATION_ID ? 0 : correlationId + 1;
        ByteBuf frame;
        try {
            frame = RequestEncoder.encode(channel.alloc(), request.request, request.version, correlationId,
                    options.clientId());
        } catch (RuntimeException e) {
            // Nothing was written, so the stream is intact: only this request fails.
            request.fail(e);
            return;
        }
        request.correlationId = correlationId;
        request.writtenAtNanos = System.nanoTime();
        inFlight.addLast(request);
        countWaiting();
        metrics.requestSent(nodeId, frame.readableBytes());
        request.timer = channel.eventLoop().schedule(() -> onTimeout(request), request.timeoutMs,
                TimeUnit.MILLISECONDS);
        channel.writeAndFlush(frame).addListener(f -> {
            if (!f.isSuccess()) {
                closeWith("failed to write " + request.describe(), f.cause());
            }
        });
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof ByteBuf frame)) {
            ReferenceCountUtil.release(msg);
            return;
        }
        try {
            onFrame(frame);
        } finally {
            frame.release();
        }
        maybeDrained();
    }

    private void onFrame(ByteBuf frame) {
        if (closeCause != null) {
            return;
        }
        InFlightRequest<?> request = inFlight.pollFirst();
        countWaiting(); // before the answer completes anyone's Mono, who may read the load at once
        if (request != null) {
            // the frame decoder took the 4-byte size prefix off; the official client counts it in
            metrics.responseReceived(nodeId, frame.readableBytes() + 4, System.nanoTime() - request.writtenAtNanos);
        }
        if (request == null) {
            closeWith("closed: it sent a response frame of " + frame.readableBytes() + " bytes with no request in flight",
                    null);
            return;
        }
        if (frame.readableBytes() < 4) {
            failAndClose(request, new MalformedMessageException("response frame of " + frame.readableBytes()
                    + " bytes from " + broker + " to " + request.describe() + " is too short for a correlation id"));
            return;
        }
        int correlationId = frame.getInt(frame.readerIndex());
        if (correlationId != request.correlationId) {
            failAndClose(request, new MalformedMessageException("response from " + broker + " has correlation id "
                    + correlationId + " but the oldest request in flight is " + request.describe()));
            return;
        }
        if (request.cancelled) {
            // Its subscriber is gone; the frame is released unread, so no record slices leak.
            request.discard();
            return;
        }
        complete(request, frame);
    }

    private <R> void complete(InFlightRequest<R> request, ByteBuf frame) {
        R response;
        try {
            response = ResponseDecoder.decode(frame, request.apiKey(), request.responseSpec(), request.version);
        } catch (MalformedMessageException e) {
            failAndClose(request, new MalformedMessageException("response from " + broker + " to " + request.describe()
                    + " is malformed: " + e.getMessage(), e));
            return;
        }
        request.succeed(response);
    }

    private void onTimeout(InFlightRequest<?> request) {
        if (request.done() || !inFlight.remove(request)) {
            return;
        }
        countWaiting();
        long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - request.writtenAtNanos);
        RequestTimeoutException timeout = new RequestTimeoutException(request.describe() + " to " + broker
                + " got no response within " + (request.timeoutMs == options.requestTimeoutMs()
                ? "request.timeout.ms=" + request.timeoutMs : request.timeoutMs + " ms") + " (waited " + elapsedMs
                + " ms)", request.apiKey(), request.timeoutMs);
        // As the official NetworkClient does: a late answer would arrive ahead of the answers to
        // later requests, and a broker this slow is likely stuck, so start over on a new connection.
        // Closed first, so that whoever gets the timeout already sees the broker as troubled (NodeLoad).
        closeWith("closed because " + request.describe() + " timed out", timeout);
        request.fail(timeout);
    }

    private void failAndClose(InFlightRequest<?> request, RuntimeException error) {
        closeWith("closed: its byte stream can no longer be trusted (" + error.getMessage() + ")", error);
        request.fail(error);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (closeCause != null) {
            return;
        }
        if (cause instanceof TooLongFrameException) {
            failOldestAndClose(new FrameTooLargeException(cause.getMessage() + " (from " + broker + ")", cause));
        } else if (cause instanceof DecoderException) {
            failOldestAndClose(new MalformedMessageException("undecodable response frame from " + broker + ": "
                    + cause.getMessage(), cause));
        } else {
            closeWith("failed: " + cause, cause);
        }
    }

    private void failOldestAndClose(RuntimeException error) {
        InFlightRequest<?> oldest = inFlight.pollFirst();
        closeWith("closed: " + error.getMessage(), error);
        if (oldest != null) {
            oldest.fail(error);
        }
    }

    /**
     * {@code connections.max.idle.ms}: the IdleStateHandler before this one reports no read and no write for that
     * long. A request still waiting (a long fetch poll answers within fetch.max.wait.ms, so it is never idle that
     * long) keeps the connection: request.timeout.ms is what ends a stuck request.
     */
    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
        if (evt instanceof io.netty.handler.timeout.IdleStateEvent) {
            if (closeCause == null && inFlight.isEmpty() && held.isEmpty() && authState == AuthState.READY) {
                closedWhileIdle = true;
                closeWith("was idle for connections.max.idle.ms (" + options.connectionsMaxIdleMs() + " ms)", null);
            }
            return;
        }
        super.userEventTriggered(ctx, evt);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        closeWith("was closed by the broker or the network", null);
        super.channelInactive(ctx);
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        if (closeCause == null) {
            closeWith(channel.isActive() ? "closed: its protocol handler was removed" : "was closed", null);
        }
    }

    /** Ends the connection once: records why, fails every request in flight, closes the channel. */
    private void closeWith(String reason, Throwable cause) {
        if (closeCause == null) {
            closedAtNanos = System.nanoTime();
            closeCause = new DisconnectedException("connection to " + broker + " " + reason, cause);
            if (cause == null) {
                log.debug("connection to {} {}", broker, reason);
            } else {
                log.debug("connection to {} {}", broker, reason, cause);
            }
        }
        DisconnectedException why = closeCause;
        waiting = 0; // everything below is failed now
        InFlightRequest<?> request;
        while ((request = inFlight.pollFirst()) != null) {
            request.fail(new DisconnectedException(why.getMessage() + "; " + request.describe() + " got no response",
                    why.getCause()));
        }
        while ((request = held.pollFirst()) != null) {
            request.fail(new DisconnectedException(why.getMessage() + "; " + request.describe() + " was not sent",
                    why.getCause()));
        }
        channel.close();
    }
}
