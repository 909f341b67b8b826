package io.kflux.internal;

import io.kflux.KafkaShareConsumer;
import io.kflux.ShareConsumerOptions;
import io.kflux.ShareRecord;
import io.kflux.internal.config.ConsumerConfig;
import io.kflux.internal.config.OptionsAccess;
import io.kflux.internal.security.ConnectionSecurities;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;
import reactor.core.publisher.Flux;
import reactor.core.publisher.FluxSink;
import reactor.core.publisher.Mono;

/** The {@link KafkaShareConsumer}: one {@link ShareSubscription} at a time. */
public final class DefaultKafkaShareConsumer<K, V> implements KafkaShareConsumer<K, V> {
    private final ShareConsumerOptions<K, V> options;
    private final ClientSettings settings;
    private final AtomicReference<ShareSubscription<K, V>> active = new AtomicReference<>();
    /**
     * The stop of the last subscription that ended (cancelled, completed or failed): it still leaves the group
     * after its flux has ended, and a receive() subscribed meanwhile waits for it instead of being refused, as
     * KafkaFluxConsumer's does.
     */
    private final AtomicReference<Mono<Void>> stopping = new AtomicReference<>(Mono.empty());

    public DefaultKafkaShareConsumer(ShareConsumerOptions<K, V> options) {
        this.options = Objects.requireNonNull(options, "options");
        ConsumerConfig config = OptionsAccess.config(options.consumerOptions());
        this.settings = ClientSettings.from(config, options.consumerOptions().maxBufferedBytes(),
                ConnectionSecurities.from(config, options.consumerOptions().oauthBearerTokenProvider().orElse(null),
                        options.consumerOptions().saslMechanism().orElse(null)));
    }

    @Override
    public Flux<ShareRecord<K, V>> receive() {
        return Flux.defer(() -> stopping.get().thenMany(subscription()));
    }

    private Flux<ShareRecord<K, V>> subscription() {
        return Flux.<ShareRecord<K, V>>create(sink -> {
            if (active.get() != null) {
                sink.error(new IllegalStateException("a share consumer has one active subscription; receive() is "
                        + "subscribed already"));
                return;
            }
            ShareSubscription<K, V> s = new ShareSubscription<>(options, settings, sink);
            if (!active.compareAndSet(null, s)) {
                s.stop(Duration.ZERO, new IllegalStateException("a share consumer has one active subscription"))
                        .subscribe();
                return;
            }
            sink.onDispose(() -> {
                // runs before the flux's end reaches downstream (take(n) cancels first), so a receive() that
                // follows the end finds this stop; active is cleared before the stop's completion reaches a waiting
                // receive(), which subscribes from it
                Mono<Void> stop = s.stop(Duration.ofMillis(settings.requestTimeoutMs()))
                        .onErrorResume(e -> Mono.empty())
                        .then(Mono.fromRunnable(() -> active.compareAndSet(s, null)))
                        .then()
                        .cache();
                stopping.set(stop);
                stop.subscribe();
            });
            s.start();
            // IGNORE, not BUFFER: the emitter hands out no record beyond the subscriber's demand (it counts the same
            // requests), so a buffer in the sink only put every record through a queue and a drain loop on its way
        }, FluxSink.OverflowStrategy.IGNORE);
    }

    @Override
    public Mono<Void> close(Duration timeout) {
        ShareSubscription<K, V> s = active.get();
        return s == null ? Mono.empty() : s.stop(timeout).doFinally(x -> active.compareAndSet(s, null));
    }
}
