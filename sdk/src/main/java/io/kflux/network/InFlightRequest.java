package io.kflux.network;

import io.kflux.protocol.ApiKey;
import io.kflux.protocol.ApiRequest;
import io.kflux.protocol.MessageSpec;
import java.util.concurrent.ScheduledFuture;
import reactor.core.publisher.MonoSink;

/**
 * A request from the moment {@link BrokerConnection} accepts it until its response, error or
 * timeout. All fields but {@link #cancelled} are touched only on the connection's event loop.
 *
 * @param <R> the response type
 */
final class InFlightRequest<R> {
    final ApiRequest<R> request;
    final short version;
    private final MonoSink<R> sink;

    int correlationId = -1;
    long writtenAtNanos;
    ScheduledFuture<?> timer;
    private boolean done;

    /** Set from the subscriber's thread; a cancelled request is still awaited, but its body not decoded. */
    volatile boolean cancelled;

    /** How long the response may take after the request was written, in ms. */
    final long timeoutMs;

    /** Part of a SASL exchange: written even while other requests are held back for re-authentication. */
    final boolean authentication;

    InFlightRequest(ApiRequest<R> request, short version, MonoSink<R> sink, long timeoutMs, boolean authentication) {
        this.timeoutMs = timeoutMs;
        this.authentication = authentication;
        this.request = request;
        this.version = version;
        this.sink = sink;
    }

    ApiKey apiKey() {
        return request.apiKey();
    }

    MessageSpec<R> responseSpec() {
        return request.responseSpec();
    }

    boolean done() {
        return done;
    }

    void succeed(R response) {
        if (!done) {
            done = true;
            cancelTimer();
            sink.success(response);
        }
    }

    /** Ends a cancelled request whose response arrived: nobody is left to tell. */
    void discard() {
        done = true;
        cancelTimer();
    }

    /** Fails the request; a cancelled one just ends (signalling it would only reach onErrorDropped). */
    void fail(Throwable error) {
        if (!done) {
            done = true;
            cancelTimer();
            if (!cancelled) {
                sink.error(error);
            }
        }
    }

    private void cancelTimer() {
        if (timer != null) {
            timer.cancel(false);
            timer = null;
        }
    }

    /** "METADATA v12 (correlation id 5)", for error messages. */
    String describe() {
        return apiKey() + " v" + version + (correlationId >= 0 ? " (correlation id " + correlationId + ")" : "");
    }
}
