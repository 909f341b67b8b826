package io.kflux.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import io.kflux.Deserializers;
import io.kflux.ShareRecord;
import io.kflux.network.NodeConnections;
import io.kflux.share.ShareFetchConfig;
import io.kflux.share.ShareFetcher;
import io.kflux.network.IoLoops;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.FluxSink;
import reactor.core.scheduler.Schedulers;

class ShareEmitterTest {

    /**
     * On a 4.4 broker an acknowledgement completed on the loop after close() made the subscriber's flatMap request
     * more; scheduling on the disposed worker threw into the fetcher's answer handling and close waited out its
     * timeout.
     */
    @Test
    void aRequestAfterStopIsIgnoredInsteadOfThrowing() {
        AtomicReference<FluxSink<ShareRecord<String, String>>> sink = new AtomicReference<>();
        Flux.<ShareRecord<String, String>>create(sink::set).subscribe();
        ShareFetcher fetcher = new ShareFetcher(new ShareFetchConfig("g", 500, 1, 1 << 20, 500, 100, 1000),
                new NodeConnections(ClientSettings.of(Map.of("bootstrap.servers", "127.0.0.1:9")).network()),
                null, task -> { }, IoLoops.timers(), () -> "m", io.kflux.util.ClientMetrics.NONE, null);
        ShareEmitter<String, String> emitter = new ShareEmitter<>(Schedulers.single().createWorker(),
                new RecordBuilder<>(Deserializers.string(), Deserializers.string(), null, null), fetcher, true,
                sink.get(), null, io.kflux.util.LogContext.NONE);
        emitter.stop().block(Duration.ofSeconds(10));

        assertThatCode(() -> emitter.request(1)).doesNotThrowAnyException();
        assertThat(emitter.requested()).isEqualTo(1);
        assertThat(emitter.buffered()).isZero();
    }
}
